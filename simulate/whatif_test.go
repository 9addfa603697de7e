package simulate

import (
	"context"
	"path/filepath"
	"testing"
)

// FixedTraffic: two runs of one seed that differ only in the pool (more
// slots, one more replica of a model) serve the same requests — the same
// IDs, client starts, models and tokens — while their queues differ;
// without it the change to the pool changes the requests too.
func TestFixedTrafficSameRequests(t *testing.T) {
	t.Parallel()
	run := func(name string, fixed bool, edit func(*Config)) map[string]TruthRow {
		cfg := DefaultConfig()
		cfg.Out = filepath.Join(t.TempDir(), name)
		cfg.Requests = 800
		cfg.FixedTraffic = fixed
		edit(&cfg)
		if _, err := Run(context.Background(), cfg, nil); err != nil {
			t.Fatal(err)
		}
		out := map[string]TruthRow{}
		for _, r := range readTruth(t, cfg.Out) {
			out[r.RequestID] = r
		}
		return out
	}
	same := func(a, b map[string]TruthRow) (requests, queues bool) {
		requests, queues = len(a) == len(b), true
		for id, x := range a {
			y, ok := b[id]
			if !ok || !x.ClientStart.Equal(y.ClientStart) || x.Model != y.Model || x.PromptTokens != y.PromptTokens || x.OutputTokens != y.OutputTokens {
				requests = false
				continue
			}
			if (x.QueueMs == nil) != (y.QueueMs == nil) || x.QueueMs != nil && *x.QueueMs != *y.QueueMs {
				queues = false
			}
		}
		return requests, queues
	}
	base := run("base", true, func(*Config) {})
	for name, edit := range map[string]func(*Config){
		"slots":   func(c *Config) { c.MaxBatch = 4 },
		"replica": func(c *Config) { c.ModelReplicas = map[string]int{"llama-3.1-70b": 3} },
	} {
		requests, queues := same(base, run(name, true, edit))
		if !requests {
			t.Errorf("%s: FixedTraffic run serves other requests than the base run", name)
		}
		if queues {
			t.Errorf("%s: the changed pool queued exactly as the base: the change did nothing", name)
		}
	}
	if requests, _ := same(run("base1", false, func(*Config) {}), run("slots1", false, func(c *Config) { c.MaxBatch = 4 })); requests {
		t.Error("without FixedTraffic a change of the pool left the requests as they were: the test cannot tell")
	}
	if _, err := Run(context.Background(), Config{Out: t.TempDir(), Requests: 1, RatePerSecond: 1, BurstMultiplier: 1, ReplicasPerModel: 1, MaxBatch: 1,
		ClientTimeout: 1, ModelReplicas: map[string]int{"no-such-model": 2}}, nil); err == nil {
		t.Error("ModelReplicas naming no model gave no error")
	}
}

// Config.Routing and Config.PrefillBatchSlope, the pools a what-if is
// checked against: round robin spreads each model's requests over its
// replicas in turn (counts within one of each other), where least loaded
// at a light load sends more to the first replica (ties to the first);
// prefill slowed by the batch makes the model's time to first token
// longer on the same requests; an unknown policy is an error.
func TestWhatIfRoutingAndPrefillSlope(t *testing.T) {
	t.Parallel()
	run := func(edit func(*Config)) []TruthRow {
		cfg := DefaultConfig()
		cfg.Out = t.TempDir()
		cfg.Requests = 600
		cfg.RatePerSecond, cfg.BurstMultiplier, cfg.ColdKinds = 4, 1, nil
		cfg.FixedTraffic = true
		edit(&cfg)
		if _, err := Run(context.Background(), cfg, nil); err != nil {
			t.Fatal(err)
		}
		return readTruth(t, cfg.Out)
	}
	perReplica := func(rows []TruthRow) map[string]int {
		n := map[string]int{}
		for _, r := range rows {
			if r.Replica != "" {
				n[r.Replica]++
			}
		}
		return n
	}
	rr := perReplica(run(func(c *Config) { c.Routing = RouteRoundRobin }))
	ll := perReplica(run(func(*Config) {}))
	for _, m := range ModelNames() {
		a, b := rr[m+"-0"], rr[m+"-1"]
		if a == 0 || b == 0 || a-b > 1 || b-a > 1 {
			t.Errorf("round robin: %s's replicas served %d and %d requests, want within one", m, a, b)
		}
		if x, y := ll[m+"-0"], ll[m+"-1"]; x < y+10 {
			t.Errorf("least loaded at a light load: %s's replicas served %d and %d, want more on the first", m, x, y)
		}
	}
	meanPrefill := func(rows []TruthRow) float64 {
		sum, n := 0.0, 0
		for _, r := range rows {
			if r.TTFTModelMs != nil {
				sum += *r.TTFTModelMs
				n++
			}
		}
		return sum / float64(n)
	}
	flat := meanPrefill(run(func(c *Config) { c.MaxBatch = 4 }))
	slowed := meanPrefill(run(func(c *Config) { c.MaxBatch, c.PrefillBatchSlope = 4, 0.5 }))
	if slowed < 1.1*flat {
		t.Errorf("mean prefill %.1f ms with PrefillBatchSlope 0.5, %.1f ms without: want it longer", slowed, flat)
	}
	if _, err := Run(context.Background(), Config{Out: t.TempDir(), Requests: 1, RatePerSecond: 1, BurstMultiplier: 1, ReplicasPerModel: 1, MaxBatch: 1,
		ClientTimeout: 1, Routing: "fastest"}, nil); err == nil {
		t.Error("Routing naming no policy gave no error")
	}
}
