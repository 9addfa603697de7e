package report

import (
	"fmt"

	"github.com/infertrace/infertrace/analyze"
)

// How a trend's figures are written (report/trend.go, the trend's
// findings).

// trendTitle is the figure's name with its quantile: "P95 client E2E",
// "error rate".
func trendTitle(f analyze.TrendFigure) string {
	if f.P == 0 {
		return f.Name
	}
	return fmt.Sprintf("P%g %s", f.P*100, f.Name)
}

// trendValue prints a value of the figure in its unit; nil as "–".
func trendValue(f analyze.TrendFigure, v *float64) string {
	if v == nil {
		return "–"
	}
	switch f.Unit {
	case "share":
		return fmt.Sprintf("%.2f%%", 100**v)
	case "tok/s":
		return fmt.Sprintf("%.1f tok/s", *v)
	}
	return formatDuration(*v)
}

// trendSigned prints a change of the figure with its sign.
func trendSigned(f analyze.TrendFigure, v *float64) string {
	if v == nil {
		return "–"
	}
	sign, a := "+", *v
	if a < 0 {
		sign, a = "−", -a
	}
	switch f.Unit {
	case "share":
		return fmt.Sprintf("%s%.2f pp", sign, 100*a)
	case "tok/s":
		return fmt.Sprintf("%s%.1f tok/s", sign, a)
	}
	return sign + formatDuration(a)
}

// trendShort is the change as a table cell: "P95 client E2E +1.00 s".
func trendShort(f analyze.TrendFigure) string { return trendTitle(f) + " " + trendSigned(f, f.Delta) }
