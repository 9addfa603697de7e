package report

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/analyze/analyzetest"
	"github.com/infertrace/infertrace/compare"
	"github.com/infertrace/infertrace/contract"
)

func TestPlural(t *testing.T) {
	t.Parallel()
	if got := plural(1, "request is", "requests are"); got != "1 request is" {
		t.Error(got)
	}
	if got := plural(3, "request is", "requests are"); got != "3 requests are" {
		t.Error(got)
	}
}

func TestPhaseComparisons(t *testing.T) {
	t.Parallel()
	p := func(v float64) *float64 { return &v }
	d := func(n int64, p95 float64) analyze.Dist { return analyze.Dist{N: n, P50: p(p95 / 2), P95: p(p95)} }
	steady := analyze.Phase{Name: "steady", Requests: 100, ClientE2E: d(100, 1000), Model: d(100, 800), Queue: d(100, 10), Network: d(100, 100), Application: d(100, 3)}
	burst := analyze.Phase{Name: "burst", Requests: 50, ClientE2E: d(50, 5000), Model: d(50, 1200), Queue: d(50, 3700), Network: d(50, 110), Application: d(50, 4)}
	cold := analyze.Phase{Name: "cold", Requests: 10, ClientE2E: d(10, 3000), Model: d(10, 2700), Queue: d(10, 20), Network: d(10, 100), Application: d(10, 3)}
	got := phaseComparisons(&analyze.Result{Phases: []analyze.Phase{cold, burst, steady}})
	if len(got) != 2 {
		t.Fatalf("got %d findings, want 2: %q", len(got), got)
	}
	// Burst: client +4000 ms, model +400 ms (10%), queue +3690 ms.
	for _, want := range []string{"In the burst phase (n=50", "+4000.0 ms", "model time stays comparatively flat", "(n=100) to 1200.0 ms (n=50), +400.0 ms or 10% of the rise", "mostly in queueing"} {
		if !strings.Contains(got[0], want) {
			t.Errorf("burst finding lacks %q:\n%s", want, got[0])
		}
	}
	// Cold: client +2000 ms, model +1900 ms: the model is the cause.
	if !strings.Contains(got[1], "In the cold phase") || !strings.Contains(got[1], "the model itself is slower") {
		t.Errorf("cold finding: %s", got[1])
	}
	// A phase whose client P95 rises by less than 20% gets no comparison.
	burst.ClientE2E = d(50, 1100)
	if got := phaseComparisons(&analyze.Result{Phases: []analyze.Phase{burst, steady}}); len(got) != 0 {
		t.Errorf("small rise gave %q", got)
	}
}

// The headlines answer each question in short sentences from the figures:
// the tail's largest component, the burst and cold phases against steady
// state, the slowest slice and the cold replica, and the data's state.
func TestHeadlines(t *testing.T) {
	t.Parallel()
	p := func(v float64) *float64 { return &v }
	d := func(n int64, p95 float64) analyze.Dist { return analyze.Dist{N: n, P50: p(p95 / 2), P95: p(p95)} }
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	later := at.Add(20 * time.Second)
	end := at.Add(50 * time.Second)
	comps := func(queue, model float64) []analyze.Component {
		return []analyze.Component{{Name: "network", TailMean: p(100), TailN: 5}, {Name: "queue", TailMean: p(queue), TailN: 5}, {Name: "model", TailMean: p(model), TailN: 5}}
	}
	r := &analyze.Result{
		Coverage:     analyze.Coverage{Requests: 200, Client: 190, Gateway: 195, Server: 190, AllTiers: 180},
		RejectsTotal: 7,
		Anomalous:    1,
		Slices: []analyze.Slice{
			{All: true, Label: "all requests", Requests: 200, Failed: 10, Succeeded: 190, Failures: []analyze.OutcomeCount{{Outcome: "500", Requests: 6}, {Outcome: "429", Requests: 4}},
				WindowFirst: &at, ClientE2E: d(190, 2000), ClientTTFT: d(80, 600), E2ETailN: 10, E2ETailClientE2E: p(5000), E2E: comps(3000, 1900),
				TTFTTailN: 4, TTFTTailClientTTFT: p(800), TTFT: []analyze.Component{{Name: "queue", TailMean: p(700)}, {Name: "model", TailMean: p(90)}}},
			{Label: "model=a", Requests: 100, Failed: 2, Succeeded: 98, Failures: []analyze.OutcomeCount{{Outcome: "500", Requests: 1}, {Outcome: "429", Requests: 1}}, ClientE2E: d(100, 1500), E2ETailN: 5, E2E: comps(100, 1300)},
			{Label: "model=b", Requests: 90, Failed: 8, Succeeded: 82, Failures: []analyze.OutcomeCount{{Outcome: "500", Requests: 5}, {Outcome: "429", Requests: 3}}, ClientE2E: d(90, 4000), E2ETailN: 5, E2E: comps(3000, 900)},
			{Label: "model=c", Requests: 10, Succeeded: 10, ClientE2E: d(0, 0)},
		},
		Phases: []analyze.Phase{
			{Name: "cold", Requests: 10, WindowFirst: &later, WindowLast: &end, ClientE2E: d(10, 3000), Model: d(10, 2700), Queue: d(10, 20)},
			{Name: "burst", Requests: 50, WindowFirst: &later, WindowLast: &end, ClientE2E: d(50, 5000), Model: d(50, 1200), Queue: d(50, 3700), Network: d(50, 110), Application: d(50, 4)},
			{Name: "steady", Requests: 140, ClientE2E: d(140, 1000), Model: d(140, 800), Queue: d(140, 10), Network: d(140, 100), Application: d(140, 3)},
		},
		Replicas: []analyze.Replica{
			{Replica: "r-0", Model: "a", FirstStart: &at, ModelPerToken: [2]*float64{p(5), p(6)}},
			{Replica: "r-1", Model: "a", FirstStart: &later, Cold: 10, ModelPerToken: [2]*float64{p(9), p(12)}},
		},
	}
	r.Slices[3].ClientE2E.P95 = nil
	want := []Headline{
		{HeadlineTime, "The slowest 5% of requests by client E2E (n=10) spend the most time in queue: 3000.0 ms of 5000.0 ms on average."},
		{HeadlineTime, "The slowest 5% by client TTFT (n=4) spend the most of it in queue: 700.0 ms of 800.0 ms on average."},
		{HeadlineTime, "Per slice, the slowest 5% spend the most time in model in 1 of 2 slices, in queue in 1 (model=b)."},
		// 10 of 200 failed; model=b the most, 8 of 90 (8.9%) against 2 of 100.
		{HeadlineFailures, "5.0% failed (10 of 200: 500 ×6, 429 ×4); latency percentiles are over the 190 successful requests."},
		// Burst: client +4000 ms, model +400 ms, queue +3690 ms.
		{HeadlinePhases, "During the burst (50 requests, from 10:00:20 to 10:00:50 UTC), P95 client E2E is 5000.0 ms against 1000.0 ms in steady state."},
		{HeadlinePhases, "The extra time is queueing, not the model: P95 queue rises by 3690.0 ms, P95 model time by 400.0 ms."},
		// Cold: client +2000 ms, model +1900 ms.
		{HeadlinePhases, "In the cold start (10 requests, from 10:00:20 to 10:00:50 UTC), P95 client E2E is 3000.0 ms against 1000.0 ms in steady state."},
		{HeadlinePhases, "The model itself is slower: P95 model time rises by 1900.0 ms, P95 client E2E by 2000.0 ms."},
		{HeadlineStandsOut, "The slowest slice is model=b: P95 client E2E 4000.0 ms, against 2000.0 ms for all requests."},
		{HeadlineStandsOut, "Replica r-1 served its first request 20.0 s after the service's first; 10 of its requests were cold."},
		// 12 ms per token against 6: twice its peer's.
		{HeadlineStandsOut, "Replica r-1 decodes slowest: P95 model time per output token 12.0 ms, against at most 6.0 ms on the other replicas of a."},
		// 180 of 200 on all three tiers.
		{HeadlineData, "90.0% of requests joined on all three tiers; 7 lines rejected, 1 request anomalous (kept) — see Data quality."},
	}
	got := headlines(r, nil)
	if len(got) != len(want) {
		t.Fatalf("got %d headlines, want %d:\n%q", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("headline %d:\n got %q\nwant %q", i, got[i], want[i])
		}
	}

	// No phases, one tier, nothing rejected.
	r = &analyze.Result{Coverage: analyze.Coverage{Requests: 5, Server: 5}, Slices: []analyze.Slice{{All: true, Label: "all requests"}}}
	got = headlines(r, nil)
	for _, w := range []string{"No request has a client E2E time", "No burst phase was detected in the logs.", "No cold phase was detected in the logs.", "Only server logs, so nothing is joined; no line rejected — see Data quality."} {
		found := false
		for _, h := range got {
			found = found || strings.Contains(h.Text, w)
		}
		if !found {
			t.Errorf("no headline says %q: %q", w, got)
		}
	}
}

// smallBigFixture is 500 requests of model=big and 5 of model=small, on
// all three tiers, one every 100 ms, none streamed. Big request i (1..500)
// takes 1000 + 2i ms at the client, small request k (1..5) 2000 + 1000k;
// each spends 10 ms in the network and 10 in the application, none in the
// queue, so model time is client E2E − 20.
func smallBigFixture() analyzetest.Fixture {
	var f analyzetest.Fixture
	ok := analyzetest.Int(200)
	add := func(n int, id, model, replica string, at, e2e int64) {
		f.Clients = append(f.Clients, analyzetest.Client{ID: id, Start: analyzetest.At(at), End: analyzetest.At(at + e2e), Status: ok, Streamed: analyzetest.Bool(false),
			Model: model, UseCase: "chat", PromptTokens: analyzetest.Int(10), Output: analyzetest.Int(100), Line: n})
		f.Gateways = append(f.Gateways, analyzetest.Gateway{ID: id, Start: analyzetest.At(at + 5), UpstreamStart: analyzetest.At(at + 6), UpstreamEnd: analyzetest.At(at + e2e - 6),
			End: analyzetest.At(at + e2e - 5), Status: ok, Gateway: "gw", Line: n})
		f.Servers = append(f.Servers, analyzetest.Server{ID: id, Arrival: analyzetest.At(at + 10), Scheduled: analyzetest.At(at + 10), End: analyzetest.At(at + e2e - 10),
			Model: model, Replica: replica, PromptTokens: analyzetest.Int(10), Output: analyzetest.Int(100), Status: ok, Line: n})
	}
	for i := int64(1); i <= 500; i++ {
		add(int(i), fmt.Sprintf("b%03d", i), "big", "b-0", 100*i, 1000+2*i)
	}
	for k := int64(1); k <= 5; k++ {
		add(500+int(k), fmt.Sprintf("s%d", k), "small", "s-0", 100*(500+k), 2000+1000*k)
	}
	return f
}

// A P95 from too few samples is never quoted in a finding or a headline,
// and no comparison rests on one: at n=5 the slice's findings say "n too
// small for a P95" and it is not named the slowest slice; at n=500 the P95
// is quoted with its interval.
func TestFindingsSmallSample(t *testing.T) {
	t.Parallel()
	res := summarizeFixture(t, smallBigFixture(), analyzetest.DefaultOffsets, []string{"model"})
	said := Say(res, nil)
	bigText, smallText := strings.Join(said.Slices[sliceIndex(t, res, "model=big")], "\n"), strings.Join(said.Slices[sliceIndex(t, res, "model=small")], "\n")
	// Big: client E2E 1002..2000 step 2. quantile_cont P95 at rank
	// 0.95 × 499 = 474.05 (from 0): 1950 + 0.05 × 2 = 1950.1. Its interval:
	// ranks floor(475 − 1.96 √23.75) = 465 and ceil(475 + 9.55) + 1 = 486,
	// so [1000 + 2·465, 1000 + 2·486] = [1930, 1972]; model 20 ms less.
	for _, want := range []string{
		"P95 client E2E is 1950.1 ms (n=500, 95% interval [1930.0, 1972.0] ms) while P95 model time is 1930.1 ms (n=500, 95% interval [1910.0, 1952.0] ms) and P95 inference-only (server E2E) is 1930.1 ms (n=500, 95% interval [1910.0, 1952.0] ms).",
		"the slowest 5% (client E2E above P95 1950.1 ms, n=25) spend the most time in model",
	} {
		if !strings.Contains(bigText, want) {
			t.Errorf("model=big findings lack %q:\n%s", want, bigText)
		}
	}
	// Small: client E2E 3000..7000, its quantile_cont P95 6000 + 0.8 ×
	// 1000 = 6800 must not be quoted, nor any of its tail.
	for _, want := range []string{
		"In model=small (window 2026-03-01 12:00:50.100 – 12:00:50.500 UTC), n too small for a P95 of client E2E (n=5), of model time (n=5) or of inference-only (server E2E) (n=5).",
		"In model=small, client E2E has n too small for a P95 (n=5): its slowest 5% are not singled out.",
	} {
		if !strings.Contains(smallText, want) {
			t.Errorf("model=small findings lack %q:\n%s", want, smallText)
		}
	}
	for _, bad := range []string{"6800.0", "6780.0", "slowest 5% (", "mean over the slowest"} {
		if strings.Contains(smallText, bad) {
			t.Errorf("model=small findings quote %q from n=5:\n%s", bad, smallText)
		}
	}
	// The slowest slice by P95 would be model=small (6800 against 1950):
	// from n=5 it is no comparison. One slice with a supported P95 leaves
	// no per-slice headline either.
	for _, h := range said.Headlines {
		if strings.Contains(h.Text, "model=small") || strings.Contains(h.Text, "slowest slice") || strings.Contains(h.Text, "Per slice") || strings.Contains(h.Text, "every slice") {
			t.Errorf("headline rests on the n=5 slice: %q", h.Text)
		}
	}
}

// Phase comparisons need a P95 both sides support, and quote both
// intervals: a burst of n=5 is not compared with steady state; one of
// n=500 is, and overlapping intervals are said.
func TestPhaseComparisonsSmallSample(t *testing.T) {
	t.Parallel()
	p := func(v float64) *float64 { return &v }
	// d is a Dist whose Small flags follow pct_too_small.
	d := func(n int64, p95, lo, hi float64) analyze.Dist {
		x := analyze.Dist{N: n, P50: p(p95 / 2), P95: p(p95), Small: [4]bool{n < 2, n < 10, n < 20, n < 100}}
		if n >= 20 {
			x.P95CI = analyze.Interval{Lo: p(lo), Hi: p(hi)}
		}
		return x
	}
	steady := analyze.Phase{Name: "steady", Requests: 500, ClientE2E: d(500, 1000, 950, 1050), Model: d(500, 800, 780, 820), Queue: d(500, 10, 9, 11)}
	burst := analyze.Phase{Name: "burst", Requests: 5, ClientE2E: d(5, 5000, 0, 0), Model: d(5, 1200, 0, 0), Queue: d(5, 3700, 0, 0)}
	r := &analyze.Result{Coverage: analyze.Coverage{Requests: 505, Client: 505}, Phases: []analyze.Phase{burst, steady}, Slices: []analyze.Slice{{All: true, Label: "all requests"}}}
	if got := phaseComparisons(r); len(got) != 0 {
		t.Errorf("n=5 burst compared: %q", got)
	}
	var phase []string
	for _, h := range headlines(r, nil) {
		if h.Topic == HeadlinePhases {
			phase = append(phase, h.Text)
		}
	}
	if want := "5 requests were detected as burst; n too small for a P95 of client E2E (n=5 in the burst phase, n=500 in steady state) to compare with steady state."; len(phase) == 0 || phase[0] != want {
		t.Errorf("burst headline %q, want %q", phase, want)
	}
	for _, h := range phase {
		if strings.Contains(h, "5000.0") {
			t.Errorf("headline quotes the n=5 P95: %q", h)
		}
	}

	// n=500 on both sides: +4000 ms, intervals quoted; the model's P95 is
	// from n=5 (a burst whose server logged few requests), so whether the
	// model accounts for the rise is not said.
	burst = analyze.Phase{Name: "burst", Requests: 500, ClientE2E: d(500, 5000, 4900, 5100), Model: d(5, 1200, 0, 0), Queue: d(500, 3700, 3600, 3800)}
	got := phaseComparisons(&analyze.Result{Phases: []analyze.Phase{burst, steady}})
	want := "In the burst phase (n=500, window –), P95 client E2E is 5000.0 ms (n=500, 95% interval [4900.0, 5100.0] ms) against 1000.0 ms (n=500, 95% interval [950.0, 1050.0] ms) in steady state, +4000.0 ms; P95 model time is n too small (n=5) in the burst phase and 800.0 ms in steady state, so whether the model accounts for the rise is not said."
	if len(got) != 1 || got[0] != want {
		t.Errorf("burst finding:\n got %q\nwant %q", got, want)
	}
	// Intervals that overlap are said to.
	burst.ClientE2E, burst.Model = d(500, 1300, 1000, 1400), d(500, 810, 790, 830)
	got = phaseComparisons(&analyze.Result{Phases: []analyze.Phase{burst, steady}})
	if len(got) != 1 || !strings.Contains(got[0], "+300.0 ms (the two intervals overlap: the rise may be noise)") {
		t.Errorf("overlapping burst finding: %q", got)
	}
}

// A contract constraint whose percentile has too few samples is named with
// its n in the headline, never with a number.
func TestCaseHeadlineSmallSample(t *testing.T) {
	t.Parallel()
	v := 912.0
	k := func(title string, pct float64, n int64, verdict string) analyze.ConstraintResult {
		return analyze.ConstraintResult{Constraint: contract.Constraint{Kind: "latency", Metric: "client_ttft_ms", Percentile: pct, Op: "<=", Target: 800},
			Title: title, Unit: "ms", N: n, Value: &v, Verdict: verdict}
	}
	c := analyze.CaseResult{Name: "tail", Verdict: "incomplete", FirstFail: -1,
		Constraints: []analyze.ConstraintResult{k("client TTFT", 99, 60, "n too small"), k("client TTFT", 50, 60, "pass")}}
	want := "tail cannot be judged on every constraint: client TTFT P99 n too small (n=60); the others pass."
	if got := caseHeadline(c); got != want {
		t.Errorf("headline\n got %q\nwant %q", got, want)
	}
}

// Without a server log, application, queue and model are one component,
// upstream (not split): the headline names it, never network, the only
// component left split (the case of a report that read "spend the most
// time in network: 79.4 ms of 71,655.8 ms").
func TestHeadlineNotSplit(t *testing.T) {
	t.Parallel()
	p := func(v float64) *float64 { return &v }
	d := analyze.Dist{N: 400, P50: p(900), P95: p(60000)}
	r := &analyze.Result{
		Coverage: analyze.Coverage{Requests: 400, Client: 400, Gateway: 400},
		Slices: []analyze.Slice{{All: true, Label: "all requests", ClientE2E: d, E2ETailN: 20, E2ETailClientE2E: p(71655.8),
			E2E: []analyze.Component{
				{Name: "network", N: 400, TailN: 20, TailMean: p(79.4)},
				{Name: "application"}, {Name: "queue"}, {Name: "model"},
				{Name: "upstream (not split)", NotSplit: "application + queue + model", Missing: "server", N: 400, TailN: 20, TailMean: p(71576.4)},
			},
			ClientTTFT: d, TTFTTailN: 20, TTFTTailClientTTFT: p(3000),
			TTFT: []analyze.Component{
				{Name: "network"}, {Name: "application"}, {Name: "queue"}, {Name: "model"},
				{Name: "all (not split)", NotSplit: "network + application + queue + model", Missing: "server", N: 400, TailN: 20, TailMean: p(3000)},
			},
		}},
	}
	got := timeHeadlines(r)
	want := []string{
		"The slowest 5% of requests by client E2E (n=20) spend the most time in upstream (application + queue + model, not split without a server record): 71576.4 ms of 71655.8 ms on average.",
		"The slowest 5% by client TTFT (n=20) spend the most of it in all (network + application + queue + model, not split without a server record): 3000.0 ms of 3000.0 ms on average.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("headlines:\n got %q\nwant %q", got, want)
	}
	f := sliceFindings(&r.Slices[0])
	if s := strings.Join(f, "\n"); !strings.Contains(s, "spend the most time in upstream (application + queue + model, not split without a server record): mean over the slowest 5% 71576.4 ms of 71655.8 ms mean client E2E (network 79.4 ms (n=20), application – (n=0), queue – (n=0), model – (n=0), upstream (not split) 71576.4 ms (n=20)).") {
		t.Errorf("slice findings:\n%s", s)
	}
}

// A few requests of the slowest 5% that lack tiers do not make their time
// not split the component the tail spends the most time in: the tail of a
// complete store, with 5 of 469 requests known from the client alone, spends
// it in queue, though those 5 have the larger mean.
func TestHeadlineFewNotSplit(t *testing.T) {
	t.Parallel()
	p := func(v float64) *float64 { return &v }
	d := analyze.Dist{N: 9000, P50: p(1400), P95: p(12000)}
	r := &analyze.Result{
		Coverage: analyze.Coverage{Requests: 9000, Client: 9000, Gateway: 8900, Server: 8800},
		Slices: []analyze.Slice{{All: true, Label: "all requests", ClientE2E: d, E2ETailN: 469, E2ETailClientE2E: p(16235.4),
			E2E: []analyze.Component{
				{Name: "network", N: 8800, TailN: 460, TailMean: p(60)},
				{Name: "application", N: 8800, TailN: 460, TailMean: p(3)},
				{Name: "queue", N: 8800, TailN: 460, TailMean: p(12118.5)},
				{Name: "model", N: 8800, TailN: 460, TailMean: p(4000)},
				{Name: "all (not split)", NotSplit: "network + application + queue + model", Missing: "gateway and server", N: 90, TailN: 5, TailMean: p(15780.3)},
			},
		}},
	}
	got := timeHeadlines(r)
	want := "The slowest 5% of requests by client E2E (n=469) spend the most time in queue: 12118.5 ms of 16235.4 ms on average."
	if len(got) == 0 || got[0] != want {
		t.Errorf("headline:\n got %q\nwant %q", got, want)
	}
}

// A report by week opens with what compare found between the last two
// weeks (at most three findings), else says that nothing moved beyond the
// noise; with one week, nothing. A phase whose requests fall in separate
// stretches is told as so many, not as one window a week long.
func TestTrendAndEpisodeHeadlines(t *testing.T) {
	t.Parallel()
	p := func(v float64) *float64 { return &v }
	w1 := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	w2 := w1.AddDate(0, 0, 7)
	moved := wordingComparison(1000, true, true)
	found := CompareFindings(moved)
	if len(found) < 1 {
		t.Fatal("the wording comparison has no finding")
	}
	c := &compare.TrendComparison{Baseline: "week of 2026-11-23", Target: "week of 2026-11-30",
		Comparison: moved, Significant: 4, Compared: 120}
	if got := trendHeadlines(c); strings.Join(got, "|") != strings.Join(found[:min(3, len(found))], "|") {
		t.Errorf("trend headlines: %q, want the first three of %q", got, found)
	}
	c.Comparison, c.Significant = &compare.Comparison{}, 0
	if got := trendHeadlines(c); len(got) != 1 || got[0] != "Between the week of 2026-11-23 and the week of 2026-11-30, none of 120 percentiles changed beyond the noise (judged as compare judges two windows)." {
		t.Errorf("no change: %q", got)
	}
	if got := trendHeadlines(nil); got != nil {
		t.Errorf("one period: %q, want nothing", got)
	}

	d := func(n int64, p95 float64) analyze.Dist { return analyze.Dist{N: n, P50: p(p95 / 2), P95: p(p95)} }
	first, lastStart := w1.Add(10*time.Hour), w2.Add(10*time.Hour+90*time.Second)
	r := &analyze.Result{Phases: []analyze.Phase{
		{Name: "cold", Requests: 0},
		{Name: "burst", Requests: 1733, Episodes: 2, WindowFirst: &first, WindowLast: &lastStart,
			ClientE2E: d(1700, 18000), Model: d(1700, 3000), Queue: d(1700, 15000)},
		{Name: "steady", Requests: 8000, ClientE2E: d(8000, 4000), Model: d(8000, 2500), Queue: d(8000, 10)},
	}}
	h := phaseHeadlines(r)
	if len(h) < 1 || h[0] != "During the bursts (1733 requests, 2 separate ones, the first from 2026-11-23 10:00:00, the last to 2026-11-30 10:01:30 UTC), P95 client E2E is 18000.0 ms against 4000.0 ms in steady state." {
		t.Errorf("burst headline: %q", h)
	}
}

// summarizeFixture writes f into a temporary store, analyzes it and
// summarizes it by the columns by.
func summarizeFixture(t *testing.T, f analyzetest.Fixture, off analyzetest.Offsets, by []string) *analyze.Result {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	if err := analyzetest.Write(ctx, dir, f, off); err != nil {
		t.Fatal(err)
	}
	if _, err := analyze.Run(ctx, dir); err != nil {
		t.Fatal(err)
	}
	res, err := analyze.Summarize(ctx, dir, analyze.SummaryOptions{By: by})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// sliceIndex is the index in res.Slices of the slice labelled label.
func sliceIndex(t *testing.T, res *analyze.Result, label string) int {
	t.Helper()
	for i, s := range res.Slices {
		if s.Label == label {
			return i
		}
	}
	t.Fatalf("no slice %s", label)
	return -1
}
