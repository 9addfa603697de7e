package analyze

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/infertrace/infertrace/analyze/analyzetest"
)

// failuresFixture is twelve client records in two use cases: six
// successes, five failures that end fast (a 500, a 429, a 500, a 499 and
// an error logged without a status, AIPerf's way) and one completed
// request whose client left while its server ran on (aborted, status 200).
//
//	use case a: 200 ×4 (100, 200, 300, 400 ms), 500 (5 ms), 429 (2 ms)
//	use case b: 200 ×2 (1000, 2000 ms), 500 (8 ms), 499 (50 ms),
//	            error "timeout" (30 ms), 200 aborted (100 ms; server 300 ms)
func failuresFixture() analyzetest.Fixture {
	var f analyzetest.Fixture
	add := func(id, uc string, e2e int64, status *int, errText string) {
		start := int64(len(f.Clients)+1) * 3000
		f.Clients = append(f.Clients, analyzetest.Client{
			ID: id, Start: analyzetest.At(start), End: analyzetest.At(start + e2e),
			Status: status, Error: errText, Streamed: analyzetest.Bool(false), Model: "m", UseCase: uc,
			Output: analyzetest.Int(10), Line: len(f.Clients) + 1,
		})
	}
	for i, e2e := range []int64{100, 200, 300, 400} {
		add(fmt.Sprintf("a-ok-%d", i), "a", e2e, analyzetest.Int(200), "")
	}
	add("a-500", "a", 5, analyzetest.Int(500), "")
	add("a-429", "a", 2, analyzetest.Int(429), "")
	add("b-ok-0", "b", 1000, analyzetest.Int(200), "")
	add("b-ok-1", "b", 2000, analyzetest.Int(200), "")
	add("b-500", "b", 8, analyzetest.Int(500), "")
	add("b-499", "b", 50, analyzetest.Int(499), "")
	add("b-err", "b", 30, nil, "timeout")
	add("b-left", "b", 100, analyzetest.Int(200), "")
	// The server of b-left ran 300 ms, 200 ms after its client had gone.
	start := int64(len(f.Clients)) * 3000
	f.Servers = append(f.Servers, analyzetest.Server{
		ID: "b-left", Arrival: analyzetest.At(start + 1), Scheduled: analyzetest.At(start + 2),
		FirstToken: analyzetest.At(start + 50), End: analyzetest.At(start + 301),
		Model: "m", Replica: "r0", Output: analyzetest.Int(10), Line: 1,
	})
	return f
}

// The latency percentiles are over the six successful requests only; the
// failures are counted per slice and by status, with their own E2E.
func TestSummarizeFailures(t *testing.T) {
	t.Parallel()
	res := summarize(t, failuresFixture())

	all := findSlice(t, res, "all requests")
	a := findSlice(t, res, "model=m, use_case=a")
	b := findSlice(t, res, "model=m, use_case=b")
	// {100, 200, 300, 400, 1000, 2000}: pos = 5q, so P50 = 350, P90 =
	// 1000 + 0.5·1000, P95 = 1000 + 0.75·1000, P99 = 1000 + 0.95·1000.
	// With the failures' 2..100 ms the P50 would be 100.
	checkDist(t, "all client E2E", all.ClientE2E, 6, 350, 1500, 1750, 1950)
	if a.ClientE2E.N != 4 || !near(a.ClientE2E.P50, 250) {
		t.Errorf("a: client E2E n %d P50 %s, want n 4 P50 250", a.ClientE2E.N, fmtp(a.ClientE2E.P50))
	}
	if b.ClientE2E.N != 2 || !near(b.ClientE2E.P50, 1500) {
		t.Errorf("b: client E2E n %d P50 %s, want n 2 P50 1500", b.ClientE2E.N, fmtp(b.ClientE2E.P50))
	}
	// b-left's server E2E (300 ms) is no sample: server E2E has none.
	if all.ServerE2E.N != 0 || all.E2E[2].N != 0 {
		t.Errorf("all: server E2E n %d, queue n %d; want 0 (the only server record is of an aborted request)", all.ServerE2E.N, all.E2E[2].N)
	}

	for _, c := range []struct {
		s                          Slice
		requests, failed, succeded int64
		failures                   []OutcomeCount
	}{
		{all, 12, 5, 6, []OutcomeCount{{"500", 2}, {"429", 1}, {"499", 1}, {"error", 1}}},
		{a, 6, 2, 4, []OutcomeCount{{"429", 1}, {"500", 1}}},
		{b, 6, 3, 2, []OutcomeCount{{"499", 1}, {"500", 1}, {"error", 1}}},
	} {
		if c.s.Requests != c.requests || c.s.Failed != c.failed || c.s.Succeeded != c.succeded || !reflect.DeepEqual(c.s.Failures, c.failures) {
			t.Errorf("%s: requests %d, failed %d, succeeded %d, failures %v; want %d, %d, %d, %v",
				c.s.Label, c.s.Requests, c.s.Failed, c.s.Succeeded, c.s.Failures, c.requests, c.failed, c.succeded, c.failures)
		}
	}

	// The failures' own figures: failed outcomes first, most first.
	want := []struct {
		outcome  string
		failed   bool
		requests int64
		p50      float64
	}{
		{"500", true, 2, 6.5}, {"429", true, 1, 2}, {"499", true, 1, 50}, {"error", true, 1, 30}, {"aborted", false, 1, 100},
	}
	if len(res.Failures) != len(want) {
		t.Fatalf("failures = %+v, want %d outcomes", res.Failures, len(want))
	}
	for i, w := range want {
		g := res.Failures[i]
		if g.Outcome != w.outcome || g.Failed != w.failed || g.Requests != w.requests || g.ClientE2E.N != w.requests || !near(g.ClientE2E.P50, w.p50) {
			t.Errorf("failures[%d] = %s failed %v n %d, client E2E n %d P50 %s; want %s %v %d, P50 %v",
				i, g.Outcome, g.Failed, g.Requests, g.ClientE2E.N, fmtp(g.ClientE2E.P50), w.outcome, w.failed, w.requests, w.p50)
		}
	}

	// The Summary's sentence: the error rate with its counts by status
	// (each slice's error rate is the summary table's Failed column).
	var got []string
	for _, h := range said(res).Headlines {
		if h.Topic == "Failed requests" {
			got = append(got, h.Text)
		}
	}
	wantH := []string{
		"41.7% failed (5 of 12: 500 ×2, 429 ×1, 499 ×1, error, no status ×1); latency percentiles are over the 6 successful requests (1 aborted left out).",
	}
	if !reflect.DeepEqual(got, wantH) {
		t.Errorf("failure headlines:\n%q\nwant\n%q", got, wantH)
	}

	// Phases and time series count the same six samples.
	var phaseN, seriesN, seriesRequests int64
	for _, p := range res.Phases {
		phaseN += p.ClientE2E.N
	}
	for _, w := range res.TimeSeries {
		seriesN += w.ClientE2EN
		seriesRequests += w.Requests
	}
	if phaseN != 6 || seriesN != 6 || seriesRequests != 12 {
		t.Errorf("phases client E2E n %d, time series n %d of %d requests; want 6, 6 of 12", phaseN, seriesN, seriesRequests)
	}
}
