package report

import (
	"fmt"
	"strings"

	"github.com/infertrace/infertrace/analyze"
)

// contractView is the Contract section: per use case, the whole use case
// and its slices.
type contractView struct {
	File  string
	Cases []contractCase
}

type contractCase struct {
	analyze.CaseResult
	Heading string // "chat (use_case=chat): FAILS on quality, its first constraint"
	Slices  []contractCase
}

func newContractView(r *analyze.Result) *contractView {
	if r.Contract == nil {
		return nil
	}
	v := &contractView{File: r.Contract.File}
	for _, c := range r.Contract.Cases {
		cc := contractCase{CaseResult: c, Heading: caseHeading(c)}
		if c.Slice == "" || len(v.Cases) == 0 || v.Cases[len(v.Cases)-1].Name != c.Name {
			v.Cases = append(v.Cases, cc)
			continue
		}
		last := &v.Cases[len(v.Cases)-1]
		last.Slices = append(last.Slices, cc)
	}
	return v
}

// caseHeading names the case or slice and its verdict, the first failing
// constraint first.
func caseHeading(c analyze.CaseResult) string {
	name := c.Name
	if c.Slice != "" {
		name += ", " + c.Slice
	} else if c.Match != "" {
		name += " (" + c.Match + ")"
	}
	switch c.Verdict {
	case "fail":
		k := c.Constraints[c.FirstFail]
		if c.FirstFail == 0 {
			return fmt.Sprintf("%s: FAILS on its first constraint, %s (%s)", name, k.Kind, constraintName(k))
		}
		return fmt.Sprintf("%s: FAILS on %s (%s, constraint %d)", name, k.Kind, constraintName(k), c.FirstFail+1)
	case "incomplete":
		return name + ": cannot be judged on every constraint"
	}
	return name + ": meets its contract"
}

// verdictText is a constraint's verdict as shown: "pass", "FAIL", with
// "(within the 95% interval)" when the interval holds the target.
func verdictText(k analyze.ConstraintResult) string {
	v := k.Verdict
	if v == "fail" {
		v = "FAIL"
	}
	if (k.Verdict == "pass" || k.Verdict == "fail") && k.Decided != nil && !*k.Decided {
		v += " (target within the 95% interval)"
	}
	return v
}

// goodputText sums up a case's goodput: "63.3% [58.4%, 67.9%] of 395
// judged (250 good, 145 missed of which 34 errors), 0.41/s"; "–" without
// per-request latency targets.
func goodputText(c analyze.CaseResult) string {
	g := c.Goodput
	if g.Targets == 0 {
		return "– (no per-request latency target)"
	}
	if g.Share == nil {
		return "– (no request could be judged)"
	}
	s := fmt.Sprintf("%.1f%%", 100**g.Share)
	if g.Lo != nil && g.Hi != nil {
		s += fmt.Sprintf(" [%.1f%%, %.1f%%]", 100**g.Lo, 100**g.Hi)
	}
	s += fmt.Sprintf(" of %d judged (%d good, %d missed, of which %d errors", g.Good+g.Missed, g.Good, g.Missed, g.Error)
	if g.Unknown > 0 {
		s += fmt.Sprintf("; %d unknown, left out", g.Unknown)
	}
	s += ")"
	if g.PerS != nil {
		s += fmt.Sprintf(", %.3f good requests/s", *g.PerS)
	}
	return s
}

// causesText lists why requests missed: "queue 108, error 34".
func causesText(c analyze.CaseResult) string {
	if len(c.Causes) == 0 {
		return "–"
	}
	parts := make([]string, len(c.Causes))
	for i, x := range c.Causes {
		parts[i] = fmt.Sprintf("%s %d", x.Cause, x.Requests)
	}
	return strings.Join(parts, ", ")
}

// passShare prints a slice's eval pass rate with its interval, "97.2%
// [94.8%, 98.5%]"; "–" without evals.
func passShare(q analyze.SliceQuality) string {
	if q.EvalPass == nil {
		return "–"
	}
	s := fmt.Sprintf("%.1f%%", 100**q.EvalPass)
	if q.EvalPassLo != nil && q.EvalPassHi != nil {
		s += fmt.Sprintf(" [%.1f, %.1f]", 100**q.EvalPassLo, 100**q.EvalPassHi)
	}
	return s
}

// usd prints dollars as formatUSD does; nil as "–".
func usd(p *float64) string {
	if p == nil {
		return "–"
	}
	return formatUSD(*p)
}
