package report

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/infertrace/infertrace/analyze"
)

// Attribution chart geometry (SVG user units). Charts scale down with the
// page (max-width: 100%), never overflow it.
const (
	chartWidth  = 1000
	labelWidth  = 200
	labelHeight = 18
	barWidth    = chartWidth - labelWidth - 30
	barHeight   = 16
	rowGap      = 5
	sliceGap    = 12
	legendSpace = 28
	axisSpace   = 40
	// minLabelPx is the narrowest segment that carries its value as text.
	minLabelPx = 52
)

// componentOrder is the order of the E2E components in every bar.
var componentOrder = []string{"network", "application", "queue", "model"}

// notSplitOrder are the components a missing tier leaves not split
// (analyze's Component.NotSplit), drawn after the four and in the legend
// only where some slice has one: greys, as time no tier could attribute.
var notSplitOrder = []string{"upstream (not split)", "network + application (not split)", "all (not split)"}

// The Okabe–Ito palette (Okabe and Ito, "Color Universal Design", 2008):
// eight colours told apart with every common colour-vision deficiency.
const (
	okOrange        = "#E69F00"
	okSkyBlue       = "#56B4E9"
	okBluishGreen   = "#009E73"
	okYellow        = "#F0E442"
	okBlue          = "#0072B2"
	okVermillion    = "#D55E00"
	okReddishPurple = "#CC79A7"
	okBlack         = "#000000"
)

// componentColors are fixed per component so every chart reads the same:
// Okabe–Ito colours, queue (orange) and model (blue) the furthest apart,
// as the two a reader most often weighs against each other.
var componentColors = map[string]string{
	"network":                           okSkyBlue,
	"application":                       okReddishPurple,
	"queue":                             okOrange,
	"model":                             okBlue,
	"upstream (not split)":              "#bab0ac",
	"network + application (not split)": "#8c8c8c",
	"all (not split)":                   "#d9d9d9",
}

// chart is an inline SVG of the E2E attribution per slice on one shared
// scale: one bar of the components' P50s laid end to end, and beside it
// one of their means over the slowest 5% (the tail).
type chart struct {
	Width, Height int
	Legend        []legendItem
	Rows          []chartRow
	Ticks         []tick
	AxisY         int // y of the axis line
	PlotTop       int
	Clamped       bool // some negative value was drawn as zero
}

type legendItem struct {
	X     int
	Color string
	Name  string
}

type tick struct {
	X, Y  string
	Label string
}

type chartRow struct {
	Y, TextY int
	Label    string // slice label, on a line of its own
	Caption  string // what the bar shows, left of it
	Segments []segment
}

type segment struct {
	Y        int
	X, W     string
	Color    string
	Title    string
	Text     string // the value, where the segment is wide enough
	TextX    string
	TextY    int
	TextDark bool
	After    bool // the text follows the bar (left-aligned)
}

// scale maps [0, max] to [0, px] with nice ticks.
type scale struct {
	max, px float64
	step    float64
}

func newScale(max, px float64, ticks int) scale {
	step := niceStep(max, ticks)
	return scale{max: math.Ceil(max/step) * step, px: px, step: step}
}

func (s scale) at(v float64) float64 { return v / s.max * s.px }

// niceStep is a 1, 2 or 5 times a power of ten step giving about n ticks
// up to max.
func niceStep(max float64, n int) float64 {
	if max <= 0 {
		return 1
	}
	raw := max / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// fmtTick prints a tick value without needless decimals.
func fmtTick(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%g", v)
}

// drawn reports whether a slice has client E2E samples; slices without
// (n = 0) are neither drawn nor listed in the summary.
func drawn(s analyze.Slice) bool { return s.ClientE2E.N > 0 }

func newChart(slices []analyze.Slice) chart {
	c := chart{Width: chartWidth}
	x := labelWidth
	for _, name := range append(componentOrder, notSplitShown(slices)...) {
		c.Legend = append(c.Legend, legendItem{X: x, Color: componentColors[name], Name: name})
		// About 6.5 units per character of the legend's text.
		x += max(110, 16+len(name)*13/2+14)
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
		if !drawn(s) || (s.E2ETailN == 0 && componentsEmpty(s.E2E)) {
			continue
		}
		parts := barParts(s)
		bars = append(bars,
			bar{s.Label, "P50 of each component", s.Label, parts, false},
			bar{"", fmt.Sprintf("slowest 5%%, mean (n=%d)", s.E2ETailN), s.Label, parts, true})
		for _, tail := range []bool{false, true} {
			max = math.Max(max, positiveSum(parts, tail))
		}
	}
	if max == 0 {
		max = 1
	}
	sc := newScale(max, barWidth, 8)
	y := legendSpace
	c.PlotTop = y
	for _, b := range bars {
		if b.label != "" {
			// The slice label gets its own line above its two bars.
			c.Rows = append(c.Rows, chartRow{Y: y, TextY: y + 13, Label: b.label})
			y += labelHeight
		}
		row := chartRow{Y: y, TextY: y + barHeight - 4, Caption: b.caption}
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
			px := sc.at(w)
			seg := segment{
				Y:     y,
				X:     f1(float64(labelWidth) + pos),
				W:     f1(px),
				Color: componentColors[p.Name],
				Title: fmt.Sprintf("%s, %s, %s: %s ms", b.slice, p.Name, b.caption, fmtMs(v)),
			}
			if px >= minLabelPx {
				seg.Text, seg.TextX, seg.TextY = fmtMs(v), f1(float64(labelWidth)+pos+px/2), y+barHeight-4
				seg.TextDark = componentColors[p.Name] != okBlue // white only on the dark blue
			}
			row.Segments = append(row.Segments, seg)
			pos += px
		}
		if n := len(row.Segments); n > 0 && row.Segments[n-1].Text == "" {
			// The last segment too narrow for its value: written after the bar.
			last := &row.Segments[n-1]
			for _, p := range b.parts {
				if v := value(p, b.tail); v != nil && componentColors[p.Name] == last.Color {
					last.Text, last.TextX, last.TextY, last.TextDark, last.After = fmtMs(v), f1(float64(labelWidth)+pos+4), y+barHeight-4, true, true
				}
			}
		}
		c.Rows = append(c.Rows, row)
		y += barHeight + rowGap
		if b.tail {
			y += sliceGap
		}
	}
	c.AxisY = y
	for v := 0.0; v <= sc.max+sc.step/2; v += sc.step {
		c.Ticks = append(c.Ticks, tick{X: f1(float64(labelWidth) + sc.at(v)), Y: fmt.Sprint(y + 14), Label: fmtTick(v)})
	}
	c.Height = y + axisSpace
	return c
}

// notSplitShown returns the not-split components some drawn slice has, in
// notSplitOrder.
func notSplitShown(slices []analyze.Slice) []string {
	has := map[string]bool{}
	for _, s := range slices {
		if !drawn(s) {
			continue
		}
		for _, c := range barParts(s) {
			if c.NotSplit != "" && (c.P50 != nil || c.TailMean != nil) {
				has[c.Name] = true
			}
		}
	}
	var out []string
	for _, name := range notSplitOrder {
		if has[name] {
			out = append(out, name)
		}
	}
	return out
}

// barParts are the components a slice's bars draw: a not-split one only
// where it covers at least half of the slice's requests with client E2E
// (the P50 bar) or of its slowest 5% (the tail bar). Below that it is the
// whole E2E of the few requests that lack a tier, and laid end to end with
// the components every other request has it would read as time they all
// spend; the tables show it with its n whatever its share.
func barParts(s analyze.Slice) []analyze.Component {
	out := make([]analyze.Component, len(s.E2E))
	for i, c := range s.E2E {
		if c.NotSplit != "" {
			if 2*c.N < s.ClientE2E.N {
				c.P50 = nil
			}
			if 2*c.TailN < s.E2ETailN {
				c.TailMean = nil
			}
		}
		out[i] = c
	}
	return out
}

func positiveSum(cs []analyze.Component, tail bool) float64 {
	sum := 0.0
	for _, p := range cs {
		if v := value(p, tail); v != nil && *v > 0 {
			sum += *v
		}
	}
	return sum
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

// miniBar is the attribution of one summary-table row: the P50 bar and
// the slowest-5% bar, on the scale shared by every row.
type miniBar struct {
	Width, Height int
	P50, Tail     []segment
}

const (
	miniWidth   = 170
	miniCaption = 22
	miniBarH    = 8
)

func newMiniBars(slices []analyze.Slice) []miniBar {
	max := 0.0
	for _, s := range slices {
		parts := barParts(s)
		max = math.Max(max, math.Max(positiveSum(parts, false), positiveSum(parts, true)))
	}
	if max == 0 {
		max = 1
	}
	px := float64(miniWidth - miniCaption - 4)
	out := make([]miniBar, len(slices))
	for i, s := range slices {
		m := miniBar{Width: miniWidth, Height: 2*miniBarH + 6}
		for _, tail := range []bool{false, true} {
			y, what := 2, "P50"
			if tail {
				y, what = miniBarH+4, fmt.Sprintf("mean over the slowest 5%% (n=%d)", s.E2ETailN)
			}
			pos := 0.0
			var segs []segment
			for _, p := range barParts(s) {
				v := value(p, tail)
				if v == nil || *v <= 0 {
					continue
				}
				w := *v / max * px
				segs = append(segs, segment{Y: y, X: f1(miniCaption + pos), W: f1(w), Color: componentColors[p.Name],
					Title: fmt.Sprintf("%s, %s: %s ms", p.Name, what, fmtMs(v))})
				pos += w
			}
			if tail {
				m.Tail = segs
			} else {
				m.P50 = segs
			}
		}
		out[i] = m
	}
	return out
}

// Percentile-curve chart geometry.
const (
	pcWidth  = 540
	pcHeight = 300
	pcLeft   = 64
	pcRight  = 16
	pcTop    = 14
	pcBottom = 44
)

// sliceColors tell the slices apart in the percentile curves: the
// Okabe–Ito colours but black, which draws all requests; from the eighth
// slice on they repeat, dashed (sliceDashes).
var sliceColors = []string{okBlue, okOrange, okBluishGreen, okVermillion, okSkyBlue, okReddishPurple, okYellow}

// sliceDashes are the stroke patterns of each round of sliceColors.
var sliceDashes = []string{"", "6 3", "2 2", "8 3 2 3"}

// curveChart is a percentile curve per slice: P50, P90, P95 and P99 of one
// metric, the percentile on a tail-stretching axis (1/(1−p), log), the
// value on a log axis when the tail spans more than a decade.
type curveChart struct {
	Title         string
	Width, Height int
	Log           bool
	Lines         []curveLine
	XTicks        []tick
	YTicks        []tick
	Left, Right   int
	Top, Bottom   int
	Empty         bool
}

type curveLine struct {
	Label  string
	Color  string
	Dash   string // stroke-dasharray, "" for a solid line
	Width  string
	Points string
	Dots   []dot
}

type dot struct {
	X, Y, Title string
}

func newCurveChart(title, unit string, rows []distRow) curveChart {
	c := curveChart{Title: title, Width: pcWidth, Height: pcHeight, Left: pcLeft, Right: pcWidth - pcRight, Top: pcTop, Bottom: pcHeight - pcBottom}
	ps := []struct {
		name string
		q    float64
		get  func(analyze.Dist) *float64
	}{
		{"P50", .5, func(d analyze.Dist) *float64 { return d.P50 }},
		{"P90", .9, func(d analyze.Dist) *float64 { return d.P90 }},
		{"P95", .95, func(d analyze.Dist) *float64 { return d.P95 }},
		{"P99", .99, func(d analyze.Dist) *float64 { return d.P99 }},
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		for _, p := range ps {
			if v := p.get(r.Dist); v != nil {
				lo, hi = math.Min(lo, *v), math.Max(hi, *v)
			}
		}
	}
	if math.IsInf(lo, 1) {
		c.Empty = true
		return c
	}
	c.Log = lo > 0 && hi/lo > 10
	plotW, plotH := float64(c.Right-c.Left), float64(c.Bottom-c.Top)
	tx := func(q float64) float64 { return math.Log10(1 / (1 - q)) }
	x := func(q float64) float64 { return float64(c.Left) + (tx(q)-tx(.5))/(tx(.99)-tx(.5))*plotW }
	var y func(v float64) float64
	if c.Log {
		a, b := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
		y = func(v float64) float64 { return float64(c.Bottom) - (math.Log10(v)-a)/(b-a)*plotH }
		for e := a; e <= b; e++ {
			for _, m := range []float64{1, 2, 5} {
				v := m * math.Pow(10, e)
				if e == b && m > 1 {
					break
				}
				c.YTicks = append(c.YTicks, tick{X: fmt.Sprint(c.Left - 6), Y: f1(y(v)), Label: fmtTick(v)})
			}
		}
	} else {
		min := math.Min(0, lo)
		sc := newScale(hi-min, plotH, 5)
		base := math.Floor(min/sc.step) * sc.step
		top := base + math.Ceil((hi-base)/sc.step)*sc.step
		if top == base {
			top = base + sc.step
		}
		y = func(v float64) float64 { return float64(c.Bottom) - (v-base)/(top-base)*plotH }
		for v := base; v <= top+sc.step/2; v += sc.step {
			c.YTicks = append(c.YTicks, tick{X: fmt.Sprint(c.Left - 6), Y: f1(y(v)), Label: fmtTick(v)})
		}
	}
	for _, p := range ps {
		c.XTicks = append(c.XTicks, tick{X: f1(x(p.q)), Y: fmt.Sprint(c.Bottom + 16), Label: p.name})
	}
	for i, r := range rows {
		l := curveLine{Label: r.Label, Color: okBlack, Width: "2.5"}
		if i > 0 {
			l.Color, l.Width = sliceColors[(i-1)%len(sliceColors)], "1.5"
			l.Dash = sliceDashes[(i-1)/len(sliceColors)%len(sliceDashes)]
		}
		var pts []string
		for _, p := range ps {
			v := p.get(r.Dist)
			if v == nil {
				continue
			}
			px, py := f1(x(p.q)), f1(y(*v))
			pts = append(pts, px+","+py)
			l.Dots = append(l.Dots, dot{X: px, Y: py, Title: fmt.Sprintf("%s, %s %s: %s %s (n=%d)", r.Label, title, p.name, fmtMs(v), unit, r.Dist.N)})
		}
		l.Points = strings.Join(pts, " ")
		c.Lines = append(c.Lines, l)
	}
	return c
}

// Time series chart geometry (SVG user units).
const (
	tsLabelWidth  = 200
	tsPanelHeight = 60
	tsPanelGap    = 26
	tsTop         = 34
	tsAxisSpace   = 44
)

// tsChart is an inline SVG of the time series: one panel per metric
// (arrivals/s, P95 client E2E, P95 queue, P95 model), one bar per window on
// a shared time axis with ticks; windows with mostly burst requests and
// windows with cold requests are shaded.
type tsChart struct {
	Width, Height int
	Panels        []tsPanel
	Shades        []tsRect
	ColdShades    []tsRect
	XTicks        []tick
	AxisY         int
	AxisTitle     string
	Left, Right   int
	TickX         int // x of the y tick labels (right-aligned)
	Empty         bool
}

type tsPanel struct {
	Label     string
	Max, Zero string // y tick labels, with unit
	Y, TextY  int
	BaseY     int
	MaxY      int
	Bars      []tsRect
	Color     string
}

type tsRect struct {
	X, Y, W, H string
	Title      string
}

func f1(v float64) string { return fmt.Sprintf("%.1f", v) }

// tsTickSteps are the time-axis tick steps the chart picks from, in
// seconds: the smallest giving at most tsMaxTicks ticks; beyond four
// weeks, a whole number of weeks.
var tsTickSteps = []float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200,
	86400, 2 * 86400, 7 * 86400, 14 * 86400, 28 * 86400}

const tsMaxTicks = 8

// timeTick is one tick of a time axis: its instant (Unix seconds) and
// label.
type timeTick struct {
	at    float64
	label string
}

// timeTicks are the ticks of a time axis from first (Unix seconds, UTC)
// over span seconds: at multiples of a step from tsTickSteps, no two
// labels alike. Labels carry the date (month-day) where the span exceeds a
// day, or where a tick's day is not the first's; only the date for steps
// of whole days; seconds only for steps under a minute.
func timeTicks(first, span float64) []timeTick {
	step := tsTickSteps[len(tsTickSteps)-1]
	if n := math.Ceil(span / tsMaxTicks / step); n > 1 {
		step *= n
	}
	for _, s := range tsTickSteps {
		if span/s <= tsMaxTicks {
			step = s
			break
		}
	}
	clock := "15:04"
	if step < 60 {
		clock = "15:04:05"
	}
	day0 := time.Unix(int64(math.Floor(first)), 0).UTC().Format("2006-01-02")
	var ts []timeTick
	for t := math.Ceil(first/step) * step; t <= first+span+1e-9; t += step {
		at := time.Unix(0, int64(math.Round(t*1e9))).UTC()
		layout := clock
		switch {
		case step >= 86400:
			layout = "Jan 2"
		case span > 86400 || at.Format("2006-01-02") != day0:
			layout = "Jan 2 " + clock
		}
		ts = append(ts, timeTick{at: t, label: at.Format(layout)})
	}
	return ts
}

func newTSChart(ws []analyze.TimeWindow) tsChart {
	c := tsChart{Width: chartWidth, Left: tsLabelWidth, Right: chartWidth - 10, TickX: tsLabelWidth - 6}
	if len(ws) == 0 || ws[0].Start == nil {
		c.Empty = true
		return c
	}
	type metric struct {
		label, color string
		get          func(analyze.TimeWindow) (*float64, int64)
		unit         string
		// ci: whether the window's P95 has too few samples (no bar) and
		// its 95% interval; nil for a count.
		ci func(analyze.TimeWindow) (bool, analyze.Interval)
	}
	metrics := []metric{
		{"arrivals/s", okBluishGreen, func(w analyze.TimeWindow) (*float64, int64) { v := w.ArrivalsPerS; return &v, w.Requests }, "/s", nil},
		{"P95 client E2E", okVermillion, func(w analyze.TimeWindow) (*float64, int64) { return w.ClientE2EP95, w.ClientE2EN }, " ms",
			func(w analyze.TimeWindow) (bool, analyze.Interval) { return w.ClientE2ESmall, w.ClientE2ECI }},
		{"P95 queue", componentColors["queue"], func(w analyze.TimeWindow) (*float64, int64) { return w.QueueP95, w.QueueN }, " ms",
			func(w analyze.TimeWindow) (bool, analyze.Interval) { return w.QueueSmall, w.QueueCI }},
		{"P95 model", componentColors["model"], func(w analyze.TimeWindow) (*float64, int64) { return w.ModelP95, w.ModelN }, " ms",
			func(w analyze.TimeWindow) (bool, analyze.Interval) { return w.ModelSmall, w.ModelCI }},
	}
	// shown is the value a window's bar shows: nil without a value or
	// when its P95 is from too few samples; with its interval, if any.
	shown := func(mt metric, w analyze.TimeWindow) (*float64, int64, string) {
		v, n := mt.get(w)
		if mt.ci == nil || v == nil {
			return v, n, ""
		}
		small, iv := mt.ci(w)
		if small {
			return nil, n, ""
		}
		return v, n, intervalOf(iv, v, false)
	}
	plotW := float64(c.Right - tsLabelWidth)
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
			c.ColdShades = append(c.ColdShades, tsRect{X: f1(x(i)), Y: fmt.Sprint(top - 4), W: f1(bw), H: fmt.Sprint(bottom - top + 8),
				Title: fmt.Sprintf("%s UTC: %s", when, plural(w.Cold, "cold request", "cold requests"))})
		}
	}
	for m, mt := range metrics {
		y := tsTop + m*(tsPanelHeight+tsPanelGap)
		p := tsPanel{Label: mt.label, Y: y, TextY: y + 12, BaseY: y + tsPanelHeight, MaxY: y, Color: mt.color}
		max := 0.0
		for _, w := range ws {
			if v, _, _ := shown(mt, w); v != nil && *v > max {
				max = *v
			}
		}
		p.Max = f1(max) + mt.unit
		if max > 0 && max < 1 {
			// A slow rate (0.02/s over weeks) would read "0.0/s".
			p.Max = fmt.Sprintf("%.2g", max) + mt.unit
		}
		p.Zero = "0" + mt.unit
		if max == 0 {
			max = 1
		}
		for i, w := range ws {
			v, n, iv := shown(mt, w)
			if v == nil {
				continue
			}
			if iv != "" {
				iv = ", 95% interval " + iv
			}
			h := *v / max * tsPanelHeight
			if h < 0 {
				h = 0
			}
			p.Bars = append(p.Bars, tsRect{X: f1(x(i) + 0.5), Y: f1(float64(p.BaseY) - h), W: f1(max0(bw-1, 0.5)), H: f1(h),
				Title: fmt.Sprintf("%s UTC, %s: %s%s (n=%d%s)", fmtTime(w.Start), mt.label, fmtMs(v), mt.unit, n, iv)})
		}
		c.Panels = append(c.Panels, p)
	}
	c.AxisY = bottom + 6
	first := ws[0].Start.UTC()
	width := ws[0].WidthS
	span := width * float64(len(ws))
	firstS := float64(first.UnixNano()) / 1e9
	for _, tk := range timeTicks(firstS, span) {
		px := float64(tsLabelWidth) + (tk.at-firstS)/span*plotW
		c.XTicks = append(c.XTicks, tick{X: f1(px), Y: fmt.Sprint(c.AxisY + 16), Label: tk.label})
	}
	c.AxisTitle = fmt.Sprintf("window start, UTC, from %s (windows of %s)", first.Format("2006-01-02"), fmtWidth(width))
	if ws[0].AroundBurst {
		c.AxisTitle += "; only the part of the run around the burst"
	}
	c.Height = c.AxisY + tsAxisSpace
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
