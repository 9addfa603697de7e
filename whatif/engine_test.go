package whatif

import (
	"math"
	"testing"
)

const ms = int64(1e6)

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-6 {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// Three requests, one slot, known service times: each waits for the one
// before it. A runs 0–100 ms; B arrives at 10, waits until 100, runs to
// 150; C arrives at 20, waits until 150, runs to 180.
func TestReplayOneSlotFIFO(t *testing.T) {
	t.Parallel()
	reps := []Replica{{Name: "r0", Slots: 1}}
	jobs := []Job{
		{Arrival: 0, PrefillMs: 100},
		{Arrival: 10 * ms, PrefillMs: 50},
		{Arrival: 20 * ms, PrefillMs: 30},
	}
	out, err := Replay(reps, jobs, RouteLeastLoaded)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []struct{ queue, ttft, e2e float64 }{{0, 100, 100}, {90, 140, 140}, {130, 160, 160}} {
		near(t, "queue", out[i].QueueMs, w.queue)
		near(t, "ttft", out[i].TTFTMs, w.ttft)
		near(t, "e2e", out[i].E2EMs, w.e2e)
	}
}

// Decoding slows with the batch a request joins: with a slope of 0.5, a
// request joining a batch of 2 decodes at 1.5 ms per token. A (t=0): batch
// 1, 10 + 10×1 = 20 ms. B (t=5): batch 2, 10 + 10×1.5 = 25 ms, ends at 30.
// C (t=6): both slots busy, waits for A's end at 20, joins B (batch 2):
// queue 14, ends at 20 + 25 = 45, E2E 39, TTFT 14 + 10 = 24.
func TestReplayBatchSlowdown(t *testing.T) {
	t.Parallel()
	reps := []Replica{{Name: "r0", Slots: 2, Slope: 0.5}}
	job := func(at int64) Job { return Job{Arrival: at * ms, PrefillMs: 10, BaseTPOTMs: 1, Tokens: 10} }
	out, err := Replay(reps, []Job{job(0), job(5), job(6)}, RouteLeastLoaded)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []struct {
		batch            int
		queue, ttft, e2e float64
	}{{1, 0, 10, 20}, {2, 0, 10, 25}, {2, 14, 24, 39}} {
		if out[i].Batch != w.batch {
			t.Errorf("job %d batch %d, want %d", i, out[i].Batch, w.batch)
		}
		near(t, "queue", out[i].QueueMs, w.queue)
		near(t, "ttft", out[i].TTFTMs, w.ttft)
		near(t, "e2e", out[i].E2EMs, w.e2e)
	}
}

// Least loaded routing among replicas that have appeared, ties to the
// first: r1 appears at 50 ms, so B (t=1) queues behind A on r0; C (t=60)
// finds r0 busy with B and r1 empty.
func TestReplayRoutingAndAppearance(t *testing.T) {
	t.Parallel()
	reps := []Replica{{Name: "r0", Slots: 1}, {Name: "r1", Slots: 1, Appear: 50 * ms}}
	jobs := []Job{{Arrival: 0, PrefillMs: 100}, {Arrival: 1 * ms, PrefillMs: 100}, {Arrival: 150 * ms, PrefillMs: 10}, {Arrival: 160 * ms, PrefillMs: 10}}
	out, err := Replay(reps, jobs, RouteLeastLoaded)
	if err != nil {
		t.Fatal(err)
	}
	// A: r0 0–100. B: r0 (r1 not there), waits 99, runs 100–200. C at 150:
	// r0 holds B (load 1), r1 empty: r1. D at 160: r0 load 1, r1 free again
	// (C ended at 160, ends before arrivals): r1.
	for i, w := range []struct {
		rep   int
		queue float64
	}{{0, 0}, {0, 99}, {1, 0}, {1, 0}} {
		if out[i].Replica != w.rep {
			t.Errorf("job %d on replica %d, want %d", i, out[i].Replica, w.rep)
		}
		near(t, "queue", out[i].QueueMs, w.queue)
	}
	// Kept as logged: every job on r0 queues behind the one before.
	for i := range jobs {
		jobs[i].Replica = 0
	}
	out, err = Replay(reps, jobs, RouteObserved)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "observed C queue", out[2].QueueMs, 50) // B ends at 200
	near(t, "observed D queue", out[3].QueueMs, 50) // C ends at 210
}

func TestQuantile(t *testing.T) {
	t.Parallel()
	xs := []float64{4, 1, math.NaN(), 3, 2}
	for _, c := range []struct{ q, want float64 }{{0.5, 2.5}, {0.95, 3.85}, {0, 1}, {1, 4}} {
		near(t, "quantile", *Quantile(xs, c.q), c.want)
	}
	if Quantile([]float64{math.NaN()}, 0.5) != nil {
		t.Error("quantile of nothing is not nil")
	}
}

func TestParseChanges(t *testing.T) {
	t.Parallel()
	cs, err := ParseChanges([]string{"a=+1", "b=3", "c=-1"}, []string{"a=24"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{{Model: "a", Relative: true, Delta: 1}, {Model: "b", Count: 3}, {Model: "c", Relative: true, Delta: -1}, {Model: "a", Slots: 24}}
	for i := range want {
		if cs[i] != want[i] {
			t.Errorf("change %d = %+v, want %+v", i, cs[i], want[i])
		}
	}
	for _, bad := range [][2][]string{{{"a"}, nil}, {{"a=x"}, nil}, {{"a=0"}, nil}, {nil, {"a=+2"}}, {nil, {"a=0"}}} {
		if _, err := ParseChanges(bad[0], bad[1]); err == nil {
			t.Errorf("ParseChanges(%q, %q) gave no error", bad[0], bad[1])
		}
	}
}

// A replica warming up: its first request scheduled runs 3× slower
// (prefill 10 → 30 ms), the next at its own speed. B waits for A's 30 ms.
func TestReplayWarmUp(t *testing.T) {
	t.Parallel()
	reps := []Replica{{Name: "r0", Slots: 1, WarmUp: 1, WarmFactor: 3}}
	out, err := Replay(reps, []Job{{Arrival: 0, PrefillMs: 10}, {Arrival: 5 * ms, PrefillMs: 10}}, RouteLeastLoaded)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "A e2e", out[0].E2EMs, 30)
	near(t, "B queue", out[1].QueueMs, 25)
	near(t, "B e2e", out[1].E2EMs, 35)
}

// Round robin counts over the replicas that have appeared, per model: r1
// appears at 1.5 ms, so the counter 0, 1 finds r0 alone and 2, 3 take r0,
// r1; model 1's requests keep their logged replica (r2) meanwhile, with a
// policy of their own.
func TestReplayRoundRobinPerModel(t *testing.T) {
	t.Parallel()
	reps := []Replica{{Name: "r0", Slots: 9}, {Name: "r1", Slots: 9, Appear: 1500000}, {Name: "r2", Model: 1, Slots: 9}, {Name: "r3", Model: 1, Slots: 9}}
	var jobs []Job
	for i := range 4 {
		jobs = append(jobs, Job{Arrival: int64(i) * ms, PrefillMs: 100}, Job{Arrival: int64(i) * ms, Model: 1, Replica: 2, PrefillMs: 100})
	}
	out, err := Replay(reps, jobs, RouteRoundRobin, RouteObserved)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{0, 2, 0, 2, 0, 2, 1, 2} {
		if out[i].Replica != want {
			t.Errorf("job %d on replica %d, want %d", i, out[i].Replica, want)
		}
	}
	// Random: every request on a replica of its model, both used, and the
	// same replay twice gives the same routes.
	var many []Job
	for i := range 200 {
		many = append(many, Job{Arrival: int64(i+2) * ms, PrefillMs: 1})
	}
	a, err := Replay(reps, many, RouteRandom)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Replay(reps, many, RouteRandom)
	n := [2]int{}
	for i := range a {
		if a[i].Replica > 1 || a[i].Replica != b[i].Replica {
			t.Fatalf("random: job %d on %d then %d", i, a[i].Replica, b[i].Replica)
		}
		n[a[i].Replica]++
	}
	if n[0] < 70 || n[1] < 70 {
		t.Errorf("random routing put %v of 200 on r0, r1", n)
	}
}
