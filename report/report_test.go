package report

import (
	"bytes"
	"context"
	"flag"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/analyze/analyzetest"
)

var update = flag.Bool("update", false, "rewrite the golden reports in testdata/")

// standardResult runs the real pipeline on the shared eight-request
// fixture (once per test binary; each caller gets its own copy).
func standardResult(t *testing.T) *analyze.Result {
	t.Helper()
	return sharedResult(t, "standard", func() (*analyze.Result, error) {
		return analyze.Summarize(context.Background(), standardDir(t), analyze.SummaryOptions{})
	})
}

// standardDir is a copy of the shared eight-request fixture, analyzed.
func standardDir(t *testing.T) string {
	t.Helper()
	return sharedDir(t, "standard", func(dir string) error { return analyzeFixture(dir, analyzetest.Standard()) })
}

// analyzeFixture writes f into dir and analyzes it.
func analyzeFixture(dir string, f analyzetest.Fixture) error {
	ctx := context.Background()
	if err := analyzetest.Write(ctx, dir, f, analyzetest.DefaultOffsets); err != nil {
		return err
	}
	_, err := analyze.Run(ctx, dir)
	return err
}

func TestGolden(t *testing.T) {
	t.Parallel()
	res := standardResult(t)
	for _, format := range []string{"md", "html"} {
		var buf bytes.Buffer
		if err := Render(&buf, format, res, nil); err != nil {
			t.Fatalf("Render %s: %v", format, err)
		}
		golden := filepath.Join("testdata", "standard."+format)
		if *update {
			if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test ./report -update to create it)", err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			got := filepath.Join(t.TempDir(), "standard."+format)
			os.WriteFile(got, buf.Bytes(), 0o644)
			t.Errorf("%s report differs from %s (got written to %s; run go test ./report -update if the change is intended)", format, golden, got)
		}
	}
}

// Spot checks on the rendered numbers, independent of the goldens.
func TestRenderedFigures(t *testing.T) {
	t.Parallel()
	res := standardResult(t)
	var md bytes.Buffer
	if err := Render(&md, "md", res, nil); err != nil {
		t.Fatal(err)
	}
	s := md.String()
	for _, want := range []string{
		// all requests, client E2E: n 7, P50 1000; P90, P95 and P99 need
		// 10, 20 and 100 samples, so they are "n too small", without an
		// interval.
		// The slice's window is not repeated in each latency table: it
		// is stated once, in the service-wide table below.
		"| all requests | 7 | 1000.0 | n too small | n too small |  | n too small |  |\n",
		// 705 output tokens over 8 s.
		"| all requests | 8 | 705 | 8.000 | 88.1 | 2026-03-01 12:00:00.000 – 12:00:08.000 UTC |",
		// queue 5 10 10 50 50 100 300: P50 50; its P95 (100 + 0.7*200 =
		// 240) is from 7 < 20 samples, so "n too small", without an
		// interval; the slowest 5% of all requests is r2 alone: queue 300 ms.
		"| queue | 7 | 50.0 | n too small |  | 300.0 (n=1) |",
		"| **server E2E (inference only)** | 7 | 765.0 | n too small |  | 2530.0 (n=1) |",
		// The file is named once per group, each example by its line.
		"| client | logs/client.jsonl | syntax | 1 | line 7: unexpected end of JSON input |",
		"| client end before start | 1 | r8 |",
		// Phases: too few arrivals per host to call a burst and too few
		// requests per model to call a replica cold, so all are steady.
		"| Client E2E (ms) | cold | 0 | – | – | – |  | – |  | – |",
		"| Client E2E (ms) | steady | 7 | 1000.0 | n too small | n too small |  | n too small |  | 2026-03-01 12:00:00.000 – 12:00:08.000 UTC |",
		// Replicas in order of first start. a-0 serves r1 (1210 ms / 100
		// tokens) and r5 (790 / 80, starting 12:00:06.5 on the gateway clock
		// as it has no client record); queue 50 and 100; no overlap. Its
		// P95s from 2 requests are too small.
		"| a-0 | m1 | 2 | 2026-03-01 12:00:00.000 | 2026-03-01 12:00:06.500 | 0 | 11.0 | n too small |  | 2 | n too small |  | 2 | 1 |",
		// Time series: 8 s span, 1 s windows; r8 alone in the last: its
		// P95s (client E2E -100, queue 10, model 50 ms) are from 1 sample.
		"Windows of 1 s by request start",
		"| 2026-03-01 12:00:08.000 | 1 | 1.0 | n too small |  | 1 | n too small |  | 1 | n too small |  | 1 | 0 | 0 |",
		"| r2 | m1 | chat | 2026-03-01 12:00:01.000 | 2600.0 | 27.0 | 43.0 | 300.0 | 2230.0 | – | 2530.0 | – | logs/client.jsonl:2 | logs/gateway.log:2 | logs/server.jsonl:2 |",
		// r4 has no server record: its gateway E2E (3990 - 3010 = 980 ms)
		// is upstream time not split, beside its network (1000 - 980).
		"| r4 | m1 | chat | 2026-03-01 12:00:03.000 | 1000.0 | 20.0 | – | – | – | 980.0 (application + queue + model) | – | – | logs/client.jsonl:4 | logs/gateway.log:4 | – |",
		"| upstream (not split) | 1 | n too small | n too small |  | – (n=0) | – |",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("Markdown report lacks %q", want)
		}
	}
	// r5 has no client: its slice has no client E2E (n = 0), so it is not
	// listed in the client E2E table nor in the summary, and both say so.
	if strings.Contains(s, "| model=m1, use\\_case=(none) | 0 |") {
		t.Error("a slice without client E2E (n = 0) is listed")
	}
	for _, want := range []string{
		"What the user waited, on the client clock; successful requests with a client record. 1 slice(s) without samples (n = 0) left out.",
		"(1 slice(s) without client E2E, n = 0, left out)",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("Markdown report lacks %q", want)
		}
	}
	for _, format := range []string{"md", "html"} {
		var buf bytes.Buffer
		if err := Render(&buf, format, res, nil); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(buf.String(), "SECRET") {
			t.Errorf("%s report shows raw rejected text", format)
		}
	}
}

// The HTML report must not fetch anything or run scripts.
func TestHTMLSelfContained(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := Render(&buf, "html", standardResult(t), nil); err != nil {
		t.Fatal(err)
	}
	h := strings.ToLower(buf.String())
	for _, bad := range []string{"<script", "http://", "https://", "src=", "@import", "url(", "<link"} {
		if strings.Contains(h, bad) {
			t.Errorf("HTML report contains %q", bad)
		}
	}
	// Links only to anchors of the page itself (the table of contents).
	for _, m := range regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(h, -1) {
		if !strings.HasPrefix(m[1], "#") || !strings.Contains(h, `id="`+m[1][1:]+`"`) {
			t.Errorf("link %q is not to an anchor of the report", m[1])
		}
	}
	// Attribution, two percentile curves, time series, and a bar per row
	// of the summary table (the curves' legend draws its line samples in
	// SVGs hidden from screen readers, one per curve of the first chart).
	if n, rows := strings.Count(h, `<svg role="img"`), strings.Count(h, `aria-label="attribution bars"`); n != 4+rows || rows == 0 || strings.Count(h, "<svg") != n+strings.Count(h, `<svg class="line" width="26" height="10" aria-hidden="true">`) {
		t.Errorf("HTML report has %d inline SVG charts and %d summary bars, want 4 charts and a bar per summary row", n, rows)
	}
	// One bar per component per drawn row: 4 slices with data x 2 bars x 4
	// components, minus the components without values (r4/r5-only slices).
	if n := len(regexp.MustCompile(`<rect x="[0-9.]+" y="[0-9]+" width="[0-9.]+" height="16"`).FindAllString(h, -1)); n == 0 {
		t.Error("the attribution chart has no bars")
	}
}

const (
	evil    = `<script>alert(1)</script>`
	evilImg = `<img src=x onerror=alert(2)>`
)

// evilResult is a result whose every log-derived string is markup.
func evilResult() *analyze.Result {
	p := func(v float64) *float64 { return &v }
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	label := "model=" + evil
	return &analyze.Result{
		By:       []string{"model"},
		Inputs:   analyze.Inputs{Files: []analyze.InputFile{{Tier: "client", Format: "native", Path: "logs/" + evil + ".jsonl", Rows: 1}}},
		Coverage: analyze.Coverage{Requests: 1, Client: 1},
		Rejects: []analyze.RejectGroup{{Tier: "client", File: evil, Kind: "syntax", Lines: 1,
			Examples: []string{evil + ":3: " + evil}}},
		RejectsTotal: 1,
		Anomalous:    1,
		Anomalies:    []analyze.ReasonCount{{Reason: evil, Requests: 1, Examples: []string{evil}}},
		Slowest: []analyze.SlowRequest{{RequestID: evil, Model: evil, UseCase: evil, Start: &at, ClientE2EMs: p(1),
			Anomaly: evil, ClientSource: evil + ":1", GatewaySource: evil + ":2", ServerSource: evil + ":3"}},
		Slices: []analyze.Slice{
			{All: true, Label: "all requests", Requests: 1, WindowFirst: &at, WindowLast: &at,
				ClientE2E: analyze.Dist{N: 1, P50: p(1), P90: p(1), P95: p(1), P99: p(1)},
				E2E:       []analyze.Component{{Name: "network", N: 1, P50: p(1)}}},
			{Label: label, Values: []string{evil}, Requests: 1, WindowFirst: &at, WindowLast: &at,
				ClientE2E: analyze.Dist{N: 1, P50: p(1), P90: p(1), P95: p(1), P99: p(1)},
				E2E:       []analyze.Component{{Name: "network", N: 1, P50: p(1)}}},
		},
		Protocol: analyze.Protocol,
		Replicas: []analyze.Replica{{Replica: evilImg, Model: evilImg, Requests: 1}},
	}
}

// Every log-derived string is escaped in both formats.
func TestEscaping(t *testing.T) {
	t.Parallel()
	res := evilResult()
	var h bytes.Buffer
	if err := Render(&h, "html", res, nil); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(h.String(), "<script") {
		t.Error("HTML report contains an unescaped <script")
	}
	// label x4 (two tables, attribution, chart), file path, reject file and
	// example x2, anomaly and its example, finding, slowest request x7
	if n := strings.Count(h.String(), "&lt;script&gt;alert(1)&lt;/script&gt;"); n < 18 {
		t.Errorf("escaped model name appears %d times in the HTML, want at least 18", n)
	}

	var md bytes.Buffer
	if err := Render(&md, "md", res, nil); err != nil {
		t.Fatal(err)
	}
	// A backslash before < makes it literal text in Markdown.
	if regexp.MustCompile(`(^|[^\\])<script`).MatchString(md.String()) {
		t.Error("Markdown report contains an unescaped <script")
	}
	if n := strings.Count(md.String(), `\<script\>alert(1)\</script\>`); n < 18 {
		t.Errorf("escaped model name appears %d times in the Markdown, want at least 18", n)
	}
}

func TestMdEscapeKeepsTablesIntact(t *testing.T) {
	t.Parallel()
	// The newline is shown as \x0a, its backslash escaped for Markdown.
	if got := mdEscape("a|b\nc_d"); got != `a\|b\\x0ac\_d` {
		t.Errorf("mdEscape = %q", got)
	}
}

func TestFormatting(t *testing.T) {
	t.Parallel()
	v := 1234.56
	neg := -0.04
	if fmtMs(&v) != "1234.6" || fmtMs(nil) != "–" || fmtTPS(&v) != "1234.6" || fmtMs(&neg) != "-0.0" {
		t.Errorf("fmtMs/fmtTPS: %q %q %q %q", fmtMs(&v), fmtMs(nil), fmtTPS(&v), fmtMs(&neg))
	}
}

func TestWriteFiles(t *testing.T) {
	t.Parallel()
	res := standardResult(t)
	dir := t.TempDir()
	paths, err := WriteFiles(dir, res, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "report.md"), filepath.Join(dir, "report.html"), filepath.Join(dir, "report.json")}
	if strings.Join(paths, ",") != strings.Join(want, ",") {
		t.Errorf("paths = %v, want %v", paths, want)
	}
	csvPaths, err := WriteFiles(dir, res, nil, []string{"json", "csv"})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "report.json") + "," + filepath.Join(dir, "slices.csv"); strings.Join(csvPaths, ",") != want {
		t.Errorf("--format json,csv wrote %v, want %s", csvPaths, want)
	}
	paths = append(paths, csvPaths[1:]...)
	for _, p := range paths {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
	if _, err := WriteFiles(dir, res, nil, []string{"pdf"}); err == nil || !strings.Contains(err.Error(), "pdf") {
		t.Errorf("unknown format error = %v", err)
	}
	if err := Render(&bytes.Buffer{}, "txt", res, nil); err == nil {
		t.Error("Render accepted format txt")
	}
}

// The gateway's views of TTFT appear next to client and server TTFT only
// when a gateway logged them, and the join table lists every pair.
func TestGatewayTTFTAndJoins(t *testing.T) {
	t.Parallel()
	res := standardResult(t)
	var buf bytes.Buffer
	if err := Render(&buf, "md", res, nil); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "### Gateway TTFT") {
		t.Error("the standard fixture logs no gateway TTFT, yet the report has a table for it")
	}
	for _, s := range []string{"| client ↔ gateway | ", "| gateway ↔ server | ", "| client ↔ server | ", "| Tier | Format | Records | Joined no other tier |"} {
		if !strings.Contains(buf.String(), s) {
			t.Errorf("report lacks %q", s)
		}
	}
	p50, p95 := 265.0, 290.0
	res.Slices[0].GatewayUpstreamTTFB = analyze.Dist{N: 3, P50: &p50, P95: &p95}
	buf.Reset()
	if err := Render(&buf, "md", res, nil); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	i, j := strings.Index(md, "### Server TTFT"), strings.Index(md, "### Gateway upstream TTFB (ms)")
	if j < 0 || i < 0 || j < i {
		t.Fatalf("gateway upstream TTFB table missing or not after server TTFT (%d, %d)", i, j)
	}
	if !strings.Contains(md[j:], "| all requests | 3 | 265.0 |") {
		t.Errorf("gateway upstream TTFB row missing:\n%s", md[j:min(len(md), j+600)])
	}
	if strings.Contains(md, "### Gateway TTFT (logged)") {
		t.Error("gateway TTFT table shown without samples")
	}
}

// The metric glossary of docs/report.md is the report's: its table and the
// notes on where the tools differ, as the Markdown report renders
// analyze.Glossary and analyze.GlossaryNotes.
func TestDocsGlossary(t *testing.T) {
	t.Parallel()
	var md bytes.Buffer
	if err := Render(&md, "md", standardResult(t), nil); err != nil {
		t.Fatal(err)
	}
	s := md.String()
	start := strings.Index(s, "| infertrace | AIPerf, GenAI-Perf |")
	end := strings.Index(s, "\nEach tier's times are on its own host clock")
	if start < 0 || end < start {
		t.Fatal("the report has no glossary table followed by its notes")
	}
	glossary := strings.TrimSpace(s[start:end])
	doc, err := os.ReadFile(filepath.Join("..", "docs", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), glossary) {
		got := filepath.Join(t.TempDir(), "glossary.md")
		os.WriteFile(got, []byte(glossary+"\n"), 0o644)
		t.Errorf("docs/report.md does not hold the report's glossary (written to %s); paste it under \"Metric glossary\"", got)
	}
}

// Both reports state the percentile rule once, above the protocol, and no
// sentence of the protocol's Aggregation column is repeated; each slice's
// window is given once in the Markdown report's Latency by slice (in the
// service-wide table), not again in each metric's table.
func TestProtocolStatesEachRuleOnce(t *testing.T) {
	t.Parallel()
	res := standardResult(t)
	window := analyze.FormatWindow(res.Slices[0].WindowFirst, res.Slices[0].WindowLast)
	for _, format := range []string{"md", "html"} {
		var buf bytes.Buffer
		if err := Render(&buf, format, res, nil); err != nil {
			t.Fatal(err)
		}
		s := buf.String()
		if format == "html" {
			s = html.UnescapeString(s)
		}
		if n := strings.Count(s, analyze.PercentileRule); n != 1 {
			t.Errorf("%s: the percentile rule is stated %d times, want once", format, n)
		}
		// Its distinctive clause, to catch a copy that differs in a word.
		if n := strings.Count(s, "is \"n too small\", never a number"); n != 1 {
			t.Errorf("%s: \"n too small, never a number\" appears %d times, want once", format, n)
		}
		if format != "md" {
			continue
		}
		latency, _, _ := strings.Cut(s[strings.Index(s, "## Latency by slice"):], "## Phases")
		if n := strings.Count(latency, window); n != 1 {
			t.Errorf("md: the window of all requests appears %d times under Latency by slice, want once", n)
		}
	}
}
