package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/compare"
)

// How a contract's constraint is written (the Contract section, its
// headlines, compare's verdict): a value in the constraint's unit, its
// target and interval, and a change of it with its allowance. The
// analysis returns the numbers and the unit; the text is made here.

// constraintName is the constraint as a label: "client TTFT P95", "eval
// pass rate (helpfulness)".
func constraintName(c analyze.ConstraintResult) string {
	s := c.Title
	if c.Percentile > 0 {
		s += fmt.Sprintf(" P%g", c.Percentile)
	}
	if c.Eval != "" {
		s += " (" + c.Eval + ")"
	}
	return s
}

// constraintValue prints a value of the constraint's metric with its unit;
// nil as "–".
func constraintValue(c analyze.ConstraintResult, v *float64) string {
	if v == nil {
		return "–"
	}
	switch c.Unit {
	case "share":
		return fmt.Sprintf("%.1f%%", 100**v)
	case "ms":
		return fmt.Sprintf("%.1f ms", *v)
	case "USD":
		return formatUSD(*v)
	case "score":
		return fmt.Sprintf("%.3f", *v)
	}
	return fmt.Sprintf("%.1f %s", *v, c.Unit)
}

// constraintTarget is the target with its direction: "≤ 800 ms", "≥ 97.0%".
func constraintTarget(c analyze.ConstraintResult) string {
	op := map[string]string{"<=": "≤", ">=": "≥", "<": "<", ">": ">"}[c.Op]
	t := c.Target
	return op + " " + constraintValue(c, &t)
}

// constraintInterval prints the 95% interval, "[712.0 ms, 845.3 ms]", open
// bounds as "…", "open" for a percentile whose samples bound neither side;
// "" without one.
func constraintInterval(c analyze.ConstraintResult) string {
	if c.CILo == nil && c.CIHi == nil {
		if c.Value != nil && c.Percentile > 0 && c.Verdict != "n too small" {
			return "open"
		}
		return ""
	}
	lo, hi := "…", "…"
	if c.CILo != nil {
		lo = constraintValue(c, c.CILo)
	}
	if c.CIHi != nil {
		hi = constraintValue(c, c.CIHi)
	}
	return "[" + lo + ", " + hi + "]"
}

// constraintShown is the measured value, or why there is none ("n too
// small").
func constraintShown(c analyze.ConstraintResult) string {
	switch c.Verdict {
	case "n too small":
		return "n too small"
	case "no data":
		return "–"
	}
	return constraintValue(c, c.Value)
}

// formatUSD prints dollars with four decimals, and an amount below a cent
// with two significant digits ($0.00021, not $0.0002 or $0.0000: the cost
// of one request is often a fraction of a cent).
func formatUSD(v float64) string {
	a := math.Abs(v)
	if a == 0 || a >= 0.01 {
		return fmt.Sprintf("$%.4f", v)
	}
	decimals := 1 - int(math.Floor(math.Log10(a)))
	return fmt.Sprintf("$%.*f", decimals, v)
}

// changeValue prints a change of the constraint's metric with its sign:
// "+30.0 ms", "−8.0 pp", "+$0.0100"; nil as "–".
func changeValue(c compare.ConstraintChange, v *float64) string {
	if v == nil {
		return "–"
	}
	sign, a := "+", *v
	if a < 0 {
		sign, a = "−", -a
	}
	if c.Target.Unit == "share" {
		return fmt.Sprintf("%s%.1f pp", sign, 100*a)
	}
	return sign + constraintValue(c.Target, &a)
}

// changeInterval prints the change's 95% interval, "+12.0 ms to +48.0 ms";
// "" without one.
func changeInterval(c compare.ConstraintChange) string {
	if c.Lo == nil || c.Hi == nil {
		return ""
	}
	return changeValue(c, c.Lo) + " to " + changeValue(c, c.Hi)
}

// allowanceText says how much the constraint may worsen: "none", "+50.0
// ms", "10% of the baseline (+80.0 ms)".
func allowanceText(c compare.ConstraintChange) string {
	k := c.Target.Constraint
	if k.MayWorsen == 0 {
		return "none"
	}
	a := c.Allowed
	s := strings.TrimPrefix(changeValue(c, &a), "+")
	if k.MayWorsenRel {
		return fmt.Sprintf("%g%% of the baseline (%s)", 100*k.MayWorsen, s)
	}
	return s
}
