package report

import (
	"fmt"
	"time"

	"github.com/infertrace/infertrace/analyze"
)

// Chart geometry (SVG user units).
const (
	chartWidth  = 760
	labelWidth  = 200
	labelHeight = 18
	barWidth    = chartWidth - labelWidth - 20
	barHeight   = 14
	rowGap      = 6
	sliceGap    = 14
	legendSpace = 30
)

// componentColors are fixed per component so every chart reads the same.
var componentColors = map[string]string{
	"network":     "#4e79a7",
	"application": "#f28e2b",
	"queue":       "#e15759",
	"model":       "#59a14f",
}

// chart is an inline SVG of the E2E attribution per slice: one bar of the
// components' P50s side by side, one of their means over the slowest 5%.
type chart struct {
	Width, Height int
	MaxMs         string // value at the right edge of the bar area
	Legend        []legendItem
	Rows          []chartRow
	Clamped       bool // some negative value was drawn as zero
}

type legendItem struct {
	X     int
	Color string
	Name  string
}

type chartRow struct {
	Y, TextY int
	Label    string // slice label, on a line of its own
	Caption  string // what the bar shows, left of it
	Segments []segment
}

type segment struct {
	Y     int
	X, W  string
	Color string
	Title string
}

func newChart(slices []analyze.Slice) chart {
	c := chart{Width: chartWidth}
	x := labelWidth
	for _, name := range []string{"network", "application", "queue", "model"} {
		c.Legend = append(c.Legend, legendItem{X: x, Color: componentColors[name], Name: name})
		x += 110
	}
	type bar struct {
		label, caption string
		slice          string
		parts          []analyze.Component
		tail           bool
	}
	var bars []bar
	max := 0.0
	for _, s := range slices {
		if s.E2ETailN == 0 && componentsEmpty(s.E2E) {
			continue
		}
		bars = append(bars,
			bar{s.Label, "P50 of each component", s.Label, s.E2E, false},
			bar{"", fmt.Sprintf("slowest 5%%, mean (n=%d)", s.E2ETailN), s.Label, s.E2E, true})
		for _, tail := range []bool{false, true} {
			sum := 0.0
			for _, p := range s.E2E {
				if v := value(p, tail); v != nil && *v > 0 {
					sum += *v
				}
			}
			if sum > max {
				max = sum
			}
		}
	}
	if max == 0 {
		max = 1
	}
	c.MaxMs = fmt.Sprintf("%.1f ms", max)
	y := legendSpace
	for _, b := range bars {
		if b.label != "" {
			// The slice label gets its own line above its two bars.
			c.Rows = append(c.Rows, chartRow{Y: y, TextY: y + 12, Label: b.label})
			y += labelHeight
		}
		row := chartRow{Y: y, TextY: y + barHeight - 3, Caption: b.caption}
		pos := 0.0
		for _, p := range b.parts {
			v := value(p, b.tail)
			if v == nil {
				continue
			}
			w := *v
			if w < 0 {
				c.Clamped = true
				w = 0
			}
			px := w / max * barWidth
			row.Segments = append(row.Segments, segment{
				Y:     y,
				X:     fmt.Sprintf("%.1f", float64(labelWidth)+pos),
				W:     fmt.Sprintf("%.1f", px),
				Color: componentColors[p.Name],
				Title: fmt.Sprintf("%s, %s, %s: %s ms", b.slice, p.Name, b.caption, fmtMs(v)),
			})
			pos += px
		}
		c.Rows = append(c.Rows, row)
		y += barHeight + rowGap
		if b.tail {
			y += sliceGap
		}
	}
	c.Height = y + 10
	return c
}

func value(c analyze.Component, tail bool) *float64 {
	if tail {
		return c.TailMean
	}
	return c.P50
}

func componentsEmpty(cs []analyze.Component) bool {
	for _, c := range cs {
		if c.N > 0 {
			return false
		}
	}
	return true
}

// Time series chart geometry (SVG user units).
const (
	tsLabelWidth  = 150
	tsPanelHeight = 56
	tsPanelGap    = 22
	tsTop         = 24
	tsAxisSpace   = 34
)

// tsChart is an inline SVG of the time series: one panel per metric
// (arrivals/s, P95 client E2E, P95 queue, P95 model), one bar per window on
// a shared time axis; windows with mostly burst requests are shaded and
// windows with cold requests marked.
type tsChart struct {
	Width, Height int
	Panels        []tsPanel
	Shades        []tsRect
	ColdMarks     []tsRect
	XLabels       []tsText
	Empty         bool
}

type tsPanel struct {
	Label, Max string
	Y, TextY   int
	BaseY      int
	Bars       []tsRect
	Color      string
}

type tsRect struct {
	X, Y, W, H string
	Title      string
}

type tsText struct {
	X, Y int
	Text string
}

func f1(v float64) string { return fmt.Sprintf("%.1f", v) }

func newTSChart(ws []analyze.TimeWindow) tsChart {
	c := tsChart{Width: chartWidth}
	if len(ws) == 0 {
		c.Empty = true
		return c
	}
	type metric struct {
		label, color string
		get          func(analyze.TimeWindow) (*float64, int64)
		unit         string
	}
	metrics := []metric{
		{"arrivals/s", "#76b7b2", func(w analyze.TimeWindow) (*float64, int64) { v := w.ArrivalsPerS; return &v, w.Requests }, "/s"},
		{"P95 client E2E", "#4e79a7", func(w analyze.TimeWindow) (*float64, int64) { return w.ClientE2EP95, w.ClientE2EN }, " ms"},
		{"P95 queue", componentColors["queue"], func(w analyze.TimeWindow) (*float64, int64) { return w.QueueP95, w.QueueN }, " ms"},
		{"P95 model", componentColors["model"], func(w analyze.TimeWindow) (*float64, int64) { return w.ModelP95, w.ModelN }, " ms"},
	}
	plotW := float64(chartWidth - tsLabelWidth - 10)
	bw := plotW / float64(len(ws))
	x := func(i int) float64 { return float64(tsLabelWidth) + float64(i)*bw }
	top := tsTop
	bottom := tsTop + len(metrics)*(tsPanelHeight+tsPanelGap) - tsPanelGap
	for i, w := range ws {
		when := fmtTime(w.Start)
		if w.Requests > 0 && 2*w.Burst > w.Requests {
			c.Shades = append(c.Shades, tsRect{X: f1(x(i)), Y: fmt.Sprint(top - 4), W: f1(bw), H: fmt.Sprint(bottom - top + 8),
				Title: fmt.Sprintf("%s UTC: %d of %d requests detected as burst", when, w.Burst, w.Requests)})
		}
		if w.Cold > 0 {
			c.ColdMarks = append(c.ColdMarks, tsRect{X: f1(x(i)), Y: fmt.Sprint(bottom + 4), W: f1(bw), H: "5",
				Title: fmt.Sprintf("%s UTC: %s", when, plural(w.Cold, "cold request", "cold requests"))})
		}
	}
	for m, mt := range metrics {
		y := tsTop + m*(tsPanelHeight+tsPanelGap)
		p := tsPanel{Label: mt.label, Y: y, TextY: y + 12, BaseY: y + tsPanelHeight, Color: mt.color}
		max := 0.0
		for _, w := range ws {
			if v, _ := mt.get(w); v != nil && *v > max {
				max = *v
			}
		}
		p.Max = "max " + f1(max) + mt.unit
		if max == 0 {
			max = 1
		}
		for i, w := range ws {
			v, n := mt.get(w)
			if v == nil {
				continue
			}
			h := *v / max * tsPanelHeight
			if h < 0 {
				h = 0
			}
			p.Bars = append(p.Bars, tsRect{X: f1(x(i) + 0.5), Y: f1(float64(p.BaseY) - h), W: f1(max0(bw-1, 0.5)), H: f1(h),
				Title: fmt.Sprintf("%s UTC, %s: %s%s (n=%d)", fmtTime(w.Start), mt.label, fmtMs(v), mt.unit, n)})
		}
		c.Panels = append(c.Panels, p)
	}
	axisY := bottom + 24
	c.XLabels = append(c.XLabels, tsText{X: tsLabelWidth, Y: axisY, Text: fmtTime(ws[0].Start) + " UTC"})
	last := ws[len(ws)-1]
	end := "–"
	if last.Start != nil {
		e := last.Start.Add(time.Duration(last.WidthS * float64(time.Second)))
		end = fmtTime(&e) + " UTC"
	}
	c.XLabels = append(c.XLabels, tsText{X: chartWidth - 10, Y: axisY, Text: end})
	c.Height = axisY + tsAxisSpace - 20
	return c
}

func max0(a, b float64) float64 {
	if a > b {
		return a
	}
	return b
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
