package report

import (
	"fmt"
	htmltemplate "html/template"
	"io"
	"math"
	"strings"
	texttemplate "text/template"

	"github.com/infertrace/infertrace/explain"
)

var (
	explainMD = texttemplate.Must(texttemplate.New("explain.md.tmpl").
			Funcs(texttemplate.FuncMap(funcs(mdEscape))).
			Funcs(texttemplate.FuncMap{"answer": func(r explain.Request) string { return explainAnswer(r, mdEscape) }}).
			ParseFS(templateFS, "templates/explain.md.tmpl"))
	explainHTML = htmltemplate.Must(htmltemplate.New("explain.html.tmpl").
			Funcs(htmltemplate.FuncMap(funcs(func(s string) string { return s }))).
			Funcs(htmltemplate.FuncMap{"answer": func(r explain.Request) string { return explainAnswer(r, func(s string) string { return s }) }}).
			ParseFS(templateFS, "templates/explain.html.tmpl"))
)

type explainView struct {
	*explain.Result
	Requests []explainRequestView
}

type explainRequestView struct {
	explain.Request
	Status    string
	Rows      []explainCompRow
	Waterfall waterfall
	Text      []string // the waterfall as lines, for Markdown
	ClientOff string
	ServerOff string
	Unplaced  bool
	Hot       []string // the figures above the slice's P95
}

type explainCompRow struct {
	Name, Value, P50, P95 string
	N                     int64
	AboveP95              bool
}

var explainNames = map[string]string{
	"client_e2e": "client E2E", "network": "network", "application": "application", "queue": "queue",
	"model": "model", "prefill": "  prefill", "decode": "  decode", "client_ttft": "client TTFT",
	"ttft_network": "TTFT network", "ttft_application": "TTFT application", "ttft_queue": "TTFT queue", "ttft_model": "TTFT model",
}

// waterfall is the SVG drawing: one row per box on one time axis (ms after
// the gateway's start, on its clock).
type waterfall struct {
	Width, Height, Left, AxisY int
	Ticks                      []tick
	Boxes                      []wfBox
}

type wfBox struct {
	Label, Title         string
	Y, TextY             int
	X, W                 string
	Color                string
	Marker               bool   // a point in time (first token), not a span
	Whole                bool   // a span of several components, drawn pale
	WhiskerX1, WhiskerX2 string // the placement's uncertainty, when > 0
	Whisker              bool
}

// spanColor colours a waterfall box by the component it is, as every
// chart of the report does (componentColors): the gateway's own work before
// and after the upstream is application, the server's queue queue, and its
// prefill, decode or model time model. The spans that hold several
// components (the client's request → response, the gateway's upstream) and
// the first token's instant are black, drawn pale as wholes.
func spanColor(s explain.Span) (color string, whole bool) {
	switch {
	case s.Tier == "gateway" && s.Name != "upstream":
		return componentColors["application"], false
	case s.Tier == "server" && s.Name == "queue":
		return componentColors["queue"], false
	case s.Tier == "server":
		return componentColors["model"], false
	}
	return okBlack, s.StartMs == nil || s.EndMs == nil || *s.StartMs != *s.EndMs
}

func newWaterfall(r explain.Request) (waterfall, bool) {
	const left, px, rowH = 230, 640.0, 22
	lo, hi := 0.0, 0.0
	placed := false
	for _, s := range r.Spans {
		for _, v := range []*float64{s.StartMs, s.EndMs} {
			if v != nil {
				lo, hi = math.Min(lo, *v), math.Max(hi, *v)
				placed = true
			}
		}
	}
	if !placed {
		return waterfall{}, false
	}
	span := hi - lo
	if span <= 0 {
		span = 1
	}
	sc := newScale(span, px, 6)
	x := func(v float64) float64 { return left + sc.at(v-lo) }
	w := waterfall{Left: left, Width: left + int(px) + 20}
	y := 6
	for _, s := range r.Spans {
		if s.StartMs == nil || s.EndMs == nil {
			continue
		}
		a, b := *s.StartMs, *s.EndMs
		color, whole := spanColor(s)
		box := wfBox{Label: s.Tier + ": " + s.Name, Y: y, TextY: y + 13, Color: color, Whole: whole,
			X: f1(x(a)), W: f1(math.Max(x(b)-x(a), 1.5)), Marker: a == b,
			Title: fmt.Sprintf("%s %s: %.1f → %.1f ms (%.1f ms)", s.Tier, s.Name, a, b, b-a)}
		if s.UncertaintyMs != nil && *s.UncertaintyMs > 0 {
			box.Whisker = true
			box.WhiskerX1, box.WhiskerX2 = f1(x(a-*s.UncertaintyMs)), f1(x(a+*s.UncertaintyMs))
			box.Title += fmt.Sprintf(", placed ± %.1f ms", *s.UncertaintyMs)
		}
		w.Boxes = append(w.Boxes, box)
		y += rowH
	}
	w.AxisY = y + 4
	start := math.Floor(lo/sc.step) * sc.step
	for v := start; v <= hi+sc.step/2; v += sc.step {
		if x(v) >= left-0.5 && x(v) <= float64(w.Width) {
			w.Ticks = append(w.Ticks, tick{X: f1(x(v)), Label: fmtTick(v)})
		}
	}
	w.Height = w.AxisY + 40
	return w, true
}

// tgiByTime is said of the server's offset when its record was matched
// by time: the offsets rest on records joined by ID only.
const tgiByTime = "none: its record was matched to the gateway's by time (TGI and Ollama log no request ID), and a record matched by time gets no clock offset, so its boxes are not drawn; its components still come from its own durations"

func fmtOffset(o explain.Offset) string {
	if o.Ms == nil {
		return "unknown (no bounds in that minute): its boxes are not drawn"
	}
	return fmt.Sprintf("%+.1f ms ± %.1f ms (bounds from %d requests)", *o.Ms, deref(o.UncertaintyMs), o.Bounds)
}

func newExplainView(ex *explain.Result) *explainView {
	v := &explainView{Result: ex}
	for _, r := range ex.Requests {
		rv := explainRequestView{Request: r, Status: "–", ClientOff: fmtOffset(r.ClientOffset), ServerOff: fmtOffset(r.ServerOffset)}
		if r.ServerJoin == "time" {
			rv.ServerOff = tgiByTime
		}
		if r.Status != nil {
			rv.Status = fmt.Sprint(*r.Status)
		}
		for _, c := range r.Components {
			row := explainCompRow{Name: explainNames[c.Metric], Value: fmtMs(c.Value), P50: shownValue(c.SliceP50, c.SliceSmall[0]), P95: shownValue(c.SliceP95, c.SliceSmall[1]), N: c.SliceN}
			if row.Name == "" {
				row.Name = c.Metric
			}
			// explain's noise rule (explain.AboveP95).
			row.AboveP95 = c.AboveP95
			if row.AboveP95 {
				rv.Hot = append(rv.Hot, strings.TrimSpace(row.Name))
			}
			rv.Rows = append(rv.Rows, row)
		}
		var ok bool
		rv.Waterfall, ok = newWaterfall(r)
		rv.Unplaced = !ok
		for _, s := range r.Spans {
			if s.StartMs == nil || s.EndMs == nil {
				continue
			}
			line := fmt.Sprintf("%-8s %-34s %9.1f → %9.1f ms  (%.1f ms)", s.Tier, s.Name, *s.StartMs, *s.EndMs, *s.EndMs-*s.StartMs)
			if s.UncertaintyMs != nil && *s.UncertaintyMs > 0 {
				line += fmt.Sprintf("  placed ± %.1f ms", *s.UncertaintyMs)
			}
			rv.Text = append(rv.Text, line)
		}
		v.Requests = append(v.Requests, rv)
	}
	return v
}

// RenderExplain writes the explanation ex in format "md", "html" or
// "json" to w.
func RenderExplain(w io.Writer, format string, ex *explain.Result) error {
	switch format {
	case "md":
		return explainMD.Execute(w, newExplainView(ex))
	case "html":
		return explainHTML.Execute(w, newExplainView(ex))
	case "json":
		return encodeJSON(w, newJSONExplain(ex))
	}
	return fmt.Errorf("report: unknown format %q (want md, html or json)", format)
}

// WriteExplain writes ex as dir/explain.md, dir/explain.html and
// dir/explain.json.
func WriteExplain(dir string, ex *explain.Result) ([]string, error) {
	return writeEach(dir, "explain", func(w io.Writer, f string) error { return RenderExplain(w, f, ex) })
}
