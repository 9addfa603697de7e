package report

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/compare"
	"github.com/infertrace/infertrace/contract"
	"github.com/infertrace/infertrace/explain"
)

func fp(v float64) *float64 { return &v }

// compareFixture is a comparison whose labels carry markup, with
// hand-set changes: queue rose surely, network did not.
func compareFixture() *compare.Comparison {
	slice := func(label string, all bool) compare.CompareSlice {
		s := compare.CompareSlice{All: all, Label: label, BaselineN: 400, TargetN: 410}
		for _, m := range compare.CompareMetrics {
			mc := compare.MetricChange{Metric: m.Metric, Name: m.Name, Unit: m.Unit, HigherIsBetter: m.Metric == "tps_user"}
			for _, p := range []float64{0.5, 0.95, 0.99} {
				q := compare.QuantileChange{P: p, BaselineN: 400, TargetN: 410, Baseline: fp(100), Target: fp(104), Delta: fp(4), Lo: fp(-3), Hi: fp(11)}
				if m.Metric == "queue" || m.Metric == "client_e2e" {
					q.Target, q.Delta, q.Lo, q.Hi, q.Significant, q.Strong = fp(1900), fp(1800), fp(1500), fp(2100), true, true
				}
				if p == 0.99 {
					q.Lo, q.Hi, q.TooFew = nil, nil, true
				}
				mc.Points = append(mc.Points, q)
			}
			s.Metrics = append(s.Metrics, mc)
		}
		return s
	}
	return &compare.Comparison{
		BaselineLabel: "out/last-week", TargetLabel: "model=" + evil, BaselineN: 400, TargetN: 410, By: []string{"use_case"},
		Slices:   []compare.CompareSlice{slice("all requests", true), slice("use_case="+evilImg, false)},
		Compared: 50, Significant: 8,
	}
}

// explainFixture is one request with every tier placed, its labels
// carrying markup.
// verdictFixture is a rejection on quality: the eval pass rate fell 15
// points with no allowance, while P95 TTFT worsened within its 50 ms.
func verdictFixture() *compare.ContractVerdict {
	q := contract.Constraint{Kind: "quality", Metric: "eval_pass_rate", Op: ">=", Target: 0.9}
	l := contract.Constraint{Kind: "latency", Metric: "client_ttft_ms", Percentile: 95, Op: "<=", Target: 800, MayWorsen: 50}
	side := func(k contract.Constraint, unit, title string, v, lo, hi float64) analyze.ConstraintResult {
		return analyze.ConstraintResult{Constraint: k, Title: title, Unit: unit, N: 400, Value: fp(v), CILo: fp(lo), CIHi: fp(hi), Verdict: "pass"}
	}
	return &compare.ContractVerdict{File: "contract.toml", Verdict: compare.VerdictReject, Deciding: 0,
		Cases: []compare.CaseChange{{Name: evil, Match: "use_case=" + evil, BaselineN: 400, TargetN: 400, Verdict: compare.VerdictReject, Deciding: 0,
			Constraints: []compare.ConstraintChange{
				{Baseline: side(q, "share", "eval pass rate", 0.95, 0.924, 0.969), Target: side(q, "share", "eval pass rate", 0.8, 0.758, 0.836),
					Delta: fp(-0.15), Lo: fp(-0.2), Hi: fp(-0.1), Status: compare.ChangeBeyond},
				{Baseline: side(l, "ms", "client TTFT", 479, 470, 489), Target: side(l, "ms", "client TTFT", 509, 500, 519),
					Delta: fp(30), Lo: fp(16.6), Hi: fp(43.4), Allowed: 50, Status: compare.ChangeWithin},
			}}}}
}

func explainFixture() *explain.Result {
	at := time.Date(2026, 11, 30, 10, 0, 1, 0, time.UTC)
	unc := fp(4.2)
	zero := fp(0)
	return &explain.Result{By: []string{"model", "use_case"}, Dir: "out", Requests: []explain.Request{{
		RequestID: "req-" + evil, Start: &at, Model: evil, UseCase: "chat", Client: "client-1", Region: evilImg,
		Gateway: "gw-1", Replica: "r-1", Phase: "steady", Status: func() *int64 { v := int64(200); return &v }(),
		ClientRecords: 1, GatewayRecords: 1, ServerRecords: 1,
		ClientSource: "/very/long/path/to/client/logs/client-1.jsonl:12", GatewaySource: "gw-1.jsonl:3", ServerSource: "r-1.jsonl:9",
		ClientHost: "client-1", GatewayHost: "gw-1", ServerHost: "r-1",
		ClientOffset: explain.Offset{Ms: fp(-120.5), UncertaintyMs: unc, Bounds: 300},
		ServerOffset: explain.Offset{Ms: fp(2400), UncertaintyMs: fp(0.3), Bounds: 290},
		Components: []explain.Component{
			{Metric: "client_e2e", Value: fp(2410), SliceN: 300, SliceP50: fp(900), SliceP95: fp(2000), SliceP95Hi: fp(2100), AboveP95: true},
			{Metric: "network", Value: fp(10), SliceN: 300, SliceP50: fp(9), SliceP95: fp(20), SliceP95Hi: fp(25)},
			{Metric: "queue", Value: fp(1500), SliceN: 300, SliceP50: fp(0), SliceP95: fp(300), SliceP95Hi: fp(340), AboveP95: true},
		},
		QueueDepth: func() *int64 { v := int64(80); return &v }(),
		// As explain gives it: queue 1500 of 2410 ms, 900 ms not in a
		// component the fixture lists.
		Answer: explain.Answer{E2E: explain.Breakdown{Total: "client_e2e", TotalMs: fp(2410), Top: explain.Part{Metric: "queue", Ms: 1500},
			Share: 1500.0 / 2410, UnknownMs: 900, Unknown: []string{"application", "model"}}},
		Spans: []explain.Span{
			{Tier: "client", Name: "request → response", StartMs: fp(-5), EndMs: fp(2405), UncertaintyMs: unc},
			{Tier: "gateway", Name: "before forwarding", StartMs: fp(0), EndMs: fp(1), UncertaintyMs: zero},
			{Tier: "gateway", Name: "upstream", StartMs: fp(1), EndMs: fp(2399), UncertaintyMs: zero},
			{Tier: "server", Name: "queue", StartMs: fp(1.3), EndMs: fp(1501), UncertaintyMs: fp(0.3)},
			{Tier: "server", Name: "prefill", StartMs: fp(1501), EndMs: fp(1600), UncertaintyMs: fp(0.3)},
			{Tier: "server", Name: "decode", StartMs: fp(1600), EndMs: fp(2398), UncertaintyMs: fp(0.3)},
		},
	}}}
}

// TestBrowserCompareExplain opens a comparison and an explanation in
// headless Chromium with the report's checks (no console error, no
// request, the answer — findings and the before/after table, the first
// request's waterfall and components — in the first 900 px, nothing wider
// than 1366 px) and markup from logs shown as text.
func TestBrowserCompareExplain(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t)
	dir := artifactDir(t)
	work := t.TempDir()
	write := func(name string, render func(w io.Writer) error) string {
		var buf bytes.Buffer
		if err := render(&buf); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(work, name+".html")
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	l := openReport(t, ctx, write("compare", func(w io.Writer) error { return RenderCompare(w, "html", compareFixture()) }), "compare", dir)
	for _, s := range []string{evil, evilImg, "Server queueing rose"} {
		if !strings.Contains(l.Text, s) {
			t.Errorf("compare: %q is not shown as text", s)
		}
	}
	// The chart's key (its colours, baseline pale and target solid) is
	// above the chart, on the first screen.
	if l.LegendEnd < 0 || l.LegendEnd > 768 {
		t.Errorf("compare: the chart's key ends at %v px, not within the first screen (768 px)", l.LegendEnd)
	}
	// The verdict against a contract, first; its use case named from a
	// contract file is shown as text too.
	cv := compareFixture()
	cv.Verdict = verdictFixture()
	l = openReport(t, ctx, write("compare-verdict", func(w io.Writer) error { return RenderCompare(w, "html", cv) }), "compare-verdict", dir)
	for _, s := range []string{"REJECT: " + evil + " quality drops", "worsened beyond its allowance"} {
		if !strings.Contains(l.Text, s) {
			t.Errorf("compare verdict: %q is not shown as text", s)
		}
	}
	l = openReport(t, ctx, write("explain", func(w io.Writer) error { return RenderExplain(w, "html", explainFixture()) }), "explain", dir)
	for _, s := range []string{evil, evilImg, "gateway: upstream", "client E2E, queue",
		"1.50 s of its 2.41 s client E2E (62%) was queueing at the server, behind 80 request(s) waiting on replica r-1, in steady traffic"} {
		if !strings.Contains(l.Text, s) {
			t.Errorf("explain: %q is not shown as text", s)
		}
	}
}

// TestRenderCompareExplainMarkdown: the Markdown escapes log-derived
// labels and carries both counts and the interval of every change.
func TestRenderCompareExplainMarkdown(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := RenderCompare(&b, "md", compareFixture()); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"| queue | P50 | 100.0 | 400 | 1900.0 | 410 | +1800.0 | +1500.0 … +2100.0 | strong (worse) |",
		"| network | P50 | 100.0 | 400 | 104.0 | 410 | +4.0 | −3.0 … +11.0 | noise |",
		"|  | P99 | 100.0 | 400 | 104.0 | 410 | +4.0 | – | too few |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("compare.md lacks %q", want)
		}
	}
	if strings.Contains(md, evil) {
		t.Errorf("compare.md carries %q unescaped", evil)
	}
	b.Reset()
	if err := RenderExplain(&b, "md", explainFixture()); err != nil {
		t.Fatal(err)
	}
	md = b.String()
	for _, want := range []string{
		"| queue | **1500.0** | 0.0 | 300.0 | 300 |",
		"server   queue                                    1.3 →    1501.0 ms  (1499.7 ms)  placed ± 0.3 ms",
		"client client-1 -120.5 ms ± 4.2 ms (bounds from 300 requests)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("explain.md lacks %q\n%s", want, md)
		}
	}
}
