package report

import (
	"fmt"

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
