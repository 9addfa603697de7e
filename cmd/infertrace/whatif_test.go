package main

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/infertrace/infertrace/analyze/whatif"
	"github.com/infertrace/infertrace/ingest/simulate"
)

// whatifConfig is the stack the what-if validation replays: queueing that
// matters (3 slots per replica, llama-3.1-70b at about 60% of its
// capacity, 90% at 1.5× the traffic), the late replica warming up, no
// burst (--traffic plays a burst faster, so shorter: see README), no gateway
// rate limit (a limit in front of the servers is outside the pool's
// model), and FixedTraffic, so that a rerun with a changed pool serves the
// same requests.
func whatifConfig(out string) simulate.Config {
	cfg := simulate.DefaultConfig()
	cfg.Out = out
	cfg.Seed = 11
	cfg.Requests = 20000
	cfg.RatePerSecond = 4
	cfg.BurstMultiplier = 1
	cfg.MaxBatch = 3
	cfg.RateLimitPerSecond = 0
	cfg.FixedTraffic = true
	return cfg
}

// simulateAndAnalyze simulates cfg and ingests and analyzes its logs into
// cfg.Out+"-out".
func simulateAndAnalyze(t *testing.T, cfg simulate.Config) string {
	t.Helper()
	if _, err := simulate.Run(context.Background(), cfg, nil); err != nil {
		t.Fatal(err)
	}
	out := cfg.Out + "-out"
	if code, _, stderr := runCLI(t, "ingest", "--quiet", "--client", "native:"+filepath.Join(cfg.Out, "client"),
		"--gateway", "native:"+filepath.Join(cfg.Out, "gateway"), "--server", "native:"+filepath.Join(cfg.Out, "server"), "--out", out); code != 0 {
		t.Fatal("ingest: " + stderr)
	}
	if code, _, stderr := runCLI(t, "analyze", "--quiet", out); code != 0 {
		t.Fatal("analyze: " + stderr)
	}
	return out
}

// truthFigures are the P50 and P95 of the true server queue and TTFT per
// model of a simulated run (truth.parquet), over the requests that reached
// a server and got a first token.
func truthFigures(t *testing.T, simDir string) map[string][4]float64 {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT model,
		quantile_cont(queue_ms, 0.5), quantile_cont(queue_ms, 0.95),
		quantile_cont(server_ttft_ms, 0.5), quantile_cont(server_ttft_ms, 0.95)
		FROM read_parquet('` + filepath.Join(simDir, "truth.parquet") + `')
		WHERE server_ttft_ms IS NOT NULL GROUP BY model`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][4]float64{}
	for rows.Next() {
		var m string
		var v [4]float64
		if err := rows.Scan(&m, &v[0], &v[1], &v[2], &v[3]); err != nil {
			t.Fatal(err)
		}
		out[m] = v
	}
	return out
}

// TestWhatIfAgainstSimulatedTruth: whatif's predictions from one run's
// logs against a rerun of the simulator with the change applied (same
// seed, FixedTraffic: the same requests), for the three changes of issue
// #15: 1.5× traffic (run A at 4 req/s → the 6 req/s run B), one more
// replica of llama-3.1-70b (B → C) and one more slot per replica (B → D).
// Each model's predicted P50 and P95 server queue and TTFT must land within
// 15% (or 5 ms, for queues near 0) of the rerun's true ones
// (truth.parquet), and the as-is replay of A and B must fit.
func TestWhatIfAgainstSimulatedTruth(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates, ingests and analyzes 50,000 requests")
	}
	root := t.TempDir()
	cfgA := whatifConfig(filepath.Join(root, "a"))
	cfgB := cfgA
	cfgB.Out, cfgB.RatePerSecond, cfgB.Requests = filepath.Join(root, "b"), cfgA.RatePerSecond*1.5, cfgA.Requests*3/2
	cfgC := cfgB
	cfgC.Out, cfgC.ModelReplicas = filepath.Join(root, "c"), map[string]int{"llama-3.1-70b": cfgB.ReplicasPerModel + 1}
	cfgD := cfgB
	cfgD.Out, cfgD.MaxBatch = filepath.Join(root, "d"), cfgB.MaxBatch+1
	dirA, dirB := simulateAndAnalyze(t, cfgA), simulateAndAnalyze(t, cfgB)
	for _, c := range []simulate.Config{cfgC, cfgD} {
		if _, err := simulate.Run(context.Background(), c, nil); err != nil {
			t.Fatal(err)
		}
	}
	slots := fmt.Sprint(cfgB.MaxBatch + 1)
	for _, sc := range []struct {
		name, dir, truth string
		opts             whatif.Options
	}{
		{"traffic ×1.5", dirA, cfgB.Out, whatif.Options{Traffic: 1.5}},
		{"one more llama-3.1-70b replica", dirB, cfgC.Out, whatif.Options{Replicas: []string{"llama-3.1-70b=+1"}}},
		{"one more slot", dirB, cfgD.Out, whatif.Options{Slots: []string{"llama-3.1-70b=" + slots, "llama-3.1-8b=" + slots}}},
	} {
		truth := truthFigures(t, sc.truth)
		res, err := whatif.Run(context.Background(), sc.dir, sc.opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Models) != 2 {
			t.Fatalf("%s: %d models, want 2", sc.name, len(res.Models))
		}
		for _, m := range res.Models {
			if !m.Fits {
				t.Errorf("%s: %s: the as-is replay does not fit: %v", sc.name, m.Model, m.Misfits)
				continue
			}
			want := truth[m.Model]
			p := m.Predicted
			for k, got := range []*float64{p.Queue[0], p.Queue[1], p.TTFT[0], p.TTFT[1]} {
				what := [4]string{"P50 queue", "P95 queue", "P50 TTFT", "P95 TTFT"}[k]
				if got == nil {
					t.Errorf("%s: %s: no predicted %s", sc.name, m.Model, what)
					continue
				}
				if d := math.Abs(*got - want[k]); d > math.Max(0.15*want[k], 5) {
					t.Errorf("%s: %s: predicted %s %.1f ms, the rerun's true %.1f ms (%+.0f%%)", sc.name, m.Model, what, *got, want[k], 100*(*got-want[k])/want[k])
				} else {
					t.Logf("%s: %s: predicted %s %.1f ms, true %.1f ms", sc.name, m.Model, what, *got, want[k])
				}
			}
		}
	}
}
