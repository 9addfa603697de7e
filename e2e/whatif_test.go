package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/contract"
	"github.com/infertrace/infertrace/report"
	"github.com/infertrace/infertrace/simulate"
	"github.com/infertrace/infertrace/whatif"
)

// whatifConfig is the stack the what-if validation replays: queueing that
// matters (3 slots per replica, llama-3.1-70b at about 60% of its
// capacity, 90% at 1.5× the traffic, a burst of 1.3× for a minute), the
// late replica warming up, no gateway rate limit (a limit in front of the
// servers is outside the pool's model), and FixedTraffic, so that a rerun
// with a changed pool serves the same requests.
func whatifConfig(out string) simulate.Config {
	cfg := simulate.DefaultConfig()
	cfg.Out = out
	cfg.Seed = 11
	cfg.Requests = 10000
	cfg.RatePerSecond = 4
	cfg.BurstStart, cfg.BurstDuration, cfg.BurstMultiplier = 1200*time.Second, 60*time.Second, 1.3
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
	if code, _, stderr := runCLI(t, "analyze", "--quiet", "--threads", "1", out); code != 0 {
		t.Fatal("analyze: " + stderr)
	}
	return out
}

// truthFigures are the P50 and P95 of the true server queue, TTFT and
// E2E per model of a simulated run (truth.parquet), over the requests that
// reached a server (TTFT: that got a first token), in the order of
// whatifFigures.
func truthFigures(t *testing.T, simDir string) map[string][6]float64 {
	t.Helper()
	db, err := sql.Open("duckdb", duckOneThread)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT model,
		quantile_cont(queue_ms, 0.5), quantile_cont(queue_ms, 0.95),
		quantile_cont(server_ttft_ms, 0.5), quantile_cont(server_ttft_ms, 0.95),
		quantile_cont(server_e2e_ms, 0.5), quantile_cont(server_e2e_ms, 0.95)
		FROM read_parquet('` + filepath.Join(simDir, "truth.parquet") + `')
		WHERE queue_ms IS NOT NULL GROUP BY model`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][6]float64{}
	for rows.Next() {
		var m string
		var v [6]float64
		if err := rows.Scan(&m, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]); err != nil {
			t.Fatal(err)
		}
		out[m] = v
	}
	return out
}

// whatifFigures names the figures truthFigures gives.
var whatifFigures = [6]string{"P50 queue", "P95 queue", "P50 TTFT", "P95 TTFT", "P50 E2E", "P95 E2E"}

// TestWhatIfAgainstSimulatedTruth: whatif's predictions from one run's
// logs against a rerun of the simulator with the change applied (same
// seed, FixedTraffic: the same requests), for pools that route least
// loaded and round robin, with prefill slowed by the batch as decode is:
// 1.5× traffic (run A at 4 req/s → run B, the same requests at 6 req/s:
// its burst and its late replica's join 1.5× sooner, as --traffic plays
// them), one more replica of llama-3.1-70b (B → C) and one more slot per
// replica (B → D). Each model's predicted P50 and P95 server queue, TTFT
// and E2E must land within 15% (or 5 ms, for queues near 0) of the
// rerun's true ones (truth.parquet), the as-is replays of A and B must
// fit, the routing estimated must be the simulator's, and a model the
// change leaves alone must keep its as-is figures.
func TestWhatIfAgainstSimulatedTruth(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("simulates 80,000 requests, ingests and analyzes 40,000")
	}
	for _, rt := range []struct {
		routing string
		policy  whatif.Policy
	}{{simulate.RouteLeastLoaded, whatif.RouteLeastLoaded}, {simulate.RouteRoundRobin, whatif.RouteRoundRobin}} {
		t.Run(rt.routing, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			cfgA := whatifConfig(filepath.Join(root, "a"))
			cfgA.Routing, cfgA.PrefillBatchSlope = rt.routing, whatifPrefillSlope
			cfgB := cfgA
			cfgB.Out, cfgB.RatePerSecond = filepath.Join(root, "b"), cfgA.RatePerSecond*1.5
			cfgB.BurstStart, cfgB.BurstDuration, cfgB.ColdJoinAt = cfgA.BurstStart*2/3, cfgA.BurstDuration*2/3, cfgA.ColdJoinAt*2/3
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
			// Each store is read once (whatif.ReadInput) for the what-ifs
			// asked of it, as whatif.Run reads it for one.
			data := map[string]*whatif.Data{}
			answer := func(dir string, o whatif.Options) (*whatif.Result, error) {
				changes, err := whatif.ParseChanges(o.Replicas, o.Slots)
				if err != nil {
					return nil, err
				}
				if data[dir] == nil {
					if data[dir], err = whatif.ReadInput(context.Background(), dir, oneThread); err != nil {
						return nil, err
					}
				}
				return whatif.Answer(data[dir], changes, o)
			}
			slots := fmt.Sprint(cfgB.MaxBatch + 1)
			for _, sc := range []struct {
				name, dir, truth string
				opts             whatif.Options
				untouched        string
			}{
				{"traffic ×1.5", dirA, cfgB.Out, whatif.Options{Traffic: 1.5}, ""},
				{"one more llama-3.1-70b replica", dirB, cfgC.Out, whatif.Options{Replicas: []string{"llama-3.1-70b=+1"}}, "llama-3.1-8b"},
				{"one more slot", dirB, cfgD.Out, whatif.Options{Slots: []string{"llama-3.1-70b=" + slots, "llama-3.1-8b=" + slots}}, ""},
			} {
				truth := truthFigures(t, sc.truth)
				res, err := answer(sc.dir, sc.opts)
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Models) != 2 {
					t.Fatalf("%s: %d models, want 2", sc.name, len(res.Models))
				}
				for i, m := range res.Models {
					r := res.Pool.Routing[i]
					t.Logf("%s: %s: routing: least loaded %.3f of %d (random %.3f), round robin %.3f of %d (random %.3f)", sc.name, m.Model, r.LeastLoaded, r.LLN, r.RandomBaseline, r.RoundRobin, r.RRN, r.RRBaseline)
					if !r.Shown() || r.Plausible[0] != rt.policy {
						t.Errorf("%s: %s: routing estimated %v (least loaded %.2f of %d, round robin %.2f of %d), want %v",
							sc.name, m.Model, r.Plausible, r.LeastLoaded, r.LLN, r.RoundRobin, r.RRN, rt.policy)
					}
					if !m.Fits {
						t.Errorf("%s: %s: the as-is replay does not fit: %v", sc.name, m.Model, m.Misfits)
						continue
					}
					if m.Model == sc.untouched && (!m.Untouched || !sameFigures(m.Predicted, m.AsIs)) {
						t.Errorf("%s: %s is not changed, but its prediction %+v is not its as-is replay %+v", sc.name, m.Model, m.Predicted, m.AsIs)
					}
					if m.Saturation.Saturated() {
						t.Errorf("%s: %s: saturated (%+v), but the rerun kept up", sc.name, m.Model, *m.Saturation)
					} else if m.Saturation != nil {
						t.Logf("%s: %s: offered load %.0f%% of capacity", sc.name, m.Model, 100*m.Saturation.Load)
					}
					want := truth[m.Model]
					p := m.Predicted
					for k, got := range []*float64{p.Queue[0], p.Queue[1], p.TTFT[0], p.TTFT[1], p.E2E[0], p.E2E[1]} {
						what := whatifFigures[k]
						if got == nil {
							t.Errorf("%s: %s: no predicted %s", sc.name, m.Model, what)
							continue
						}
						if d := math.Abs(*got - want[k]); d > math.Max(0.15*want[k], 5) {
							t.Errorf("%s: %s: predicted %s %.1f ms, the rerun's true %.1f ms (%+.0f%%)", sc.name, m.Model, what, *got, want[k], 100*(*got-want[k])/want[k])
						} else {
							t.Logf("%s: %s: predicted %s %.1f ms, true %.1f ms (%+.0f%%)", sc.name, m.Model, what, *got, want[k], 100*(*got-want[k])/want[k])
						}
					}
				}
			}
			// Three times the traffic is more than llama-3.1-70b's two
			// replicas serve (about 60% at 1×): the queue grows without
			// bound, and more replicas are named.
			res, err := answer(dirA, whatif.Options{Traffic: 3})
			if err != nil {
				t.Fatal(err)
			}
			if s := res.Models[0].Saturation; res.Models[0].Model != "llama-3.1-70b" || !s.Saturated() || s.Needed <= s.Replicas {
				t.Errorf("traffic ×3: %s saturation %+v, want the queue growing and more replicas needed", res.Models[0].Model, s)
			} else {
				t.Logf("traffic ×3: %s", report.WhatIfHeadline(res))
			}
		})
	}
}

// whatifPrefillSlope is the validation pools' prefill slowdown per further
// running request.
const whatifPrefillSlope = 0.1

// sameFigures reports whether two sets of figures are equal, value for
// value.
func sameFigures(a, b whatif.Figures) bool {
	eq := func(x, y [3]*float64) bool {
		for k := range x {
			if (x[k] == nil) != (y[k] == nil) || x[k] != nil && *x[k] != *y[k] {
				return false
			}
		}
		return true
	}
	return a.N == b.N && a.NTTFT == b.NTTFT && eq(a.Queue, b.Queue) && eq(a.TTFT, b.TTFT) && eq(a.E2E, b.E2E)
}

// TestWhatIfTestdata: the what-if of docs/whatif.md on the bundled data
// set — one more llama-3.1-70b replica — against a golden whatif.md (go
// test ./e2e -update rewrites it): the as-is check, the figures and
// the pool's evidence.
func TestWhatIfTestdata(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "demo")
	if code, stdout, stderr := runCLI(t, "ingest", "--quiet", "--client", "testdata/native/client/*.jsonl",
		"--gateway", "testdata/native/gateway/*.jsonl", "--server", "testdata/native/server/*", "--out", out); code != 0 {
		t.Fatalf("ingest: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr := runCLI(t, "analyze", "--quiet", out); code != 0 {
		t.Fatal("analyze: " + stderr)
	}
	code, stdout, stderr := runCLI(t, "whatif", out, "--replicas", "llama-3.1-70b=+1")
	if code != 0 || stderr != "" {
		t.Fatalf("whatif: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	golden(t, "testdata/golden/whatif.md", []byte(strings.ReplaceAll(stdout, out, "out/demo")))

	// --out writes whatif.md, whatif.html and whatif.json and says where.
	code, stdout, _ = runCLI(t, "whatif", out, "--slots", "llama-3.1-8b=8", "--traffic", "1.5", "--out", filepath.Join(out, "w"))
	if code != 0 || stdout != "whatif: "+filepath.Join(out, "w", "whatif.md")+"\nwhatif: "+filepath.Join(out, "w", "whatif.html")+
		"\nwhatif: "+filepath.Join(out, "w", "whatif.json")+"\n" {
		t.Errorf("whatif --out: exit %d, stdout %q", code, stdout)
	}
	// The HTML page opens with the answer and loads nothing.
	page, err := os.ReadFile(filepath.Join(out, "w", "whatif.html"))
	if err != nil {
		t.Fatal(err)
	}
	h := string(page)
	i := strings.Index(h, `<p class="answer" id="answer">With llama-3.1-8b: 8 slots per replica; traffic ×1.5 (every model), llama-3.1-70b`)
	if i < 0 || strings.Contains(h[:i], "<p") || strings.Contains(h, "<script") || strings.Contains(h, "src=") || strings.Contains(h, "<link") {
		t.Errorf("whatif.html does not open with the answer or is not self-contained:\n%.2000s", h)
	}
	md, err := os.ReadFile(filepath.Join(out, "w", "whatif.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# What if: llama-3.1-8b: 8 slots per replica; traffic ×1.5 (every model)", "predicted with 2 × 16 slots and ×1.5 traffic", "3 × 8 slots"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("whatif.md lacks %q", want)
		}
	}

	// A window: the figures are over its requests only.
	code, stdout, stderr = runCLI(t, "whatif", out, "--from", "10:00:20", "--to", "10:00:30")
	if code != 0 {
		t.Fatalf("whatif --from --to: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "requests starting in [2026-11-30T10:00:20Z, 2026-11-30T10:00:30Z)") {
		t.Errorf("whatif --from --to does not name the window:\n%s", stdout)
	}
	if strings.Contains(stdout, "n = 409 requests") || !strings.Contains(stdout, "starting 2026-11-30T10:00:2") {
		t.Errorf("whatif --from --to counts requests outside the window:\n%s", stdout)
	}

	// --contract: the fewest llama-3.1-70b replicas for chat's P95 server
	// TTFT and rag-on-70b's P99 queue: three; with two added as the change,
	// the search adds the third (two alone do not meet it).
	cf := filepath.Join(t.TempDir(), "contract.toml")
	if err := os.WriteFile(cf, []byte(whatifContract), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runCLI(t, "whatif", out, "--contract", cf)
	if code != 0 || !strings.Contains(stdout, "`: met with llama-3.1-70b +3 replica(s)") ||
		!strings.Contains(stdout, "not judged: chat: client_ttft_ms is not a server queue, TTFT or E2E percentile the replay gives") {
		t.Errorf("whatif --contract: exit %d\n%s%s", code, stdout, stderr)
	}
	c, err := contract.Load(cf, analyze.SliceColumns)
	if err != nil {
		t.Fatal(err)
	}
	res, err := whatif.Run(context.Background(), out, whatif.Options{Replicas: []string{"llama-3.1-70b=+2"}, Contract: c, Resources: oneThread})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Contract; !r.Met || r.Added[0] != 1 || r.Added[1] != 0 || r.Models[0] != "llama-3.1-70b" || len(r.Checks) != 2 {
		t.Errorf("contract on top of +2: %+v, want met with one more llama-3.1-70b", r)
	}

	// Wrong words: exit 2 naming what is wrong; an unknown model: exit 1
	// naming the models there are.
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"whatif"}, 2, "want one DIR"},
		{[]string{"whatif", out, "--replicas", "llama-3.1-70b"}, 2, "want MODEL=N or MODEL=+N"},
		{[]string{"whatif", out, "--slots", "llama-3.1-70b=0"}, 2, "at least 1"},
		{[]string{"whatif", out, "--traffic", "0"}, 2, "--traffic 0"},
		{[]string{"whatif", out, "--replicas", "gpt-5=+1"}, 1, `no model "gpt-5" in the data (models: llama-3.1-70b, llama-3.1-8b)`},
		{[]string{"whatif", out, "--replicas", "llama-3.1-8b=-3"}, 1, "leaves llama-3.1-8b with 0 replicas"},
	} {
		code, _, stderr := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("infertrace %s: exit %d (want %d), stderr %q (want %q)", strings.Join(c.args, " "), code, c.code, stderr, c.want)
		}
	}
}

const whatifContract = `
[[use_case]]
name = "chat"

  [[use_case.constraint]]
  metric = "server_ttft_ms"
  percentile = 95
  op = "<="
  target = 3000

  [[use_case.constraint]]
  metric = "client_ttft_ms"
  percentile = 95
  op = "<="
  target = 3000

[[use_case]]
name = "rag"
match = { use_case = "rag", model = "llama-3.1-70b" }

  [[use_case.constraint]]
  metric = "queue_ms"
  percentile = 99
  op = "<="
  target = 500
`
