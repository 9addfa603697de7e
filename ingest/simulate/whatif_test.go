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
