package report

import (
	"bytes"
	"embed"
	"fmt"
	htmltemplate "html/template"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	texttemplate "text/template"
	"time"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/compare"
	"github.com/infertrace/infertrace/internal/textsafe"
)

//go:embed templates/*.tmpl
var templateFS embed.FS

// Formats are the report formats Render and WriteFiles accept, with the
// file each is written to.
var Formats = map[string]string{
	"md":   "report.md",
	"html": "report.html",
	"json": "report.json", // the figures for programs (json.go)
	"csv":  "slices.csv",  // the slice table, one row per slice
}

// FormatNames are the keys of Formats in the order a usage lists them.
var FormatNames = []string{"md", "html", "json", "csv"}

// DefaultFormats is what WriteFiles writes when formats is empty.
var DefaultFormats = []string{"md", "html", "json"}

var (
	mdTemplate = texttemplate.Must(texttemplate.New("report.md.tmpl").
			Funcs(texttemplate.FuncMap(funcs(mdEscape))).
			ParseFS(templateFS, "templates/report.md.tmpl"))
	htmlTemplate = htmltemplate.Must(htmltemplate.New("report.html.tmpl").
			Funcs(htmltemplate.FuncMap(funcs(func(s string) string { return s }))).
			ParseFS(templateFS, "templates/report.html.tmpl"))
)

// Render writes the report for r in format "md", "html", "json" or "csv"
// to w. trend is what changed in the latest period of r's trend
// (compare.Trend; nil without).
func Render(w io.Writer, format string, r *analyze.Result, trend *compare.TrendComparison) error {
	if r == nil {
		return fmt.Errorf("report: no result to render")
	}
	switch format {
	case "json":
		return renderJSON(w, r, trend)
	case "csv":
		return renderCSV(w, r)
	}
	v := newView(r, trend)
	switch format {
	case "md":
		return mdTemplate.Execute(w, v)
	case "html":
		return htmlTemplate.Execute(w, v)
	}
	return fmt.Errorf("report: unknown format %q (want md, html, json or csv)", format)
}

// WriteFiles renders r, with its trend's comparison as Render takes it, in
// each format (DefaultFormats when empty) into dir as report.md,
// report.html, report.json or slices.csv and returns the paths written.
func WriteFiles(dir string, r *analyze.Result, trend *compare.TrendComparison, formats []string) ([]string, error) {
	if len(formats) == 0 {
		formats = DefaultFormats
	}
	var paths []string
	for _, f := range formats {
		name, ok := Formats[f]
		if !ok {
			return paths, fmt.Errorf("report: unknown format %q (want md, html, json or csv)", f)
		}
		var buf bytes.Buffer
		if err := Render(&buf, f, r, trend); err != nil {
			return paths, err
		}
		p := filepath.Join(dir, name)
		// Under a temporary name first: a report is complete or absent.
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

// funcs are the template helpers; esc escapes log-derived text for the
// output format (Markdown needs it; html/template escapes by itself).
func funcs(esc func(string) string) map[string]any {
	return map[string]any{
		"esc":         esc,
		"verdictText": VerdictText,
		"ms":          fmtMs,
		"tps":         fmtTPS,
		"sec":         fmtSec,
		"window":      analyze.FormatWindow,
		"join":        strings.Join,
		"dash":        dash,
		"time":        fmtTime,
		"int":         fmtInt,
		"mul2":        func(n int64) int64 { return 2 * n },
		"pct":         fmtPct,
		"base":        shortPath,
		// The contract and quality (contract.go).
		"verdict":         verdictText,
		"goodput":         goodputText,
		"causes":          causesText,
		"passShare":       passShare,
		"usd":             usd,
		"kName":           constraintName,
		"kTarget":         constraintTarget,
		"kShown":          constraintShown,
		"kInterval":       constraintInterval,
		"kChange":         changeValue,
		"kChangeInterval": changeInterval,
		"kAllowance":      allowanceText,
		"inc":             func(i int) int { return i + 1 },
		"add":             func(a, b int) int { return a + b },
		"dec":             func(a int) int { return a - 1 },
		// Percentiles with their intervals (stats.go).
		"pq":      statFuncs["pq"],
		"ci":      statFuncs["ci"],
		"ciTitle": statFuncs["ciTitle"],
		"pqv":     statFuncs["pqv"],
		"civ":     statFuncs["civ"],
	}
}

// shortPath shortens "dir/sub/file.jsonl:12" to "file.jsonl:12"; the HTML
// report puts the full value in a title attribute.
func shortPath(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 && i < len(s)-1 {
		return "…/" + s[i+1:]
	}
	return s
}

// fmtPct prints n as a percentage of total with one decimal, "–" for no
// total.
func fmtPct(n, total int64) string {
	if total <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(total))
}

// fmtWidth prints a window width in seconds as "10 s", "5 min" or "1 h".
func fmtWidth(s float64) string {
	switch {
	case s >= 3600 && int64(s)%3600 == 0:
		return fmt.Sprintf("%d h", int64(s)/3600)
	case s >= 60 && int64(s)%60 == 0:
		return fmt.Sprintf("%d min", int64(s)/60)
	}
	return fmt.Sprintf("%g s", s)
}

// dash shows an empty string as "–".
func dash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// fmtTime prints a UTC time with milliseconds; nil as "–".
func fmtTime(t *time.Time) string {
	if t == nil {
		return "–"
	}
	return t.UTC().Format("2006-01-02 15:04:05.000")
}

// fmtInt prints an optional count; nil as "–".
func fmtInt(p *int64) string {
	if p == nil {
		return "–"
	}
	return fmt.Sprint(*p)
}

// fmtMs prints milliseconds with one decimal; NULL as "–".
func fmtMs(p *float64) string {
	if p == nil {
		return "–"
	}
	return fmt.Sprintf("%.1f", *p)
}

// fmtTPS prints tokens per second with one decimal; NULL as "–".
func fmtTPS(p *float64) string { return fmtMs(p) }

// fmtSec prints seconds with three decimals; NULL as "–".
func fmtSec(p *float64) string {
	if p == nil {
		return "–"
	}
	return fmt.Sprintf("%.3f", *p)
}

// mdEscape makes log-derived text inert in Markdown: control characters
// are shown as escapes (textsafe.Escape; analyze has already cut and
// escaped what it read, this is for any other text) and characters with
// Markdown or HTML meaning, table pipes included, are backslash-escaped.
func mdEscape(s string) string {
	var b strings.Builder
	for _, r := range textsafe.Escape(s) {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '<', '>', '|', '#', '!', '&', '~', '{', '}':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// view is what the templates see: the Result plus derived layout.
type view struct {
	*analyze.Result
	Generated   string // not printed in goldens; empty unless set
	DistTables  []distTable
	Attribution []attribution
	Chart       chart
	PhaseRows   []phaseRow // per metric, the three phases side by side
	// SlowNotSplit: some slowest request has time a missing tier leaves
	// not split, shown in a column of its own.
	SlowNotSplit bool
	TSChart      tsChart
	TSWidth      string // time series window width, e.g. "10 s"
	TSAround     string // " around the burst" when the series is not the whole span

	Headlines []headlineGroup // the first screen, per question
	Summary   []summaryRow    // one row per slice with client E2E, worst first
	Omitted   int             // slices left out of the summary: no client E2E (n = 0)
	// FailureRows are the requests left out of the percentiles, by
	// outcome (Result.Failures); FailureTotal all requests they are a
	// share of.
	FailureRows  []failureRow
	FailureTotal int64
	Curves       []curveChart // percentile curves of client E2E and TTFT
	Findings     []string     // the findings about latency (Sentences.Findings less DataQuality)
	DataQuality  []string     // the findings about the data
	Rejects      []rejectRow

	ContractView *contractView // nil without --contract

	Glossary []analyze.GlossaryEntry // infertrace's metrics beside other tools'
	// ProtocolRows are the protocol, each Method naming the percentile
	// rule (PercentileRule, stated once above the table) instead of
	// repeating it.
	ProtocolRows   []analyze.ProtocolEntry
	PercentileRule string
	GlossaryNotes  []string   // where their definitions differ
	TrendView      *trendView // nil without --period
}

// headlineGroup is the headlines answering one question.
type headlineGroup struct {
	Topic string
	Lines []string
}

// summaryRow is one slice in the summary table.
type summaryRow struct {
	Slice    analyze.Slice
	Bar      miniBar
	Tail     string // the component the slowest 5% spend the most time in, e.g. "model 5338.3 of 9628.1 ms"
	TailName string
}

// failureRow is one outcome of the Failed requests table.
type failureRow struct {
	analyze.Failure
	Label string // the outcome for a reader
	Share string // of all requests, e.g. "2.8%"
}

// rejectRow is a reject group with its examples shown without the file,
// which the row names once.
type rejectRow struct {
	analyze.RejectGroup
	Shown []string
}

// phaseRow is one metric of one phase in the Phases table.
type phaseRow struct {
	Metric      string // set on the first phase of each metric only
	Unit        string
	Phase       string
	Dist        analyze.Dist
	WindowFirst *time.Time
	WindowLast  *time.Time
	First       bool // first row of a metric group
}

type distTable struct {
	Title string
	Unit  string
	Note  string
	Rows  []distRow
	Empty int // slices without samples, left out
}

type distRow struct {
	Label       string
	Dist        analyze.Dist
	WindowFirst *time.Time
	WindowLast  *time.Time
}

// attribution is one slice's component table.
type attribution struct {
	Slice    analyze.Slice
	Findings []string // about this slice alone
	E2E      []attrRow
	TTFT     []attrRow
}

type attrRow struct {
	Name     string
	Dist     analyze.Dist // n, P50 and P95 (with its interval) are shown
	TailN    int64
	TailMean *float64
	Total    bool   // a total (client/server E2E, client TTFT), not a component
	Part     bool   // part of the component above it (the split of server time)
	Formats  string // server formats behind the figure, comma-separated
}

func componentRow(c analyze.Component, part bool) attrRow {
	name := c.Name
	if part {
		name = "of which " + name
	}
	d := analyze.Dist{N: c.N, P50: c.P50, P95: c.P95, P95CI: c.P95CI, Small: [4]bool{c.Small[0], true, c.Small[1], true}}
	return attrRow{Name: name, Dist: d, TailN: c.TailN, TailMean: c.TailMean,
		Part: part, Formats: strings.Join(c.Formats, ", ")}
}

// splitRows returns the rows of the split of server time that belong under
// component name (server overhead under application, prefill and decode
// under model), leaving out parts no request has.
func splitRows(split []analyze.Component, name string) []attrRow {
	parent := map[string]string{"server overhead": "application", "prefill": "model", "decode": "model"}
	var out []attrRow
	for _, c := range split {
		if parent[c.Name] == name && c.N > 0 {
			out = append(out, componentRow(c, true))
		}
	}
	return out
}

func newView(r *analyze.Result, trend *compare.TrendComparison) *view {
	v := &view{Result: r, Glossary: analyze.Glossary, GlossaryNotes: analyze.GlossaryNotes, PercentileRule: analyze.PercentileRule}
	for _, e := range r.Protocol {
		e.Method = strings.Replace(e.Method, "; "+analyze.PercentileRule, "; intervals and “n too small” by the percentile rule", 1)
		v.ProtocolRows = append(v.ProtocolRows, e)
	}
	metrics := []struct {
		title, unit, note string
		get               func(analyze.Slice) analyze.Dist
	}{
		{"Client E2E", "ms", "What the user waited, on the client clock; successful requests with a client record", func(s analyze.Slice) analyze.Dist { return s.ClientE2E }},
		{"Server E2E (inference only)", "ms", "Arrival to end on the inference server", func(s analyze.Slice) analyze.Dist { return s.ServerE2E }},
		{"Gateway E2E", "ms", "Received to fully sent at the gateway", func(s analyze.Slice) analyze.Dist { return s.GatewayE2E }},
		{"Client TTFT", "ms", "Streamed requests only", func(s analyze.Slice) analyze.Dist { return s.ClientTTFT }},
		{"Server TTFT", "ms", "Streamed requests only", func(s analyze.Slice) analyze.Dist { return s.ServerTTFT }},
		{"Gateway TTFT (logged)", "ms", "The time to first token the gateway measured itself (Envoy AI Gateway, Kong); streamed requests only; another view of TTFT, not part of the attribution", func(s analyze.Slice) analyze.Dist { return s.GatewayTTFT }},
		{"Gateway upstream TTFB", "ms", "Gateway upstream start to the first byte of the upstream response, on the gateway clock; streamed requests only; another view of TTFT, not part of the attribution", func(s analyze.Slice) analyze.Dist { return s.GatewayUpstreamTTFB }},
		{"Per-user tokens/s", "tokens/s", "Output tokens after the first over first token to end (1 / mean inter-token latency), streamed requests; one user's rate, not service-wide", func(s analyze.Slice) analyze.Dist { return s.TPSUser }},
	}
	for _, m := range metrics {
		if strings.HasPrefix(m.title, "Gateway ") && len(r.Slices) > 0 && m.get(r.Slices[0]).N == 0 {
			continue // the gateway's TTFT views only where a gateway logged them
		}
		t := distTable{Title: m.title, Unit: m.unit, Note: m.note}
		for _, s := range r.Slices {
			if m.get(s).N == 0 {
				t.Empty++ // no samples: not listed
				continue
			}
			t.Rows = append(t.Rows, distRow{Label: s.Label, Dist: m.get(s), WindowFirst: s.WindowFirst, WindowLast: s.WindowLast})
		}
		switch m.title {
		case "Client E2E":
			v.Curves = append(v.Curves, newCurveChart("client E2E", m.unit, t.Rows))
		case "Client TTFT":
			v.Curves = append(v.Curves, newCurveChart("client TTFT", m.unit, t.Rows))
		}
		v.DistTables = append(v.DistTables, t)
	}
	said := Say(r, trend)
	for i, s := range r.Slices {
		a := attribution{Slice: s, Findings: said.Slices[i]}
		a.E2E = append(a.E2E, attrRow{Name: "client E2E", Dist: s.ClientE2E, TailN: s.E2ETailN, TailMean: s.E2ETailClientE2E, Total: true})
		for _, c := range s.E2E {
			a.E2E = append(a.E2E, componentRow(c, false))
			a.E2E = append(a.E2E, splitRows(s.ServerSplit, c.Name)...)
		}
		a.E2E = append(a.E2E, attrRow{Name: "server E2E (inference only)", Dist: s.ServerE2E, TailN: s.E2ETailServerN, TailMean: s.E2ETailServerE2E, Total: true})
		a.TTFT = append(a.TTFT, attrRow{Name: "client TTFT", Dist: s.ClientTTFT, TailN: s.TTFTTailN, TailMean: s.TTFTTailClientTTFT, Total: true})
		var ttftOverhead []analyze.Component
		for _, c := range s.TTFTSplit {
			if c.Name == "server overhead" {
				ttftOverhead = append(ttftOverhead, c)
			}
		}
		for _, c := range s.TTFT {
			a.TTFT = append(a.TTFT, componentRow(c, false))
			a.TTFT = append(a.TTFT, splitRows(ttftOverhead, c.Name)...)
		}
		v.Attribution = append(v.Attribution, a)
	}
	v.Chart = newChart(worstFirst(r.Slices))
	for _, s := range r.Slowest {
		v.SlowNotSplit = v.SlowNotSplit || s.UnsplitMs != nil
	}
	for _, m := range []struct {
		name, unit string
		get        func(analyze.Phase) analyze.Dist
	}{
		{"Client E2E", "ms", func(p analyze.Phase) analyze.Dist { return p.ClientE2E }},
		{"Client TTFT, streamed", "ms", func(p analyze.Phase) analyze.Dist { return p.ClientTTFT }},
		{"Queue", "ms", func(p analyze.Phase) analyze.Dist { return p.Queue }},
		{"Model", "ms", func(p analyze.Phase) analyze.Dist { return p.Model }},
		{"Model per output token", "ms", func(p analyze.Phase) analyze.Dist { return p.ModelPerToken }},
		{"Network", "ms", func(p analyze.Phase) analyze.Dist { return p.Network }},
		{"Application", "ms", func(p analyze.Phase) analyze.Dist { return p.Application }},
		{"Upstream (not split: application + queue + model)", "ms", func(p analyze.Phase) analyze.Dist { return p.Upstream }},
		{"Network + application (not split)", "ms", func(p analyze.Phase) analyze.Dist { return p.NetworkApplication }},
		{"All (not split: client E2E without gateway and server)", "ms", func(p analyze.Phase) analyze.Dist { return p.Unsplit }},
	} {
		if strings.Contains(m.name, "not split") && !anyPhase(r.Phases, m.get) {
			// Only where a tier is missing: with every tier none has it.
			continue
		}
		for i, p := range r.Phases {
			v.PhaseRows = append(v.PhaseRows, phaseRow{Metric: m.name, Unit: m.unit, Phase: p.Name, Dist: m.get(p),
				WindowFirst: p.WindowFirst, WindowLast: p.WindowLast, First: i == 0})
		}
	}
	v.ContractView = newContractView(r)
	v.TrendView = newTrendView(r.Trend)
	v.TSChart = newTSChart(r.TimeSeries)
	v.Headlines = groupHeadlines(said.Headlines)
	v.Summary, v.Omitted = summaryRows(r.Slices)
	if len(r.Slices) > 0 && r.Slices[0].All {
		v.FailureTotal = r.Slices[0].Requests
	}
	for _, f := range r.Failures {
		v.FailureRows = append(v.FailureRows, failureRow{Failure: f, Label: OutcomeLabel(f.Outcome), Share: fmtPct(f.Requests, v.FailureTotal)})
	}
	data := map[string]bool{}
	v.DataQuality = said.DataQuality
	for _, f := range said.DataQuality {
		data[f] = true
	}
	for _, f := range said.Findings {
		if !data[f] {
			v.Findings = append(v.Findings, f)
		}
	}
	for _, g := range r.Rejects {
		row := rejectRow{RejectGroup: g}
		for _, e := range g.Examples {
			if rest, ok := strings.CutPrefix(e, g.File+":"); ok && g.File != "" {
				e = "line " + rest
			}
			row.Shown = append(row.Shown, e)
		}
		v.Rejects = append(v.Rejects, row)
	}
	if len(r.TimeSeries) > 0 {
		v.TSWidth = fmtWidth(r.TimeSeries[0].WidthS)
		if r.TimeSeries[0].AroundBurst {
			v.TSAround = " around the burst (the whole run in windows this narrow would be more than 40)"
		}
	}
	return v
}

// anyPhase reports whether some phase has samples of the metric get.
func anyPhase(ps []analyze.Phase, get func(analyze.Phase) analyze.Dist) bool {
	for _, p := range ps {
		if get(p).N > 0 {
			return true
		}
	}
	return false
}

// groupHeadlines keeps the headlines' order, one group per question.
func groupHeadlines(hs []Headline) []headlineGroup {
	var out []headlineGroup
	for _, h := range hs {
		if len(out) == 0 || out[len(out)-1].Topic != h.Topic {
			out = append(out, headlineGroup{Topic: h.Topic})
		}
		out[len(out)-1].Lines = append(out[len(out)-1].Lines, h.Text)
	}
	return out
}

// worstFirst returns all requests first, then the slices with client E2E
// samples by P95 client E2E, slowest first; slices without (n = 0) are
// left out.
func worstFirst(slices []analyze.Slice) []analyze.Slice {
	var out []analyze.Slice
	for _, s := range slices {
		if s.All && drawn(s) {
			out = append(out, s)
		}
	}
	head := len(out)
	for _, s := range slices {
		if !s.All && drawn(s) {
			out = append(out, s)
		}
	}
	rest := out[head:]
	p95 := func(s analyze.Slice) float64 {
		if s.ClientE2E.P95 == nil {
			return -1e300
		}
		return *s.ClientE2E.P95
	}
	sort.SliceStable(rest, func(i, j int) bool { return p95(rest[i]) > p95(rest[j]) })
	return out
}

// summaryRows builds the summary table: a row per slice with client E2E
// samples, worst first, and how many slices were left out.
func summaryRows(slices []analyze.Slice) ([]summaryRow, int) {
	shown := worstFirst(slices)
	bars := newMiniBars(shown)
	rows := make([]summaryRow, len(shown))
	for i, s := range shown {
		rows[i] = summaryRow{Slice: s, Bar: bars[i], Tail: "–"}
		best, found := analyze.Dominant(s.E2E)
		switch {
		case s.ClientE2E.Small[2]:
			// The slowest 5% are those above a P95 the sample cannot
			// support: not singled out, as in the findings.
			rows[i].Tail = tooSmall
		case found && s.E2ETailN > 0:
			rows[i].TailName = best.Name
			rows[i].Tail = fmt.Sprintf("%s %s of %s", best.Name, fmtMs(best.TailMean), fmtMs(s.E2ETailClientE2E))
		}
	}
	return rows, len(slices) - len(shown)
}
