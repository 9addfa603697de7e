package compare

import (
	"context"
	"database/sql"
	"fmt"
	"math"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/contract"
	"github.com/infertrace/infertrace/internal/textsafe"
)

// A change judged against the product contract (compare --contract): a
// change is a falsifiable experiment. Each constraint of each use case is
// measured on both sides by the report's own contract queries
// (queries/contract_*.sql over each side's requests, with the same
// --evals and --prices), and its change judged:
//
//   - the change is target − baseline; it worsens when it moves against
//     the constraint's op (up for <=, down for >=);
//   - its 95% interval is change ± 1.96 √(se_b² + se_t²), each side's se
//     its contract interval's width / (2 × 1.96) (order statistics for a
//     percentile, Wilson for a share, Poisson for a rate, the mean's for a
//     cost); a side without a value, with "n too small" or without an
//     interval cannot tell;
//   - a change whose interval holds 0 is no significant change;
//   - a significant worsening is within its allowance when its size is at
//     most the constraint's may_worsen (in the metric's unit, or its
//     fraction of the baseline's value); without may_worsen none is
//     allowed.
//
// A use case is rejected when a constraint worsened beyond its allowance
// (a quality constraint is said first), else undecided when some
// constraint cannot tell, else accepted: its quality holds and every
// worsening is allowed. The change is accepted only when every use case
// is.
const (
	contractZ          = 1.959964
	contractQualityKey = "quality"
)

// compareContract judges the contract on each side and the change.
func judgeContract(ctx context.Context, db *sql.DB, opts Options) (*ContractVerdict, error) {
	var sides [2]*analyze.ContractResult
	for i, name := range []string{"baseline", "target"} {
		if _, err := db.ExecContext(ctx, "CREATE OR REPLACE VIEW requests AS SELECT * FROM "+name+"_requests"); err != nil {
			return nil, fmt.Errorf("contract on the %s: %w", name, err)
		}
		// quality also measures each slice (unused here): over no column.
		if err := analyze.RegisterSliced(ctx, db, nil, nil); err != nil {
			return nil, err
		}
		r, err := analyze.JudgeContract(ctx, db, analyze.SummaryOptions{Evals: opts.Evals, Prices: opts.Prices, Contract: opts.Contract})
		if err != nil {
			return nil, fmt.Errorf("contract on the %s: %w", name, err)
		}
		sides[i] = r
	}
	return judgeChange(opts.Contract, sides[0], sides[1]), nil
}

// judgeChange sets each use case's constraints of the target against
// the baseline's.
func judgeChange(c *contract.Contract, b, t *analyze.ContractResult) *ContractVerdict {
	v := &ContractVerdict{File: t.File}
	whole := func(r *analyze.ContractResult, name string) *analyze.CaseResult {
		for i := range r.Cases {
			if r.Cases[i].Name == name && r.Cases[i].Slice == "" {
				return &r.Cases[i]
			}
		}
		return nil
	}
	for _, uc := range c.Cases {
		bc, tc := whole(b, textsafe.Label(uc.Name)), whole(t, textsafe.Label(uc.Name))
		if bc == nil || tc == nil {
			continue
		}
		cc := CaseChange{Name: tc.Name, Match: tc.Match, BaselineN: bc.Requests, TargetN: tc.Requests, QualityHolds: true, QualityKnown: true}
		for i := range tc.Constraints {
			if i >= len(bc.Constraints) {
				break
			}
			cc.Constraints = append(cc.Constraints, constraintChange(bc.Constraints[i], tc.Constraints[i]))
		}
		judgeCase(&cc)
		v.Cases = append(v.Cases, cc)
	}
	v.Verdict, v.Deciding = overall(v.Cases)
	return v
}

func constraintChange(b, t analyze.ConstraintResult) ConstraintChange {
	ch := ConstraintChange{Baseline: b, Target: t}
	cannot := func(why string) ConstraintChange {
		ch.Status, ch.Why = ChangeCannotTell, why
		return ch
	}
	for _, s := range []struct {
		side string
		r    analyze.ConstraintResult
	}{{"baseline", b}, {"target", t}} {
		switch {
		case s.r.Verdict == "n too small":
			return cannot("n too small on the " + s.side)
		case s.r.Value == nil:
			return cannot("no data on the " + s.side)
		}
	}
	d := *t.Value - *b.Value
	ch.Delta = &d
	k := t.Constraint
	ch.Allowed = k.MayWorsen
	if k.MayWorsenRel {
		ch.Allowed = k.MayWorsen * math.Abs(*b.Value)
	}
	if b.CILo == nil || b.CIHi == nil || t.CILo == nil || t.CIHi == nil {
		if d == 0 {
			ch.Status = ChangeNone
			return ch
		}
		return cannot("no interval to tell the change from the noise")
	}
	seB, seT := (*b.CIHi-*b.CILo)/(2*contractZ), (*t.CIHi-*t.CILo)/(2*contractZ)
	half := contractZ * math.Sqrt(seB*seB+seT*seT)
	lo, hi := d-half, d+half
	ch.Lo, ch.Hi = &lo, &hi
	lowerIsBetter := k.Op == "<=" || k.Op == "<"
	worse := (lowerIsBetter && d > 0) || (!lowerIsBetter && d < 0)
	switch {
	case lo <= 0 && hi >= 0:
		ch.Status = ChangeNone
	case !worse:
		ch.Status = ChangeImproved
	case math.Abs(d) <= ch.Allowed:
		ch.Status = ChangeWithin
	default:
		ch.Status = ChangeBeyond
	}
	return ch
}

// judgeCase sets the use case's verdict, and the constraint that decides
// a reject (report words the reason).
func judgeCase(cc *CaseChange) {
	first, open := -1, false
	for i, k := range cc.Constraints {
		quality := k.Kind() == contractQualityKey
		switch k.Status {
		case ChangeBeyond:
			if quality {
				cc.QualityHolds = false
			}
			if first < 0 || (quality && cc.Constraints[first].Kind() != contractQualityKey) {
				first = i
			}
		case ChangeCannotTell:
			if quality {
				cc.QualityKnown = false
			}
			open = true
		}
	}
	cc.Deciding = first
	switch {
	case first >= 0:
		cc.Verdict = VerdictReject
	case open:
		cc.Verdict = VerdictUndecided
	default:
		cc.Verdict = VerdictAccept
	}
}

// overall is the change's verdict: reject when a use case rejects (the
// first whose quality drops, else the first in the contract's order),
// undecided when one cannot be decided or none has requests on both
// sides, else accept; and the index of the use case that decides a reject
// (-1 otherwise).
func overall(cases []CaseChange) (string, int) {
	reject := -1
	for i, c := range cases {
		if c.Verdict == VerdictReject && (reject < 0 || (!c.QualityHolds && cases[reject].QualityHolds)) {
			reject = i
		}
	}
	if reject >= 0 {
		return VerdictReject, reject
	}
	accepted := 0
	for _, c := range cases {
		switch c.Verdict {
		case VerdictUndecided:
			return VerdictUndecided, -1
		case VerdictAccept:
			accepted++
		}
	}
	if accepted == 0 {
		return VerdictUndecided, -1
	}
	return VerdictAccept, -1
}
