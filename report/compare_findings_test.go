package report

import (
	"strings"
	"testing"

	"github.com/infertrace/infertrace/compare"
)

// wordingComparison is a comparison of all requests only whose queue P95
// rose by 3 s (strong) and whose model P95 changes by modelDelta ms from
// 2000 ms, with the significance given.
func wordingComparison(modelDelta float64, significant, strong bool) *compare.Comparison {
	f := func(v float64) *float64 { return &v }
	all := compare.CompareSlice{All: true, Label: "all requests", BaselineN: 1000, TargetN: 1000}
	for _, m := range compare.CompareMetrics {
		mc := compare.MetricChange{Metric: m.Metric, Name: m.Name, Unit: m.Unit}
		for _, p := range []float64{0.5, 0.95, 0.99} {
			q := compare.QuantileChange{P: p, BaselineN: 1000, TargetN: 1000, Baseline: f(100), Target: f(100), Delta: f(0), Lo: f(-10), Hi: f(10), LoIndep: f(-5), HiIndep: f(5)}
			switch {
			case m.Metric == "queue" && p == 0.95:
				q.Baseline, q.Target, q.Delta, q.Lo, q.Hi = f(1000), f(4000), f(3000), f(2000), f(4000)
				q.Significant, q.Strong = true, true
			case m.Metric == "model" && p == 0.95:
				q.Baseline, q.Target, q.Delta = f(2000), f(2000+modelDelta), f(modelDelta)
				q.Lo, q.Hi = f(modelDelta-300), f(modelDelta+300)
				if !significant {
					q.Lo = f(-300)
				}
				q.Significant, q.Strong = significant, strong
			}
			mc.Points = append(mc.Points, q)
		}
		all.Metrics = append(all.Metrics, mc)
	}
	return &compare.Comparison{Slices: []compare.CompareSlice{all}, Dims: nil}
}

// TestCompareFindingWording: each component has one finding, and every
// figure a finding quotes is worded by its own sign and significance:
// "flat" only for a model change not significant and under 20%, never
// beside a finding of the model's own; a fall of model time never says
// the model is slower.
func TestCompareFindingWording(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name                string
		delta               float64
		significant, strong bool
		want, not           []string
	}{
		{"model flat", 100, false, false,
			[]string{"Server queueing rose 3.00 s in all requests at P95", "while model time is flat (P95 +5%, not significant): look at capacity (replicas, batch size, admission), not the model."},
			[]string{"Model time"}},
		{"model within noise", 1380, false, false,
			[]string{"while model time moved +69% at P95 within its noise (95% interval −300.0 ms to +1.68 s): look at capacity (replicas, batch size, admission)."},
			[]string{"flat", "Model time", "not the model"}},
		{"model significant, short of a finding", 1060, true, false,
			[]string{"and model time rose +53% at P95 (95% interval +760.0 ms to +1.36 s; its 99.9% interval holding 0, short of a finding): look at capacity (replicas, batch size, admission), and at the model."},
			[]string{"flat", "Model time", "not the model"}},
		{"model significant, small", 350, true, true,
			[]string{"and model time rose +18% at P95 (95% interval +50.0 ms to +650.0 ms; under the 5 ms and 20% of its baseline a finding needs)"},
			[]string{"flat", "Model time", "not the model"}},
		{"model fell", -1000, true, true,
			[]string{"Model time fell 1.00 s in all requests at P95", "the model itself is faster", "and model time changed too (its own finding)"},
			[]string{"flat", "slower", "not the model"}},
		{"model rose", 1000, true, true,
			[]string{"Model time rose 1.00 s in all requests at P95", "the model itself is slower", "and model time changed too (its own finding)"},
			[]string{"flat", "faster", "not the model"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			fs := CompareFindings(wordingComparison(c.delta, c.significant, c.strong))
			text := strings.Join(fs, "\n")
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("findings lack %q:\n%s", w, text)
				}
			}
			for _, w := range c.not {
				if strings.Contains(text, w) {
					t.Errorf("findings say %q:\n%s", w, text)
				}
			}
			subjects := map[string]int{}
			for _, f := range fs {
				subjects[strings.SplitN(f, " rose ", 2)[0]]++
				subjects[strings.SplitN(f, " fell ", 2)[0]]++
			}
			for _, ca := range componentAdvice {
				if n := subjects[capital(ca.name)]; n > 1 {
					t.Errorf("%d findings of %s:\n%s", n, ca.name, text)
				}
			}
		})
	}
}
