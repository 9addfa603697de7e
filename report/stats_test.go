package report

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/analyze/analyzetest"
)

func TestPercentileCells(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	d := analyze.Dist{N: 50, P50: f(10), P90: f(20), P95: f(30), P99: f(40),
		P95CI: analyze.Interval{Lo: f(25), Hi: f(38.26)}, P99CI: analyze.Interval{Lo: f(35)},
		Small: [4]bool{false, false, false, true}}
	for _, c := range []struct{ got, want string }{
		{percentile(d, 0), "10.0"},
		{percentile(d, 2), "30.0"},
		{interval(d, 2), "[25.0, 38.3]"},
		{percentile(d, 3), "n too small"},
		{interval(d, 3), ""},
		{intervalTitle(d, 2), "95% interval [25.0, 38.3]"},
		{intervalTitle(d, 3), "P99 from n = 50: fewer samples than 1/(1 − q)"},
		{percentile(analyze.Dist{Small: [4]bool{true, true, true, true}}, 2), "–"},
		{intervalOf(analyze.Interval{Hi: f(3)}, f(2), false), "[…, 3.0]"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// The attribution and time-series P95s are shown as the slice table shows
// its: with the 95% interval of order statistics, or "n too small". Use
// case a: 200 streamed requests in the first second, queue 1..200 ms
// (P50 100.5, P95 190.05 by quantile_cont, printed 190.0 as the double
// is just below; interval ranks
// floor(190 − 1.959964·√9.5) = 183 and ceil(190 + 6.041) + 1 = 198, so
// [183, 198]); client E2E = queue + 10 ms. Use case b: 10 requests two
// seconds later, queue 1001..1010 ms (P50 1005.5; P95 from 10 < 20
// samples is too small).
func TestComponentAndWindowIntervalsRendered(t *testing.T) {
	t.Parallel()
	var f analyzetest.Fixture
	add := func(id string, start, queue int64, uc string, line int) {
		f.Clients = append(f.Clients, analyzetest.Client{
			ID: id, Start: analyzetest.At(start), FirstToken: analyzetest.At(start + queue + 5),
			End: analyzetest.At(start + queue + 10), Status: analyzetest.Int(200), Streamed: analyzetest.Bool(true),
			Model: "m", UseCase: uc, Output: analyzetest.Int(10), Line: line,
		})
		f.Servers = append(f.Servers, analyzetest.Server{
			ID: id, Arrival: analyzetest.At(start), Scheduled: analyzetest.At(start + queue),
			FirstToken: analyzetest.At(start + queue + 5), End: analyzetest.At(start + queue + 10),
			Model: "m", Replica: "r1", Output: analyzetest.Int(10), Status: analyzetest.Int(200), Line: line,
		})
	}
	for k := int64(0); k < 200; k++ {
		add(fmt.Sprintf("a%03d", k), k*5, k+1, "a", int(k)+1)
	}
	for k := int64(0); k < 10; k++ {
		add(fmt.Sprintf("b%03d", k), 2000+k, 1001+k, "b", 201+int(k))
	}
	ctx := context.Background()
	dir := t.TempDir()
	if err := analyzetest.Write(ctx, dir, f, analyzetest.DefaultOffsets); err != nil {
		t.Fatal(err)
	}
	if _, err := analyze.Run(ctx, dir); err != nil {
		t.Fatal(err)
	}
	res, err := analyze.Summarize(ctx, dir, analyze.SummaryOptions{By: []string{"use_case"}})
	if err != nil {
		t.Fatal(err)
	}
	var md, h bytes.Buffer
	if err := Render(&md, "md", res, nil); err != nil {
		t.Fatal(err)
	}
	if err := Render(&h, "html", res, nil); err != nil {
		t.Fatal(err)
	}
	attr := md.String()[strings.Index(md.String(), "## Attribution by slice"):]
	sliceA := attr[strings.Index(attr, "### use\\_case=a"):]
	sliceB := attr[strings.Index(attr, "### use\\_case=b"):]
	for _, c := range []struct{ in, want string }{
		// a: queue in the E2E table and again in the TTFT table.
		{sliceA, "| queue | 200 | 100.5 | 190.0 | [183.0, 198.0] |"},
		{sliceA[strings.Index(sliceA, "| TTFT (streamed)"):], "| queue | 200 | 100.5 | 190.0 | [183.0, 198.0] |"},
		// client E2E 11..210: the same ranks, 10 ms later.
		{sliceA, "| **client E2E** | 200 | 110.5 | 200.0 | [193.0, 208.0] |"},
		{sliceB, "| queue | 10 | 1005.5 | n too small |  |"},
		// Time series: 1 s windows; a in the first (a burst: bold), b in
		// the third. Model time is 10 ms throughout.
		{md.String(), "| **2026-03-01 12:00:00.000** | 200 | 200.0 | 200.0 | [193.0, 208.0] | 200 | 190.0 | [183.0, 198.0] | 200 | 10.0 | [10.0, 10.0] | 200 |"},
		{md.String(), "| 2026-03-01 12:00:02.000 | 10 | 10.0 | n too small |  | 10 | n too small |  | 10 | n too small |  | 10 |"},
	} {
		if !strings.Contains(c.in, c.want) {
			t.Errorf("Markdown report lacks %q", c.want)
		}
	}
	for _, want := range []string{
		`<td>queue</td><td class="n">200</td><td class="n">100.5</td><td class="n">190.0</td><td class="n">[183.0, 198.0]</td>`,
		`<td>queue</td><td class="n">10</td><td class="n">1005.5</td><td class="n small">n too small</td><td class="n"></td>`,
		`<td class="n small">n too small</td><td class="n"></td><td class="n">10</td>`,
		// The chart draws no bar for a P95 from too few samples, and gives
		// the interval of those it draws.
		`P95 client E2E: 200.0 ms (n=200, 95% interval [193.0, 208.0])`,
	} {
		if !strings.Contains(h.String(), want) {
			t.Errorf("HTML report lacks %q", want)
		}
	}
	if !strings.Contains(h.String(), "12:00:02.000 UTC, arrivals/s: 10.0/s (n=10)") || strings.Contains(h.String(), "12:00:02.000 UTC, P95 ") {
		t.Error("HTML chart draws a bar for a P95 from 10 samples")
	}
}
