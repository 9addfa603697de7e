package whatif

import (
	"math"
	"testing"
)

// The fit finds the prompt and batch terms of prefills made exactly from
// them: (20 + 0.05·prompt)·(1 + 0.1·(batch − 1)), over prompts 100–1,000
// and batches 1–8, with r² 1; prefills that do not depend on the batch
// get a slope of 0, and one prompt length a per-token term of 0.
func TestFitPrefill(t *testing.T) {
	t.Parallel()
	var pts, flat, one []prefillPoint
	for i := range 80 {
		p, b := float64(100+(i*37)%900), float64(1+i%8)
		pts = append(pts, prefillPoint{y: (20 + 0.05*p) * (1 + 0.1*(b-1)), prompt: p, batch: b})
		flat = append(flat, prefillPoint{y: 20 + 0.05*p, prompt: p, batch: b})
		one = append(one, prefillPoint{y: 30 * (1 + 0.2*(b-1)), prompt: 500, batch: b})
	}
	for _, c := range []struct {
		name       string
		pts        []prefillPoint
		a, b, s, r float64
	}{{"prompt and batch", pts, 20, 0.05, 0.1, 1}, {"prompt alone", flat, 20, 0.05, 0, 1}, {"one prompt length", one, 30, 0, 0.2, 1}} {
		a, b, s, r2, ok := fitPrefill(c.pts)
		if !ok || math.Abs(a-c.a) > 1e-3 || math.Abs(b-c.b) > 1e-6 || math.Abs(s-c.s) > 1e-4 || math.Abs(r2-c.r) > 1e-6 {
			t.Errorf("%s: fit (%v + %v·prompt)·(1 + %v·(batch−1)), r² %v, ok %v; want (%v + %v·prompt)·(1 + %v·(batch−1)), r² %v",
				c.name, a, b, s, r2, ok, c.a, c.b, c.s, c.r)
		}
	}
	if _, _, _, _, ok := fitPrefill(pts[:MinFitRequests-1]); ok {
		t.Errorf("a fit on %d requests, fewer than %d", MinFitRequests-1, MinFitRequests)
	}
}

// A replica whose prefill is slowed by the batch: with PrefillSlope 0.5,
// B joins A (batch 2) and prefills 10 × 1.5 = 15 ms.
func TestReplayPrefillSlowdown(t *testing.T) {
	t.Parallel()
	out, err := Replay([]Replica{{Name: "r0", Slots: 2, PrefillSlope: 0.5}}, []Job{{Arrival: 0, PrefillMs: 100}, {Arrival: 5 * ms, PrefillMs: 10}}, RouteLeastLoaded)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "A ttft", out[0].TTFTMs, 100)
	near(t, "B ttft", out[1].TTFTMs, 15)
}
