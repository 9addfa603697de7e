package analyze

import (
	"fmt"
	"testing"

	"github.com/infertrace/infertrace/analyze/analyzetest"
)

func checkInterval(t *testing.T, what string, got Interval, lo, hi *float64) {
	t.Helper()
	same := func(a, b *float64) bool { return a == nil && b == nil || a != nil && b != nil && near(a, *b) }
	if !same(got.Lo, lo) || !same(got.Hi, hi) {
		t.Errorf("%s interval = [%s, %s], want [%s, %s]", what, fmtp(got.Lo), fmtp(got.Hi), fmtp(lo), fmtp(hi))
	}
}

func f64(v float64) *float64 { return &v }

// The percentile intervals of the slice and phase tables are the order
// statistics of ranks floor(nq ∓ 1.96 √(nq(1−q))) (+1 above), and a
// percentile from fewer than 1/(1 − q) samples is too small.
func TestPercentileIntervals(t *testing.T) {
	var f analyzetest.Fixture
	add := func(id string, i int64, e2e int64, uc string) {
		f.Clients = append(f.Clients, analyzetest.Client{
			ID: id, Start: analyzetest.At(i * 1000), End: analyzetest.At(i*1000 + e2e),
			Status: analyzetest.Int(200), Streamed: analyzetest.Bool(false), Model: "m", UseCase: uc,
			Output: analyzetest.Int(10), Line: int(i),
		})
	}
	// use_case a: client E2E 1..200 ms; b: 1001..1010 ms.
	for i := int64(1); i <= 200; i++ {
		add(fmt.Sprintf("a%03d", i), i, i, "a")
	}
	for i := int64(1); i <= 10; i++ {
		add(fmt.Sprintf("b%03d", i), 200+i, 1000+i, "b")
	}
	res := summarize(t, f, "use_case")

	// a, n = 200. P95: 190 ∓ 1.959964·√9.5 = 190 ∓ 6.041 → ranks 183 and
	// 197 + 1 (P90 = 180.1 is the threshold: rank 181 = ceil(0.9·199) + 1
	// is below 183). P99: 198 ∓ 2.758 → rank 195 and 201 + 1 > n, open.
	a := findSlice(t, res, "use_case=a").ClientE2E
	checkInterval(t, "a P95", a.P95CI, f64(183), f64(198))
	checkInterval(t, "a P99", a.P99CI, f64(195), nil)
	if a.Small != [4]bool{} {
		t.Errorf("a small = %v, want none", a.Small)
	}
	// b, n = 10: P95 and P99 too small, P90 (needs 10) and P50 not.
	b := findSlice(t, res, "use_case=b").ClientE2E
	if b.Small != [4]bool{false, false, true, true} || b.P95CI.Lo != nil || b.P99CI.Lo != nil {
		t.Errorf("b small = %v, P95 %+v, P99 %+v; want P95 and P99 too small, no intervals", b.Small, b.P95CI, b.P99CI)
	}
	// All requests, n = 210: 1..200, 1001..1010. P95: 199.5 ∓ 6.190 →
	// ranks 193 and 206 + 1 (value 1007); P99: 207.9 ∓ 2.826 → rank 205
	// (value 1005), open above.
	all := res.Slices[0].ClientE2E
	checkInterval(t, "all P95", all.P95CI, f64(193), f64(1007))
	checkInterval(t, "all P99", all.P99CI, f64(1005), nil)
	// Every request is steady: the same samples as all requests.
	for _, p := range res.Phases {
		if p.Name == "steady" {
			checkInterval(t, "steady P95", p.ClientE2E.P95CI, f64(193), f64(1007))
			checkInterval(t, "steady P99", p.ClientE2E.P99CI, f64(1005), nil)
		} else if p.ClientE2E.N != 0 || p.ClientE2E.Small != [4]bool{true, true, true, true} {
			t.Errorf("%s: client E2E %+v, want no samples, every percentile too small", p.Name, p.ClientE2E)
		}
	}
}

// The component P50/P95 of the attribution tables follow the same rules:
// queue and TTFT queue of use case a (1..200 ms, n = 200) have the P95
// interval [x(183), x(198)] = [183, 198] ms; those of use case b (n = 10)
// are too small; model (10 ms each) has its interval from its own samples.
func TestComponentIntervals(t *testing.T) {
	var f analyzetest.Fixture
	add := func(id string, i, queue int64, uc string) {
		start := i * 10000
		f.Clients = append(f.Clients, analyzetest.Client{
			ID: id, Start: analyzetest.At(start), FirstToken: analyzetest.At(start + queue + 5),
			End: analyzetest.At(start + queue + 10), Status: analyzetest.Int(200), Streamed: analyzetest.Bool(true),
			Model: "m", UseCase: uc, Output: analyzetest.Int(10), Line: int(i),
		})
		f.Servers = append(f.Servers, analyzetest.Server{
			ID: id, Arrival: analyzetest.At(start), Scheduled: analyzetest.At(start + queue),
			FirstToken: analyzetest.At(start + queue + 5), End: analyzetest.At(start + queue + 10),
			Model: "m", Replica: "r1", Output: analyzetest.Int(10), Status: analyzetest.Int(200), Line: int(i),
		})
	}
	for i := int64(1); i <= 200; i++ {
		add(fmt.Sprintf("a%03d", i), i, i, "a")
	}
	for i := int64(1); i <= 10; i++ {
		add(fmt.Sprintf("b%03d", i), 200+i, 1000+i, "b")
	}
	res := summarize(t, f, "use_case")
	comp := func(cs []Component, name string) Component {
		for _, c := range cs {
			if c.Name == name {
				return c
			}
		}
		t.Fatalf("no component %q in %+v", name, cs)
		return Component{}
	}
	a := findSlice(t, res, "use_case=a")
	for _, c := range []Component{comp(a.E2E, "queue"), comp(a.TTFT, "queue")} {
		if c.N != 200 || !near(c.P95, 190.05) || c.Small != [2]bool{} {
			t.Errorf("a %s: n %d P95 %s small %v, want n 200, P95 190.05, none small", c.Column, c.N, fmtp(c.P95), c.Small)
		}
		checkInterval(t, "a "+c.Column+" P95", c.P95CI, f64(183), f64(198))
	}
	// Model time is 10 ms for every request: both bounds are 10 ms.
	checkInterval(t, "a model P95", comp(a.E2E, "model").P95CI, f64(10), f64(10))
	b := findSlice(t, res, "use_case=b")
	for _, c := range []Component{comp(b.E2E, "queue"), comp(b.TTFT, "queue")} {
		if c.N != 10 || c.Small != [2]bool{false, true} || c.P95CI.Lo != nil || c.P95CI.Hi != nil {
			t.Errorf("b %s: n %d small %v interval %+v, want n 10, P95 too small, no interval", c.Column, c.N, c.Small, c.P95CI)
		}
	}
	// All requests: queue 1..200 and 1001..1010, n = 210: ranks 193 and
	// 207 (see TestPercentileIntervals) are 193 and 1007 ms.
	all := res.Slices[0]
	checkInterval(t, "all queue P95", comp(all.E2E, "queue").P95CI, f64(193), f64(1007))
	checkInterval(t, "all ttft queue P95", comp(all.TTFT, "queue").P95CI, f64(193), f64(1007))
	// No gateway: no network component, every percentile too small.
	if c := comp(all.E2E, "network"); c.N != 0 || c.Small != [2]bool{true, true} {
		t.Errorf("all network: n %d small %v, want no samples, both too small", c.N, c.Small)
	}
}

// The time series' P95s carry their intervals too: 200 requests start in
// the first second (client E2E 1..200 ms: P95 interval [183, 198]), none
// in the next, 5 in the third (P95 from n = 5 is too small).
func TestTimeSeriesIntervals(t *testing.T) {
	var f analyzetest.Fixture
	add := func(id string, start, e2e int64, line int) {
		f.Clients = append(f.Clients, analyzetest.Client{
			ID: id, Start: analyzetest.At(start), End: analyzetest.At(start + e2e),
			Status: analyzetest.Int(200), Streamed: analyzetest.Bool(false), Model: "m", UseCase: "u",
			Output: analyzetest.Int(10), Line: line,
		})
		f.Servers = append(f.Servers, analyzetest.Server{
			ID: id, Arrival: analyzetest.At(start), Scheduled: analyzetest.At(start + e2e - 1),
			End: analyzetest.At(start + e2e), Model: "m", Replica: "r1", Output: analyzetest.Int(10),
			Status: analyzetest.Int(200), Line: line,
		})
	}
	for k := int64(0); k < 200; k++ {
		add(fmt.Sprintf("a%03d", k), k*5, k+1, int(k)+1)
	}
	for k := int64(0); k < 5; k++ {
		add(fmt.Sprintf("b%03d", k), 2000+k, 1000+k, 201+int(k))
	}
	res := summarize(t, f)
	if len(res.TimeSeries) != 3 || res.TimeSeries[0].WidthS != 1 {
		t.Fatalf("time series %+v, want 3 windows of 1 s", res.TimeSeries)
	}
	w0, w1, w2 := res.TimeSeries[0], res.TimeSeries[1], res.TimeSeries[2]
	if w0.ClientE2EN != 200 || w0.ClientE2ESmall {
		t.Errorf("window 0: client E2E n %d small %v, want 200, not small", w0.ClientE2EN, w0.ClientE2ESmall)
	}
	checkInterval(t, "window 0 client E2E P95", w0.ClientE2ECI, f64(183), f64(198))
	// Queue = E2E − 1 ms: 0..199, so the bounds are one less.
	checkInterval(t, "window 0 queue P95", w0.QueueCI, f64(182), f64(197))
	checkInterval(t, "window 0 model P95", w0.ModelCI, f64(1), f64(1))
	if w1.ClientE2EN != 0 || !w1.ClientE2ESmall || !w1.QueueSmall || !w1.ModelSmall {
		t.Errorf("window 1: %+v, want no samples, every P95 too small", w1)
	}
	if w2.ClientE2EN != 5 || !w2.ClientE2ESmall || !w2.QueueSmall || w2.ClientE2ECI.Lo != nil || w2.ClientE2ECI.Hi != nil {
		t.Errorf("window 2: %+v, want n 5, P95 too small, no interval", w2)
	}
}
