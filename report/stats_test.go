package report

import (
	"testing"

	"github.com/infertrace/infertrace/analyze"
)

func TestPercentileCells(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	d := analyze.Dist{N: 50, P50: f(10), P90: f(20), P95: f(30), P99: f(40),
		P95CI: analyze.Interval{Lo: f(25), Hi: f(38.26)}, P99CI: analyze.Interval{Lo: f(35)},
		Small: [4]bool{false, false, false, true}}
	for _, c := range []struct{ got, want string }{
		{percentile(d, 0), "10.0"},
		{percentile(d, 2), "30.0"},
		{interval(d, 2), "[25.0, 38.3]"},
		{percentile(d, 3), "n too small"},
		{interval(d, 3), ""},
		{intervalTitle(d, 2), "95% interval [25.0, 38.3]"},
		{intervalTitle(d, 3), "P99 from n = 50: fewer samples than 1/(1 − q)"},
		{percentile(analyze.Dist{Small: [4]bool{true, true, true, true}}, 2), "–"},
		{intervalOf(analyze.Interval{Hi: f(3)}, f(2), false), "[…, 3.0]"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
