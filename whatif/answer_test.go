package whatif

import (
	"math"
	"testing"
	"time"
)

func f(v float64) *float64 { return &v }

// entry is a request of the synthetic log and its gateway upstream start.
type entry struct {
	r  LoggedRequest
	up int64
}

// logged builds a request of the synthetic log: on replica rep (clock
// offset off ns), arriving at arr ms, with its queue, prefill and decode,
// forwarded at gwUpMs on the gateway's clock.
func logged(rep string, off int64, arrMs, queueMs, prefillMs, decodeMs float64, out int64, gw string, gwUpMs float64) entry {
	arr := int64(arrMs*1e6) + off
	return entry{r: LoggedRequest{
		Model: "m", Replica: rep, Phase: "steady", Completed: true, OutputTokens: out, PromptTokens: 100,
		ArrNs: arr, SchedNs: arr + int64(queueMs*1e6), EndNs: arr + int64((queueMs+prefillMs+decodeMs)*1e6), Batch: 1,
		GatewayHost: gw, QueueMs: queueMs, PrefillMs: prefillMs, DecodeMs: decodeMs, ModelMs: prefillMs + decodeMs,
		TTFTMs: queueMs + prefillMs, E2EMs: queueMs + prefillMs + decodeMs, TPOTMs: decodeMs / float64(out-1),
		OverheadMs: math.NaN(), TTFTOverheadMs: math.NaN(),
	}, up: int64(gwUpMs * 1e6)}
}

// The replicas' clocks are 5 s apart; placed on the gateway's clock, the
// two replicas' arrivals interleave, and the as-is replay (one slot each,
// least loaded) reproduces the logged queues: none.
func TestAnswerClockOffsetsAndAsIs(t *testing.T) {
	t.Parallel()
	var reqs []entry
	for i := range 40 {
		rep, off := "r0", int64(0)
		if i%2 == 1 {
			rep, off = "r1", 5e9
		}
		at := float64(i) * 100
		reqs = append(reqs, logged(rep, off, at, 0, 20, 90, 10, "gw", at-0.5))
	}
	d := data(reqs)
	res, err := Answer(d, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ev := res.Pool.Evidence
	if len(ev) != 2 || ev[0].OffsetMs != 0.5 || ev[1].OffsetMs != 5000.5 {
		t.Fatalf("offsets %+v, want r0 0.5 ms and r1 5000.5 ms", ev)
	}
	if ev[1].AppearAfter != 100*time.Millisecond {
		t.Errorf("r1 appeared %v after r0, want 100ms", ev[1].AppearAfter)
	}
	m := res.Models[0]
	if !m.Fits || *m.AsIs.Queue[1] != 0 || *m.AsIs.E2E[0] != 110 {
		t.Errorf("as-is %+v fits=%v %v, want no queue and E2E 110 ms", m.AsIs, m.Fits, m.Misfits)
	}
	if r := res.Pool.Routing[0]; r.LeastLoaded != 1 {
		t.Errorf("routing evidence %+v, want every request on a least-loaded replica", r)
	}
}

// Logged queues no slot limit explains (every request waited 500 ms on an
// otherwise idle replica): the as-is replay gives none, so the model does
// not fit, and the output predicts nothing — it says so.
func TestAnswerDoesNotFitPredictsNothing(t *testing.T) {
	t.Parallel()
	var reqs []entry
	for i := range 40 {
		at := float64(i) * 1000
		reqs = append(reqs, logged("r0", 0, at, 500, 20, 90, 10, "gw", at))
	}
	d := data(reqs)
	d.Replicas[0].Queued = 40
	changes, _ := ParseChanges([]string{"m=+1"}, nil)
	res, err := Answer(d, changes, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Models[0]
	if m.Fits || res.Fits || len(m.Misfits) == 0 {
		t.Fatalf("fits=%v misfits=%+v, want a misfit", m.Fits, m.Misfits)
	}
	// The misfit is the queue no slot limit explains; report words the
	// rest (TestWhatIfDoesNotFit).
	if m.Misfits[0] != (Misfit{Kind: MisfitFigure, Quantile: "P50", Figure: "queue", AsIsMs: 0, LoggedMs: 500}) {
		t.Errorf("misfits %+v, want the P50 queue first", m.Misfits)
	}
}

// data is the Data the queries would give for reqs: the pool and
// offsets rows, and a fit of no slowdown.
func data(entries []entry) *Data {
	d := &Data{Dir: "synthetic"}
	first := map[string]int64{}
	n := map[string]int64{}
	off := map[string]int64{}
	for _, e := range entries {
		r := e.r
		d.Requests = append(d.Requests, r)
		if v, ok := first[r.Replica]; !ok || r.ArrNs < v {
			first[r.Replica] = r.ArrNs
		}
		n[r.Replica]++
		if v, ok := off[r.Replica]; !ok || r.ArrNs-e.up < v {
			off[r.Replica] = r.ArrNs - e.up
		}
	}
	for _, rep := range []string{"r0", "r1"} {
		if n[rep] == 0 {
			continue
		}
		d.Replicas = append(d.Replicas, ReplicaLoad{Model: "m", Replica: rep, N: n[rep], FirstArrNs: first[rep], MaxBatch: 1})
		d.Offsets = append(d.Offsets, Offset{Replica: rep, Gateway: "gw", N: n[rep], MinDeltaNs: off[rep]})
	}
	d.Fits = []TPOTFit{{Model: "m", TPOTN: 40, TPOTIntercept: f(10), TPOTSlope: f(0)}}
	return d
}

// A replay that rests on too few of a model's requests does not fit: a
// model whose forwarded requests mostly lack a server record (a replica's
// log missing), one whose server records give no arrival, and a model with
// no replica the replay could place at all.
func TestAnswerCoverage(t *testing.T) {
	t.Parallel()
	var reqs []entry
	for i := range 40 {
		at := float64(i) * 1000
		reqs = append(reqs, logged("r0", 0, at, 0, 20, 90, 10, "gw", at))
	}
	d := data(reqs)
	d.ServerRecords = map[string]int64{"m": 50, "other": 7}
	for i := range 3 {
		d.Unlogged = append(d.Unlogged, Unlogged{ID: string(rune('A' + i)), Model: "m", GatewayHost: "gw", GatewayUpNs: int64(i) * 1e9, OutputTokens: 10})
	}
	res, err := Answer(d, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Models) != 2 || res.Fits {
		t.Fatalf("%d models, fits=%v: want m and other, not fitting", len(res.Models), res.Fits)
	}
	m, other := res.Models[0], res.Models[1]
	if m.Fits || len(m.Misfits) != 2 ||
		m.Misfits[0] != (Misfit{Kind: MisfitUnreplayed, Missing: 10, Of: 50}) ||
		m.Misfits[1] != (Misfit{Kind: MisfitUnlogged, Missing: 3, Of: 53}) {
		t.Errorf("m: fits=%v misfits %+v", m.Fits, m.Misfits)
	}
	if other.Model != "other" || other.Fits || len(other.Misfits) != 2 || other.Misfits[1].Kind != MisfitUnplaced {
		t.Errorf("other: %+v", other)
	}
	if res.Pool.Unlogged != 3 {
		t.Errorf("unlogged replayed %d, want 3", res.Pool.Unlogged)
	}
}

// alternating is a synthetic log of one model whose 80 requests, 100 ms
// apart, alternate between r0 and r1, those on r0 lasting r0Ms and those on
// r1 50 ms.
func alternating(r0Ms float64) *Data {
	var reqs []entry
	for i := range 80 {
		rep, e2e := "r0", r0Ms
		if i%2 == 1 {
			rep, e2e = "r1", 50
		}
		at := float64(i) * 100
		reqs = append(reqs, logged(rep, 0, at, 0, 20, e2e-20, 10, "gw", at))
	}
	return data(reqs)
}

// The routing policy estimated from the logs, with its evidence. When a
// request on r0 lasts 350 ms, every other request goes to r0 while it is
// the busier: round robin (every request to the replica whose last
// request is the oldest), not least loaded (half). When it lasts 150 ms
// each request finds its replica the less loaded as well: the logs cannot
// tell the two apart, the as-is replay keeps the logged replicas, and a
// prediction is made under both and shown as a range.
func TestAnswerRoutingEstimate(t *testing.T) {
	t.Parallel()
	changes, _ := ParseChanges([]string{"m=+1"}, nil)
	res, err := Answer(alternating(350), changes, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Pool.Routing[0]
	if r.RRN != 79 || r.RoundRobin != 1 || r.LLN != 79 || math.Abs(r.LeastLoaded-40.0/79) > 1e-9 || !r.Shown() || r.Plausible[0] != RouteRoundRobin {
		t.Errorf("routing evidence %+v, want round robin 79 of 79 and least loaded 40 of 79", r)
	}
	if m := res.Models[0]; m.Policy != RouteRoundRobin || len(m.ByPolicy) != 0 {
		t.Errorf("predicted under %v (%d policies), want round robin alone", m.Policy, len(m.ByPolicy))
	}
	res, err = Answer(alternating(150), changes, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r = res.Pool.Routing[0]
	if r.Shown() || len(r.Plausible) != 2 || res.Pool.Policies[0] != RouteObserved {
		t.Fatalf("routing %+v, as-is %v: want both plausible and the logged replicas kept", r, res.Pool.Policies)
	}
	m := res.Models[0]
	if len(m.ByPolicy) != 2 || m.Low.E2E[1] == nil || *m.Low.E2E[1] > *m.High.E2E[1] {
		t.Errorf("prediction under %d policies, range %v – %v", len(m.ByPolicy), m.Low.E2E, m.High.E2E)
	}
	if r.Plausible[0] != RouteLeastLoaded || r.Plausible[1] != RouteRoundRobin {
		t.Errorf("plausible %v, want least loaded, then round robin", r.Plausible)
	}
}

// Saturation: 40 requests 100 ms apart of 110 ms each on two one-slot
// replicas (r1 from 100 ms). Played 3× as fast they offer 4.4 s of
// service over 1.3 s, against 1.3 + (1.3 − 0.1/3) slot-seconds: 171%,
// the queue grows without bound, and 4 replicas there throughout are
// needed (4.4 / 1.3 = 3.4); at 1.5× (2.6 s) it is 4.4 / (2.6 + 2.533) =
// 86% and keeps up.
func TestAnswerSaturation(t *testing.T) {
	t.Parallel()
	var reqs []entry
	for i := range 40 {
		rep := "r0"
		if i%2 == 1 {
			rep = "r1"
		}
		at := float64(i) * 100
		reqs = append(reqs, logged(rep, 0, at, 0, 20, 90, 10, "gw", at))
	}
	for _, c := range []struct {
		traffic, load float64
		needed        int
	}{{3, 4.4 / (1.3 + 1.3 - 0.1/3), 4}, {1.5, 4.4 / (2.6 + 2.6 - 0.1/1.5), 2}} {
		res, err := Answer(data(reqs), nil, Options{Traffic: c.traffic})
		if err != nil {
			t.Fatal(err)
		}
		m := res.Models[0]
		s := m.Saturation
		if s == nil || math.Abs(s.Load-c.load) > 1e-6 || s.Needed != c.needed || s.Replicas != 2 || s.Slots != 1 {
			t.Fatalf("×%g: saturation %+v, want load %.4f and %d replicas needed", c.traffic, s, c.load, c.needed)
		}
		if s.Saturated() != (c.traffic == 3) {
			t.Errorf("×%g: saturated %v, want only ×3 saturated", c.traffic, s.Saturated())
		}
	}
}
