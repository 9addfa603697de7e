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
