package report

import (
	"fmt"
	"strings"

	"github.com/infertrace/infertrace/compare"
)

// VerdictText is compare's verdict on a change against the contract in one
// sentence, said first: "REJECT: chat quality drops (constraint 1): …",
// "UNDECIDED: …", "ACCEPT: …"; "" without a verdict.
func VerdictText(v *compare.ContractVerdict) string {
	if v == nil {
		return ""
	}
	if v.Verdict == compare.VerdictReject && v.Deciding >= 0 && v.Deciding < len(v.Cases) {
		return "REJECT: " + CaseReason(v.Cases[v.Deciding]) + "."
	}
	var undecided, accepted []string
	for _, c := range v.Cases {
		switch c.Verdict {
		case compare.VerdictUndecided:
			undecided = append(undecided, CaseReason(c))
		case compare.VerdictAccept:
			accepted = append(accepted, CaseReason(c))
		}
	}
	switch {
	case len(undecided) > 0:
		return "UNDECIDED: " + strings.Join(undecided, "; ") + "."
	case len(accepted) == 0:
		return "UNDECIDED: no use case of the contract has requests on both sides."
	}
	return "ACCEPT: " + strings.Join(accepted, "; ") + "."
}

// CaseReason says why a use case got its verdict: the constraint that
// rejects it, those that cannot tell, or what moved within its allowance.
func CaseReason(cc compare.CaseChange) string {
	switch cc.Verdict {
	case compare.VerdictReject:
		if cc.Deciding < 0 || cc.Deciding >= len(cc.Constraints) {
			return cc.Name + " is rejected"
		}
		k := cc.Constraints[cc.Deciding]
		what := k.Kind()
		if what == "quality" {
			what = "quality drops"
		} else {
			what += " worsens beyond its allowance"
		}
		return fmt.Sprintf("%s %s (constraint %d): %s", cc.Name, what, cc.Deciding+1, changeSentence(k))
	case compare.VerdictUndecided:
		var open []string
		for _, k := range cc.Constraints {
			if k.Status == compare.ChangeCannotTell {
				open = append(open, constraintName(k.Target)+" ("+k.Why+")")
			}
		}
		return fmt.Sprintf("%s: nothing worsened beyond its allowance, but %s cannot tell", cc.Name, strings.Join(open, ", "))
	}
	var moved []string
	for _, k := range cc.Constraints {
		switch k.Status {
		case compare.ChangeWithin:
			moved = append(moved, fmt.Sprintf("%s %s, within its allowance of %s", constraintName(k.Target), changeValue(k, k.Delta), allowanceText(k)))
		case compare.ChangeImproved:
			moved = append(moved, fmt.Sprintf("%s improved %s", constraintName(k.Target), changeValue(k, k.Delta)))
		}
	}
	r := cc.Name + ": quality holds and every worsening is allowed"
	if len(moved) > 0 {
		r += " (" + strings.Join(moved, "; ") + ")"
	}
	return r
}

// changeSentence is "eval pass rate 95.0% → 80.0% (−15.0 pp, 95% interval
// −20.5 pp to −9.5 pp; n=400 vs 400), allowance none".
func changeSentence(k compare.ConstraintChange) string {
	return fmt.Sprintf("%s %s → %s (%s, 95%% interval %s; n=%d vs %d), allowance %s",
		constraintName(k.Target), constraintValue(k.Baseline, k.Baseline.Value), constraintValue(k.Target, k.Target.Value), changeValue(k, k.Delta),
		changeInterval(k), k.Baseline.N, k.Target.N, allowanceText(k))
}
