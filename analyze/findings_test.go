package analyze

import (
	"strings"
	"testing"
	"time"
)

func TestFormatWindow(t *testing.T) {
	a := time.Date(2026, 3, 1, 23, 59, 59, 999_000_000, time.UTC)
	b := a.Add(1500 * time.Millisecond)
	if got, want := FormatWindow(&a, &a), "2026-03-01 23:59:59.999 – 23:59:59.999 UTC"; got != want {
		t.Errorf("same day: %q, want %q", got, want)
	}
	if got, want := FormatWindow(&a, &b), "2026-03-01 23:59:59.999 – 2026-03-02 00:00:01.499 UTC"; got != want {
		t.Errorf("across days: %q, want %q", got, want)
	}
	if got := FormatWindow(nil, &b); got != "–" {
		t.Errorf("empty window: %q", got)
	}
}

func TestPlural(t *testing.T) {
	if got := plural(1, "request is", "requests are"); got != "1 request is" {
		t.Error(got)
	}
	if got := plural(3, "request is", "requests are"); got != "3 requests are" {
		t.Error(got)
	}
}

func TestPhaseComparisons(t *testing.T) {
	p := func(v float64) *float64 { return &v }
	d := func(n int64, p95 float64) Dist { return Dist{N: n, P50: p(p95 / 2), P95: p(p95)} }
	steady := Phase{Name: "steady", Requests: 100, ClientE2E: d(100, 1000), Model: d(100, 800), Queue: d(100, 10), Network: d(100, 100), Application: d(100, 3)}
	burst := Phase{Name: "burst", Requests: 50, ClientE2E: d(50, 5000), Model: d(50, 1200), Queue: d(50, 3700), Network: d(50, 110), Application: d(50, 4)}
	cold := Phase{Name: "cold", Requests: 10, ClientE2E: d(10, 3000), Model: d(10, 2700), Queue: d(10, 20), Network: d(10, 100), Application: d(10, 3)}
	got := phaseComparisons(&Result{Phases: []Phase{cold, burst, steady}})
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
	if got := phaseComparisons(&Result{Phases: []Phase{burst, steady}}); len(got) != 0 {
		t.Errorf("small rise gave %q", got)
	}
}

// The headlines answer each question in short sentences from the figures:
// the tail's largest component, the burst and cold phases against steady
// state, the slowest slice and the cold replica, and the data's state.
func TestHeadlines(t *testing.T) {
	p := func(v float64) *float64 { return &v }
	d := func(n int64, p95 float64) Dist { return Dist{N: n, P50: p(p95 / 2), P95: p(p95)} }
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	later := at.Add(20 * time.Second)
	end := at.Add(50 * time.Second)
	comps := func(queue, model float64) []Component {
		return []Component{{Name: "network", TailMean: p(100), TailN: 5}, {Name: "queue", TailMean: p(queue), TailN: 5}, {Name: "model", TailMean: p(model), TailN: 5}}
	}
	r := &Result{
		Coverage:     Coverage{Requests: 200, Client: 190, Gateway: 195, Server: 190, AllTiers: 180},
		RejectsTotal: 7,
		Anomalous:    1,
		Slices: []Slice{
			{All: true, Label: "all requests", WindowFirst: &at, ClientE2E: d(190, 2000), E2ETailN: 10, E2ETailClientE2E: p(5000), E2E: comps(3000, 1900),
				TTFTTailN: 4, TTFTTailClientTTFT: p(800), TTFT: []Component{{Name: "queue", TailMean: p(700)}, {Name: "model", TailMean: p(90)}}},
			{Label: "model=a", ClientE2E: d(100, 1500), E2ETailN: 5, E2E: comps(100, 1300)},
			{Label: "model=b", ClientE2E: d(90, 4000), E2ETailN: 5, E2E: comps(3000, 900)},
			{Label: "model=c", ClientE2E: d(0, 0)},
		},
		Phases: []Phase{
			{Name: "cold", Requests: 10, WindowFirst: &later, WindowLast: &end, ClientE2E: d(10, 3000), Model: d(10, 2700), Queue: d(10, 20)},
			{Name: "burst", Requests: 50, WindowFirst: &later, WindowLast: &end, ClientE2E: d(50, 5000), Model: d(50, 1200), Queue: d(50, 3700), Network: d(50, 110), Application: d(50, 4)},
			{Name: "steady", Requests: 140, ClientE2E: d(140, 1000), Model: d(140, 800), Queue: d(140, 10), Network: d(140, 100), Application: d(140, 3)},
		},
		Replicas: []Replica{
			{Replica: "r-0", Model: "a", FirstStart: &at, ModelPerToken: [2]*float64{p(5), p(6)}},
			{Replica: "r-1", Model: "a", FirstStart: &later, Cold: 10, ModelPerToken: [2]*float64{p(9), p(12)}},
		},
	}
	r.Slices[3].ClientE2E.P95 = nil
	want := []Headline{
		{HeadlineTime, "The slowest 5% of requests by client E2E (n=10) spend the most time in queue: 3000.0 ms of 5000.0 ms on average."},
		{HeadlineTime, "The slowest 5% by client TTFT (n=4) spend the most of it in queue: 700.0 ms of 800.0 ms on average."},
		{HeadlineTime, "Per slice, the slowest 5% spend the most time in model in 1 of 2 slices, in queue in 1 (model=b)."},
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
	got := headlines(r)
	if len(got) != len(want) {
		t.Fatalf("got %d headlines, want %d:\n%q", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("headline %d:\n got %q\nwant %q", i, got[i], want[i])
		}
	}

	// No phases, one tier, nothing rejected.
	r = &Result{Coverage: Coverage{Requests: 5, Server: 5}, Slices: []Slice{{All: true, Label: "all requests"}}}
	got = headlines(r)
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
