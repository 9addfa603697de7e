package report

import (
	"bytes"
	"fmt"
	htmltemplate "html/template"
	"io"
	"math"
	"os"
	"path/filepath"
	texttemplate "text/template"

	"github.com/infertrace/infertrace/compare"
)

var (
	compareMD = texttemplate.Must(texttemplate.New("compare.md.tmpl").
			Funcs(texttemplate.FuncMap(funcs(mdEscape))).
			ParseFS(templateFS, "templates/compare.md.tmpl"))
	compareHTML = htmltemplate.Must(htmltemplate.New("compare.html.tmpl").
			Funcs(htmltemplate.FuncMap(funcs(func(s string) string { return s }))).
			ParseFS(templateFS, "templates/compare.html.tmpl"))
)

// compareView is what the compare templates render.
type compareView struct {
	*compare.Comparison
	Slices []compareSliceView
	Chart  compareChart
	// Headline is the P95 of the headline figures and components of all
	// requests, for the first screen.
	Headline []compareRow
	// Method is how the change is measured (compare.Method).
	Method string
	// Findings word what changed, most impact first (CompareFindings).
	Findings []string
}

type compareSliceView struct {
	compare.CompareSlice
	Rows []compareRow
}

// compareRow is one metric at one quantile, before and after.
type compareRow struct {
	Metric, Quantile   string
	First              bool // first quantile of its metric
	Baseline, Target   string
	BaselineN, TargetN int64
	Delta, Interval    string
	Mark               string // "significant", "strong", "too few", ""
	Worse, Better      bool   // a significant change for the worse / better
}

func newCompareView(c *compare.Comparison) *compareView {
	v := &compareView{Comparison: c, Findings: CompareFindings(c), Method: compare.Method}
	for _, s := range c.Slices {
		sv := compareSliceView{CompareSlice: s}
		for _, m := range s.Metrics {
			for i, q := range m.Points {
				r := compareRow{Metric: m.Name, Quantile: quantileLabel(q), First: i == 0,
					Baseline: fmtVal(q.Baseline, m.Unit), Target: fmtVal(q.Target, m.Unit),
					BaselineN: q.BaselineN, TargetN: q.TargetN, Delta: fmtDelta(q.Delta, m.Unit)}
				switch {
				case q.Lo != nil || q.Hi != nil:
					r.Interval = fmtBound(q.Lo, m.Unit) + " … " + fmtBound(q.Hi, m.Unit)
				case q.Delta != nil && !q.TooFew:
					r.Interval = "open"
				default:
					r.Interval = "–"
				}
				r.Mark, r.Worse, r.Better = changeMark(m, q)
				sv.Rows = append(sv.Rows, r)
			}
		}
		v.Slices = append(v.Slices, sv)
	}
	if len(c.Slices) > 0 {
		v.Chart = newCompareChart(c.Slices[0])
		for _, r := range v.Slices[0].Rows {
			switch r.Metric {
			case "client E2E", "client TTFT", "per-user tokens/s", "network", "application", "queue", "model":
				if r.Quantile == "P95" {
					v.Headline = append(v.Headline, r)
				}
			}
		}
	}
	return v
}

// changeMark is how a page marks a quantile's change: "too few",
// "strong", "significant", "noise" or "" (no change to mark), and whether
// a significant change is for the worse or the better.
func changeMark(m compare.MetricChange, q compare.QuantileChange) (mark string, worse, better bool) {
	switch {
	case q.TooFew && q.Delta != nil:
		mark = "too few"
	case q.Strong:
		mark = "strong"
	case q.Significant:
		mark = "significant"
	case q.Delta != nil:
		mark = "noise"
	}
	if q.Significant && q.Delta != nil {
		up := *q.Delta > 0
		worse = up != m.HigherIsBetter
		better = !worse
	}
	return mark, worse, better
}

func fmtVal(p *float64, unit string) string {
	if p == nil {
		return "–"
	}
	return fmt.Sprintf("%.1f", *p)
}

// fmtBound is a bound of an interval, "open" when the samples give none.
func fmtBound(p *float64, unit string) string {
	if p == nil {
		return "open"
	}
	return fmtDelta(p, unit)
}

func fmtDelta(p *float64, unit string) string {
	if p == nil {
		return "–"
	}
	if *p < 0 {
		return fmt.Sprintf("−%.1f", -*p)
	}
	return fmt.Sprintf("+%.1f", *p)
}

// compareChart draws, for all requests, the P95 of client E2E and of each
// E2E component on both sides as paired bars on one axis in ms.
type compareChart struct {
	Width, Height int
	AxisY         int
	Ticks         []tick
	Rows          []compareBar
}

type compareBar struct {
	Label, Name          string // "queue P95", "queue"
	Color                string // the component's colour (componentColors), black for client E2E
	Y, TextY             int
	BaselineW, TargetW   string
	BaselineY, TargetY   int
	BaselineT, TargetT   string
	BaselineTX, TargetTX string
}

func newCompareChart(all compare.CompareSlice) compareChart {
	const left, px, rowH = 150, 560.0, 44
	names := []string{"client_e2e", "network", "application", "queue", "model"}
	max := 0.0
	for _, n := range names {
		m, _ := all.Metric(n)
		for _, q := range m.Points {
			if q.P == 0.95 {
				for _, v := range []*float64{q.Baseline, q.Target} {
					if v != nil && *v > max {
						max = *v
					}
				}
			}
		}
	}
	if max <= 0 {
		max = 1
	}
	sc := newScale(max, px, 5)
	ch := compareChart{Width: left + int(px) + 90}
	y := 10
	for _, n := range names {
		m, _ := all.Metric(n)
		var q compare.QuantileChange
		for _, p := range m.Points {
			if p.P == 0.95 {
				q = p
			}
		}
		w := func(p *float64) string {
			if p == nil {
				return "0"
			}
			return f1(math.Max(sc.at(*p), 0))
		}
		color, ok := componentColors[n]
		if !ok {
			color = okBlack
		}
		b := compareBar{Label: m.Name + " P95", Name: m.Name, Color: color, Y: y, TextY: y + 24,
			BaselineY: y + 4, TargetY: y + 22,
			BaselineW: w(q.Baseline), TargetW: w(q.Target),
			BaselineT: fmtMs(q.Baseline) + " ms (n=" + fmt.Sprint(q.BaselineN) + ")",
			TargetT:   fmtMs(q.Target) + " ms (n=" + fmt.Sprint(q.TargetN) + ")"}
		b.BaselineTX = f1(left + 4 + math.Max(sc.at(deref(q.Baseline)), 0))
		b.TargetTX = f1(left + 4 + math.Max(sc.at(deref(q.Target)), 0))
		ch.Rows = append(ch.Rows, b)
		y += rowH
	}
	ch.AxisY = y + 4
	for v := 0.0; v <= sc.max+sc.step/2; v += sc.step {
		ch.Ticks = append(ch.Ticks, tick{X: f1(left + sc.at(v)), Label: fmtTick(v)})
	}
	ch.Height = ch.AxisY + 40
	return ch
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// RenderCompare writes the comparison c in format "md", "html" or "json"
// to w.
func RenderCompare(w io.Writer, format string, c *compare.Comparison) error {
	switch format {
	case "md":
		return compareMD.Execute(w, newCompareView(c))
	case "html":
		return compareHTML.Execute(w, newCompareView(c))
	case "json":
		return encodeJSON(w, newJSONCompare(c))
	}
	return fmt.Errorf("report: unknown format %q (want md, html or json)", format)
}

// WriteCompare writes c as dir/compare.md, dir/compare.html and
// dir/compare.json.
func WriteCompare(dir string, c *compare.Comparison) ([]string, error) {
	return writeEach(dir, "compare", func(w io.Writer, f string) error { return RenderCompare(w, f, c) })
}

// pageFormats are the formats compare and explain write: each page and its
// figures for programs (json_pages.go).
var pageFormats = []string{"md", "html", "json"}

// writeEach renders NAME.md, NAME.html and NAME.json into dir, each under a
// temporary name first, and returns the paths written.
func writeEach(dir, name string, render func(io.Writer, string) error) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	var paths []string
	for _, f := range pageFormats {
		var buf bytes.Buffer
		if err := render(&buf, f); err != nil {
			return paths, err
		}
		p := filepath.Join(dir, name+"."+f)
		if err := os.WriteFile(p+".tmp", buf.Bytes(), 0o644); err != nil {
			os.Remove(p + ".tmp")
			return paths, fmt.Errorf("report: %w", err)
		}
		if err := os.Rename(p+".tmp", p); err != nil {
			return paths, fmt.Errorf("report: %w", err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}
