package report

import (
	"fmt"

	"github.com/infertrace/infertrace/analyze"
)

// tooSmall is what a percentile whose sample cannot support it shows.
const tooSmall = "n too small"

// percentile prints percentile i (0..3: P50, P90, P95, P99) of d: "–"
// without a value, "n too small" when its n is below 1/(1 − q), else the
// value with one decimal.
func percentile(d analyze.Dist, i int) string {
	v := [4]*float64{d.P50, d.P90, d.P95, d.P99}[i]
	return shownValue(v, d.Small[i])
}

// shownValue prints v with one decimal, "–" for none, "n too small" when small.
func shownValue(v *float64, small bool) string {
	switch {
	case v == nil:
		return "–"
	case small:
		return tooSmall
	}
	return fmtMs(v)
}

// interval prints the 95% interval of P95 (i = 2) or P99 (i = 3) of d as
// "[lo, hi]", an open bound as "…"; "" where the percentile is not shown.
func interval(d analyze.Dist, i int) string {
	iv := d.P95CI
	if i == 3 {
		iv = d.P99CI
	}
	return intervalOf(iv, [4]*float64{d.P50, d.P90, d.P95, d.P99}[i], d.Small[i])
}

// intervalOf prints iv as "[lo, hi]" for a shown value v.
func intervalOf(iv analyze.Interval, v *float64, small bool) string {
	if v == nil || small {
		return ""
	}
	lo, hi := "…", "…"
	if iv.Lo != nil {
		lo = fmtMs(iv.Lo)
	}
	if iv.Hi != nil {
		hi = fmtMs(iv.Hi)
	}
	return fmt.Sprintf("[%s, %s]", lo, hi)
}

// intervalTitle is the HTML title of a P95 or P99 cell: its 95% interval,
// or why no number is shown.
func intervalTitle(d analyze.Dist, i int) string {
	v := [4]*float64{d.P50, d.P90, d.P95, d.P99}[i]
	if v != nil && d.Small[i] {
		return fmt.Sprintf("P%s from n = %d: fewer samples than 1/(1 − q)", [4]string{"50", "90", "95", "99"}[i], d.N)
	}
	if s := interval(d, i); s != "" {
		return "95% interval " + s
	}
	return ""
}

// statFuncs are the template helpers of percentiles and their intervals.
var statFuncs = map[string]any{
	"pq":       percentile,
	"ci":       interval,
	"ciTitle":  intervalTitle,
	"pqv":      shownValue,
	"civ":      intervalOf,
	"tooSmall": func() string { return tooSmall },
}
