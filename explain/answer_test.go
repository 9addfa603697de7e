package explain

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/infertrace/infertrace/analyze/analyzetest"
)

func fp(v float64) *float64 { return &v }

// The noise rule by hand: threshold = max(P95 + max(1 ms, 5% of P95), the
// upper bound of P95's interval when closed).
func TestAboveP95Noise(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v, p95 float64
		hi     *float64
		want   bool
	}{
		{2.8, 2.7, nil, false},        // 0.1 ms over: within the 1 ms floor (threshold 3.7)
		{2.8, 2.7, fp(2.75), false},   // above the interval's bound, still within the floor
		{3.8, 2.7, nil, true},         // 1.1 ms over a P95 of 2.7 ms
		{1040, 1000, nil, false},      // within 5% (threshold 1050)
		{1051, 1000, nil, true},       // beyond 5%, no closed bound
		{1100, 1000, fp(1200), false}, // beyond 5%, within the interval (threshold 1200)
		{1250, 1000, fp(1200), true},  // beyond both
		{2410, 2000, fp(2100), true},  // a clear excess
		{-1.5, -2, nil, false},        // threshold −1.0
		{-0.9, -2, nil, true},
	} {
		if got := AboveP95(tc.v, tc.p95, tc.hi); got != tc.want {
			t.Errorf("AboveP95(%v, %v, %v) = %v, want %v", tc.v, tc.p95, fmtp(tc.hi), got, tc.want)
		}
	}
}

// tail200: 200 client-only requests of one slice, c-000 … c-199, client
// E2E 100 ms for the first 190 and 1000, 1010, …, 1090 ms for the last ten
// (sorted as the IDs). P95: pos = 199 × 0.95 = 189.05, x(190) + 0.05
// (x(191) − x(190)) = 100 + 0.05 × 900 = 145 ms; its interval's upper bound
// is x(pct_hi_rank(200, 0.95)) = x(ceil(190 + 1.959964 √9.5) + 1) =
// x(197 + 1) = x(198) = 1070 ms. So 1060 ms (c-196) is far beyond the
// floor (145 + 7.25) but within the noise of P95; 1080 ms (c-198) is not.
func tail200() analyzetest.Fixture {
	var f analyzetest.Fixture
	for i := int64(0); i < 200; i++ {
		v := int64(100)
		if i >= 190 {
			v = 1000 + 10*(i-190)
		}
		f.Clients = append(f.Clients, analyzetest.Client{ID: fmt.Sprintf("c-%03d", i), Start: analyzetest.At(i * 2000),
			End: analyzetest.At(i*2000 + v), Status: analyzetest.Int(200), Streamed: analyzetest.Bool(false),
			Model: "m", UseCase: "chat", Line: int(i + 1)})
	}
	return f
}

func TestExplainAboveP95Interval(t *testing.T) {
	t.Parallel()
	dir, _, _ := runFixture(t, tail200(), analyzetest.DefaultOffsets)
	ex, err := Run(context.Background(), dir, Options{IDs: []string{"c-196", "c-198", "c-100"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Requests) != 3 {
		t.Fatalf("%d requests, want 3", len(ex.Requests))
	}
	for i, want := range []struct {
		v     float64
		above bool
	}{{1060, false}, {1080, true}, {100, false}} {
		c := explainComponent(t, ex.Requests[i], "client_e2e")
		if !nearTol(c.Value, want.v, 1e-6) || !nearTol(c.SliceP95, 145, 1e-6) || !nearTol(c.SliceP95Hi, 1070, 1e-6) || c.SliceN != 200 {
			t.Errorf("%s: value %s, P95 %s, its bound %s, n %d; want %v, 145, 1070, 200",
				ex.Requests[i].RequestID, fmtp(c.Value), fmtp(c.SliceP95), fmtp(c.SliceP95Hi), c.SliceN, want.v)
		}
		if c.AboveP95 != want.above {
			t.Errorf("%s: above P95 %v, want %v", ex.Requests[i].RequestID, c.AboveP95, want.above)
		}
	}
}

// The answer of the standard fixture's requests, by hand:
//
//	r1 all tiers: client E2E 1300 = network 20 + application 20 + queue
//	   50 + model 1210 (prefill 200, decode 1010): model, 1210/1300;
//	   client TTFT 300 = network 35 + application 15 + queue 50 + model
//	   200: TTFT model, 200/300.
//	r4 no server record: client E2E 1000 = network 20 + upstream 980
//	   (not split): upstream, 980/1000; client TTFT 400, all not split.
//	r5 no client record: gateway E2E 910 = application 20 + queue 100 +
//	   model 790: model, 790/910; client TTFT unknown, its known parts
//	   queue 100 and model 100 (the first of equals: queue).
func TestExplainAnswer(t *testing.T) {
	t.Parallel()
	dir, _, _ := runFixture(t, analyzetest.Standard(), analyzetest.DefaultOffsets)
	ex, err := Run(context.Background(), dir, Options{IDs: []string{"r1", "r4", "r5"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Requests) != 3 {
		t.Fatalf("%d requests, want 3", len(ex.Requests))
	}
	type want struct {
		total     string
		totalMs   *float64
		top       string
		topMs     float64
		share     float64
		unknownMs float64
		unknown   []string
	}
	check := func(id, what string, b *Breakdown, w want) {
		t.Helper()
		if b == nil {
			t.Errorf("%s %s: none", id, what)
			return
		}
		ok := b.Total == w.total && b.Top.Metric == w.top && math.Abs(b.Top.Ms-w.topMs) < 1e-6 &&
			math.Abs(b.Share-w.share) < 1e-9 && math.Abs(b.UnknownMs-w.unknownMs) < 1e-6 && slices.Equal(b.Unknown, w.unknown)
		if w.totalMs == nil {
			ok = ok && b.TotalMs == nil
		} else {
			ok = ok && nearTol(b.TotalMs, *w.totalMs, 1e-6)
		}
		if !ok {
			t.Errorf("%s %s: %s %s, top %s %v (share %v), unknown %v %v; want %+v", id, what, b.Total, fmtp(b.TotalMs),
				b.Top.Metric, b.Top.Ms, b.Share, b.UnknownMs, b.Unknown, w)
		}
	}
	r1, r4, r5 := ex.Requests[0].Answer, ex.Requests[1].Answer, ex.Requests[2].Answer
	check("r1", "E2E", &r1.E2E, want{"client_e2e", fp(1300), "model", 1210, 1210.0 / 1300, 0, nil})
	if r1.E2E.Sub == nil || r1.E2E.Sub.Metric != "decode" || math.Abs(r1.E2E.Sub.Ms-1010) > 1e-6 {
		t.Errorf("r1: model's larger part %+v, want decode 1010", r1.E2E.Sub)
	}
	check("r1", "TTFT", r1.TTFT, want{"client_ttft", fp(300), "ttft_model", 200, 200.0 / 300, 0, nil})
	check("r4", "E2E", &r4.E2E, want{"client_e2e", fp(1000), "upstream", 980, 0.98, 0, nil})
	if r4.E2E.Sub != nil {
		t.Errorf("r4: a part of model %+v without model as its largest part", r4.E2E.Sub)
	}
	check("r4", "TTFT", r4.TTFT, want{"client_ttft", fp(400), "ttft_unsplit", 400, 1, 0, nil})
	check("r5", "E2E", &r5.E2E, want{"gateway_e2e", fp(910), "model", 790, 790.0 / 910, 0, nil})
	check("r5", "TTFT", r5.TTFT, want{"client_ttft", nil, "ttft_queue", 100, 0, 0, []string{"ttft_network"}})
}

// A missing tier's time stays unknown: with network and application NULL
// (an aborted request), 26300 ms of client E2E with queue 15500 and model
// 3000 leaves 7800 ms unknown, and queue is still the largest part (59%);
// with queue 2000 and model 1000 of 10000, the 7000 ms unknown outweighs
// every known part, so none may be said to dominate.
func TestAnswerUnknown(t *testing.T) {
	t.Parallel()
	a := answer(map[string]*float64{"client_e2e": fp(26300), "queue": fp(15500), "model": fp(3000), "decode": fp(2900), "ttft_queue": fp(15500)}, false)
	e := a.E2E
	if e.Top.Metric != "queue" || math.Abs(e.Share-15500.0/26300) > 1e-12 || e.UnknownMs != 7800 ||
		!slices.Equal(e.Unknown, []string{"network", "application"}) || !e.Gap() || e.UnknownLargest() || e.Sub != nil {
		t.Errorf("answer %+v", e)
	}
	if a.TTFT != nil {
		t.Errorf("a TTFT answer %+v of a response not streamed, without a client TTFT", a.TTFT)
	}
	e = answer(map[string]*float64{"client_e2e": fp(10000), "queue": fp(2000), "model": fp(1000)}, true).E2E
	if e.Top.Metric != "queue" || e.UnknownMs != 7000 || !e.UnknownLargest() {
		t.Errorf("answer %+v: want queue top, 7000 unknown and larger", e)
	}
	// Within 1 ms of the total, the parts hold it all.
	e = answer(map[string]*float64{"client_e2e": fp(1000.5), "network": fp(0), "application": fp(0.5), "queue": fp(0), "model": fp(999.5)}, true).E2E
	if e.Gap() || e.Top.Metric != "model" || len(e.Unknown) != 0 {
		t.Errorf("answer %+v: want model, no gap", e)
	}
}

// Nothing is above a P95 from too few samples: r2's client E2E, 2600 ms,
// is far above its slice's P95 (m1 chat: 800, 1000, 1300, 2600 ms; pos =
// 3 × 0.95 = 2.85, 1300 + 0.85 × 1300 = 2405 ms; the floor makes 2525),
// but that P95 rests on 4 samples.
func TestExplainAboveP95Small(t *testing.T) {
	t.Parallel()
	dir, _, _ := runFixture(t, analyzetest.Standard(), analyzetest.DefaultOffsets)
	ex, err := Run(context.Background(), dir, Options{IDs: []string{"r2"}})
	if err != nil {
		t.Fatal(err)
	}
	c := explainComponent(t, ex.Requests[0], "client_e2e")
	if !nearTol(c.Value, 2600, 1e-6) || !nearTol(c.SliceP95, 2405, 1e-6) || !c.SliceSmall[1] || c.SliceP95Hi != nil {
		t.Fatalf("client_e2e %s, P95 %s (small %v), its bound %s; want 2600, 2405 (small), none", fmtp(c.Value), fmtp(c.SliceP95), c.SliceSmall[1], fmtp(c.SliceP95Hi))
	}
	if !AboveP95(*c.Value, *c.SliceP95, nil) || c.AboveP95 {
		t.Errorf("above P95 %v: want the rule to hold and the small slice to stop it", c.AboveP95)
	}
}
