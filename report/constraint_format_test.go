package report

import (
	"testing"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/compare"
	"github.com/infertrace/infertrace/contract"
)

// A contract value in dollars is printed as the report prints money: two
// significant digits below a cent (never $0.0000), four decimals above.
func TestConstraintValueUSD(t *testing.T) {
	t.Parallel()
	c := analyze.ConstraintResult{Unit: "USD"}
	for v, want := range map[float64]string{
		0: "$0.0000", 0.000038: "$0.000038", 0.000214: "$0.00021", 0.0049: "$0.0049", 0.0348: "$0.0348", -0.00021: "$-0.00021",
	} {
		if got := constraintValue(c, &v); got != want {
			t.Errorf("constraintValue(%v) = %q, want %q", v, got, want)
		}
	}
}

// A constraint's name, target, value, interval and change in its unit: a
// P95 in ms with one open bound, a share in % and its change in
// percentage points, an allowance absolute or relative to the baseline.
func TestConstraintText(t *testing.T) {
	t.Parallel()
	p := func(v float64) *float64 { return &v }
	lat := analyze.ConstraintResult{Constraint: contract.Constraint{Kind: "latency", Percentile: 95, Op: "<=", Target: 800,
		MayWorsen: 0.1, MayWorsenRel: true}, Title: "client TTFT", Unit: "ms", N: 400, Value: p(712.04), CILo: p(690), Verdict: "pass"}
	if got := constraintName(lat); got != "client TTFT P95" {
		t.Errorf("latency name %q", got)
	}
	if got := constraintTarget(lat); got != "≤ 800.0 ms" {
		t.Errorf("latency target %q", got)
	}
	if got := constraintShown(lat); got != "712.0 ms" {
		t.Errorf("latency value %q", got)
	}
	if got := constraintInterval(lat); got != "[690.0 ms, …]" {
		t.Errorf("latency interval %q", got)
	}
	open := lat
	open.CILo = nil
	if got := constraintInterval(open); got != "open" {
		t.Errorf("a P95 no sample bounds: %q, want open", got)
	}
	small := open
	small.Verdict = "n too small"
	if got, iv := constraintShown(small), constraintInterval(small); got != "n too small" || iv != "" {
		t.Errorf("n too small: %q %q", got, iv)
	}
	// 10% of a 700 ms baseline: 70 ms allowed; the change +30 ms [+12, +48].
	ch := compare.ConstraintChange{Target: lat, Delta: p(30), Lo: p(12), Hi: p(48), Allowed: 70}
	if got := changeValue(ch, ch.Delta); got != "+30.0 ms" {
		t.Errorf("latency change %q", got)
	}
	if got := changeInterval(ch); got != "+12.0 ms to +48.0 ms" {
		t.Errorf("latency change interval %q", got)
	}
	if got := allowanceText(ch); got != "10% of the baseline (70.0 ms)" {
		t.Errorf("relative allowance %q", got)
	}
	ch.Hi = nil
	if got := changeInterval(ch); got != "" {
		t.Errorf("open change interval %q, want none", got)
	}

	q := analyze.ConstraintResult{Constraint: contract.Constraint{Kind: "quality", Op: ">=", Target: 0.97, MayWorsen: 0.02, Eval: "helpfulness"},
		Title: "eval pass rate", Unit: "share", Value: p(0.95), CILo: p(0.931), CIHi: p(0.9652), Verdict: "fail"}
	if got := constraintName(q); got != "eval pass rate (helpfulness)" {
		t.Errorf("eval name %q", got)
	}
	if got := constraintTarget(q); got != "≥ 97.0%" {
		t.Errorf("share target %q", got)
	}
	if got := constraintInterval(q); got != "[93.1%, 96.5%]" {
		t.Errorf("share interval %q", got)
	}
	qc := compare.ConstraintChange{Target: q, Delta: p(-0.08), Allowed: 0.02}
	if got := changeValue(qc, qc.Delta); got != "−8.0 pp" {
		t.Errorf("share change %q", got)
	}
	if got := allowanceText(qc); got != "2.0 pp" {
		t.Errorf("absolute allowance %q", got)
	}
	qc.Target.MayWorsen = 0
	if got := allowanceText(qc); got != "none" {
		t.Errorf("no allowance %q", got)
	}
	if got := changeValue(qc, nil); got != "–" {
		t.Errorf("no change %q", got)
	}
}
