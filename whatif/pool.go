package whatif

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// MinFitRequests is the fewest requests outside a warm-up a replica's own
// decode fit needs; with fewer its model's fit over all replicas is used.
const MinFitRequests = 30

// Pool is the serving pool as estimated from the logs: its models, their
// replicas with slots, appearance and decode slowdown, the routing policy,
// and the evidence for each.
type Pool struct {
	Models   []string
	Replicas []Replica
	// Policies route each model's requests in the as-is replay: the policy
	// its logs show, else each logged request keeps its replica.
	Policies []Policy
	// Clock is the host whose clock the arrivals are placed on ("" when
	// the replicas' clocks could not be tied to one: no gateway records).
	Clock    string
	Evidence []ReplicaEvidence
	Routing  []RoutingEvidence // per model
	Fits     []TPOTFit
	// PrefillFits are prefill's dependence on the prompt and the batch.
	PrefillFits []PrefillFit
	// Unlogged counts the forwarded requests without a server record the
	// replay adds (service times from their model's fits); Unplaced those
	// it cannot place (no gateway clock offset or fit).
	Unlogged, Unplaced int
	// Missing is each model's share of forwarded requests without a server
	// record.
	Missing []float64
}

// ReplicaEvidence says where a replica's estimate comes from.
type ReplicaEvidence struct {
	Name, Model string
	N           int64
	MaxBatch    int64
	Queued      int64
	QueuedBelow int64
	// SlotsBound: the replica never queued, so MaxBatch is a lower bound
	// of its slots (the replay uses its model's slots).
	SlotsBound bool
	// AppearAfter is how long after its model's first arrival it took its
	// first request.
	AppearAfter time.Duration
	// OffsetMs is its clock minus the common clock; Aligned false when no
	// gateway record ties it to the common clock.
	OffsetMs float64
	Aligned  bool
	// Slope is the decode slowdown per further running request, and
	// SlopeFrom "replica" or "model" (too few requests of its own).
	Slope     float64
	SlopeFrom string
	// PrefillSlope is prefill's slowdown per further running request, and
	// PrefillFrom where its fit comes from ("replica", "model", "none").
	PrefillSlope float64
	PrefillFrom  string
	// WarmUp: its first WarmUp requests scheduled ran WarmFactor times
	// slower than its model's fit (0: no warm-up seen).
	WarmUp     int
	WarmFactor float64
}

// RoutingEvidence is how often a model's requests went where each policy
// would have sent them, against what routing at random would give
// (routingEvidence), and the policies that leaves plausible.
type RoutingEvidence struct {
	Model string
	N     int64
	// LeastLoaded is the share of the LLN requests that found the loads
	// unequal that went to a least-loaded replica; RandomBaseline the
	// share random routing would give.
	LLN                         int64
	LeastLoaded, RandomBaseline float64
	// RoundRobin is the share of the RRN requests that found two or more
	// replicas that went to the one whose last request was the oldest;
	// RRBaseline the share random routing would give.
	RRN                    int64
	RoundRobin, RRBaseline float64
	// Plausible are the policies the evidence leaves open, the likeliest
	// first; one when the logs show it.
	Plausible []Policy
}

// Shown reports whether the logs show one policy.
func (r RoutingEvidence) Shown() bool { return len(r.Plausible) == 1 && r.Plausible[0] != RouteRandom }

// request is one placed request with its job and replay inputs.
type placed struct {
	req   *LoggedRequest
	job   Job
	start *time.Time
	model int
	// obsQueue, obsTTFT, obsE2E are the logged figures (NaN: unknown).
	obsQueue, obsTTFT, obsE2E float64
}

// estimate builds the pool and the jobs from the logs.
func estimate(d *Data) (*Pool, []placed, error) {
	if len(d.Requests) == 0 {
		return nil, nil, fmt.Errorf("%s: no request with a server record to replay", d.Dir)
	}
	p := &Pool{Fits: d.Fits}
	modelIdx := map[string]int{}
	for _, r := range d.Replicas {
		if _, ok := modelIdx[r.Model]; !ok {
			modelIdx[r.Model] = len(p.Models)
			p.Models = append(p.Models, r.Model)
		}
	}
	offsets, gwOffsets, clock := clockOffsets(d)
	p.Clock = clock
	// The model's slots: the most any replica that queued ran at once.
	modelSlots := map[string]int64{}
	for _, r := range d.Replicas {
		if r.Queued > 0 {
			modelSlots[r.Model] = max(modelSlots[r.Model], r.MaxBatch)
		}
	}
	fits := map[[2]string]TPOTFit{}
	for _, f := range d.Fits {
		fits[[2]string{f.Model, f.Replica}] = f
	}
	first := map[string]int64{}
	for _, r := range d.Replicas {
		t := r.FirstArrNs - int64(offsets[r.Replica].ns)
		if v, ok := first[r.Model]; !ok || t < v {
			first[r.Model] = t
		}
	}
	repIdx := map[string]int{}
	for _, r := range d.Replicas {
		ev := ReplicaEvidence{Name: r.Replica, Model: r.Model, N: r.N, MaxBatch: r.MaxBatch,
			Queued: r.Queued, QueuedBelow: r.QueuedBelow}
		off := offsets[r.Replica]
		ev.OffsetMs, ev.Aligned = float64(off.ns)/1e6, off.aligned
		appear := r.FirstArrNs - int64(off.ns)
		ev.AppearAfter = time.Duration(appear - first[r.Model])
		slots := r.MaxBatch
		if r.Queued == 0 {
			ev.SlotsBound = true
			if s, ok := modelSlots[r.Model]; ok {
				slots = s
			}
		}
		ev.Slope, ev.SlopeFrom = slopeOf(fits, r.Model, r.Replica)
		repIdx[r.Replica] = len(p.Replicas)
		p.Replicas = append(p.Replicas, Replica{Name: r.Replica, Model: modelIdx[r.Model], Slots: int(max(slots, 1)),
			Appear: appear, Slope: ev.Slope})
		p.Evidence = append(p.Evidence, ev)
	}
	// The batch a request ran in is counted from the logged requests; the
	// forwarded ones whose server record is missing ran in it too, so each
	// model's batches are scaled up by its share of them (Pool.Missing).
	p.Missing = make([]float64, len(p.Models))
	logged := make([]float64, len(p.Models))
	for i := range d.Requests {
		if m, ok := modelIdx[d.Requests[i].Model]; ok {
			logged[m]++
		}
	}
	for i := range d.Unlogged {
		if m, ok := modelIdx[d.Unlogged[i].Model]; ok {
			p.Missing[m]++
		}
	}
	for m := range p.Missing {
		if t := logged[m] + p.Missing[m]; t > 0 {
			p.Missing[m] /= t
		}
	}
	p.PrefillFits = prefillFits(p, d, modelIdx)
	for i := range p.Replicas {
		ev := &p.Evidence[i]
		if f, ok := prefillOf(p.PrefillFits, ev.Model, ev.Name); ok {
			p.Replicas[i].PrefillSlope, ev.PrefillSlope = f.Slope, f.Slope
			ev.PrefillFrom = "replica"
			if f.Replica == "" {
				ev.PrefillFrom = "model"
			}
		} else {
			ev.PrefillFrom = "none"
		}
	}
	warmOf := warmUps(p, d, repIdx, fits)
	var jobs []placed
	for i := range d.Requests {
		w := &d.Requests[i]
		ri, ok := repIdx[w.Replica]
		if !ok {
			continue
		}
		rep := p.Replicas[ri]
		j := Job{Arrival: w.ArrNs - int64(offsets[w.Replica].ns), Model: rep.Model, Replica: ri}
		b := scaledBatch(p, rep.Model, w.Batch)
		switch {
		case math.IsNaN(w.TTFTMs) || math.IsNaN(w.PrefillMs):
			// No first token: the whole model time is its service, slowed
			// as a prefill.
			j.NoFirstToken = true
			j.PrefillMs = num(w.ModelMs, num(w.E2EMs, 0)-num(w.QueueMs, 0)) / (1 + rep.PrefillSlope*(b-1))
		default:
			j.PrefillMs = w.PrefillMs / (1 + rep.PrefillSlope*(b-1)) / warmOf[i]
			j.TTFTExtraMs = num(w.TTFTOverheadMs, 0)
			j.E2EExtraMs = num(w.OverheadMs, 0)
			if !math.IsNaN(w.TPOTMs) {
				j.BaseTPOTMs = w.TPOTMs / (1 + rep.Slope*(b-1)) / warmOf[i]
				j.Tokens = int(w.OutputTokens - 1)
			} else {
				j.FixedDecodeMs = num(w.DecodeMs, 0) / warmOf[i]
			}
		}
		pl := placed{req: w, job: j, start: w.Start, model: rep.Model,
			obsQueue: w.QueueMs, obsTTFT: w.TTFTMs, obsE2E: w.E2EMs}
		jobs = append(jobs, pl)
	}
	p.Routing = routingEvidence(p, jobs)
	for i := range d.Unlogged {
		w := &d.Unlogged[i]
		off, ok := gwOffsets[w.GatewayHost]
		m, known := modelIdx[w.Model]
		if !ok || !known {
			p.Unplaced++
			continue
		}
		f, ok := fits[[2]string{w.Model, ""}]
		pf, pok := prefillOf(p.PrefillFits, w.Model, "")
		if !ok || !pok || f.TPOTIntercept == nil {
			p.Unplaced++
			continue
		}
		j := Job{Arrival: w.GatewayUpNs - int64(off), Model: m, Replica: -1, Unlogged: true,
			PrefillMs: max(pf.Intercept+pf.PerToken*float64(w.PromptTokens), 0)}
		if w.OutputTokens >= 2 {
			j.BaseTPOTMs, j.Tokens = max(*f.TPOTIntercept, 0), int(w.OutputTokens-1)
		}
		p.Unlogged++
		jobs = append(jobs, placed{job: j, start: w.Start, model: m})
	}
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].job.Arrival < jobs[b].job.Arrival })
	p.Policies = make([]Policy, len(p.Models))
	for m, r := range p.Routing {
		p.Policies[m] = RouteObserved
		if r.Shown() {
			p.Policies[m] = r.Plausible[0]
		}
	}
	return p, jobs, nil
}

// num is v, or def when v is NaN (unknown).
func num(v, def float64) float64 {
	if math.IsNaN(v) {
		return def
	}
	return v
}

// slopeOf is the decode slowdown per further running request of the
// replica's own fit when it has MinFitRequests, else its model's; 0 when
// neither has a positive intercept.
func slopeOf(fits map[[2]string]TPOTFit, model, replica string) (float64, string) {
	for _, k := range [][2]string{{model, replica}, {model, ""}} {
		f, ok := fits[k]
		if !ok || f.TPOTN < MinFitRequests || f.TPOTIntercept == nil || f.TPOTSlope == nil || *f.TPOTIntercept <= 0 {
			continue
		}
		from := "replica"
		if k[1] == "" {
			from = "model"
		}
		return max(*f.TPOTSlope / *f.TPOTIntercept, 0), from
	}
	return 0, "none"
}

type clockOffset struct {
	ns      float64
	aligned bool
}

// clockOffsets places every replica's clock against one gateway host's
// (the one with the most requests): a replica linked to it directly takes
// its smallest arrival minus upstream start; one linked through another
// gateway host adds that host's offset, found through a replica both
// share (breadth first, most requests first).
func clockOffsets(d *Data) (map[string]clockOffset, map[string]float64, string) {
	out := map[string]clockOffset{}
	if len(d.Offsets) == 0 {
		return out, nil, ""
	}
	perGW := map[string]int64{}
	for _, o := range d.Offsets {
		perGW[o.Gateway] += o.N
	}
	ref := ""
	for g, n := range perGW {
		if ref == "" || n > perGW[ref] || n == perGW[ref] && g < ref {
			ref = g
		}
	}
	edges := append([]Offset(nil), d.Offsets...)
	sort.SliceStable(edges, func(a, b int) bool { return edges[a].N > edges[b].N })
	gw := map[string]float64{ref: 0}
	for changed := true; changed; {
		changed = false
		for _, e := range edges {
			g, okG := gw[e.Gateway]
			r, okR := out[e.Replica]
			switch {
			case okG && !okR:
				out[e.Replica] = clockOffset{ns: g + float64(e.MinDeltaNs), aligned: true}
				changed = true
			case okR && !okG:
				gw[e.Gateway] = r.ns - float64(e.MinDeltaNs)
				changed = true
			}
		}
	}
	return out, gw, ref
}

// Routing evidence: a policy fits a model's logs when at least RouteShown
// of the requests that can tell (MinRouteEvidence at least) went where it
// would have sent them, and is ruled out when fewer did; it is shown when
// it fits and misses at most RouteMissRatio as often as the other policy
// (a light load leaves most requests on the least-loaded replica whatever
// the policy).
const (
	RouteShown       = 0.8
	RouteMissRatio   = 0.5
	MinRouteEvidence = 30
)

// routingEvidence replays the logged arrivals and ends on the common clock
// and counts, per model, how often a request went where each policy would
// have sent it, among the replicas of its model that had appeared:
//   - least loaded: to a replica with the fewest requests in it, counted
//     over the requests that found the replicas' loads unequal (where all
//     are equal any policy sends to one of the least loaded);
//   - round robin: to the replica whose last request is the oldest (or
//     that had none), whatever order the cycle takes, counted over the
//     requests that found two or more replicas;
//
// each beside what routing at random would give. From them it takes the
// policies the logs leave plausible (RoutingEvidence.Plausible).
func routingEvidence(p *Pool, jobs []placed) []RoutingEvidence {
	type ev struct {
		t       int64
		arrival bool
		job     int
	}
	var evs []ev
	for i, pl := range jobs {
		evs = append(evs, ev{t: pl.job.Arrival, arrival: true, job: i})
		end := pl.job.Arrival + int64(math.Round(num(pl.req.E2EMs, 0)*1e6))
		evs = append(evs, ev{t: end, job: i})
	}
	sort.SliceStable(evs, func(a, b int) bool {
		return evs[a].t < evs[b].t || evs[a].t == evs[b].t && !evs[a].arrival && evs[b].arrival
	})
	load := make([]int, len(p.Replicas))
	last := make([]int64, len(p.Replicas)) // the last arrival routed to it
	seen := make([]bool, len(p.Replicas))
	out := make([]RoutingEvidence, len(p.Models))
	for m := range out {
		out[m].Model = p.Models[m]
	}
	for _, e := range evs {
		j := &jobs[e.job].job
		if !e.arrival {
			load[j.Replica]--
			continue
		}
		o := &out[j.Model]
		o.N++
		lowest, atLowest, appeared, highest := math.MaxInt, 0, 0, math.MinInt
		lru := -1
		for i, r := range p.Replicas {
			if r.Model != j.Model || r.Appear > j.Arrival {
				continue
			}
			appeared++
			highest = max(highest, load[i])
			switch {
			case load[i] < lowest:
				lowest, atLowest = load[i], 1
			case load[i] == lowest:
				atLowest++
			}
			if lru < 0 || seen[lru] && (!seen[i] || last[i] < last[lru]) {
				lru = i
			}
		}
		if appeared > 1 && highest > lowest {
			o.LLN++
			if load[j.Replica] == lowest {
				o.LeastLoaded++
			}
			o.RandomBaseline += float64(atLowest) / float64(appeared)
		}
		if appeared > 1 {
			o.RRN++
			if j.Replica == lru {
				o.RoundRobin++
			}
			o.RRBaseline += 1 / float64(appeared)
		}
		load[j.Replica]++
		last[j.Replica], seen[j.Replica] = j.Arrival, true
	}
	for i := range out {
		o := &out[i]
		if o.LLN > 0 {
			o.LeastLoaded /= float64(o.LLN)
			o.RandomBaseline /= float64(o.LLN)
		}
		if o.RRN > 0 {
			o.RoundRobin /= float64(o.RRN)
			o.RRBaseline /= float64(o.RRN)
		}
		o.Plausible = plausible(o)
	}
	return out
}

// plausible are the policies a model's routing evidence leaves open, the
// likeliest first: the ones shown; when none is, the ones not ruled out
// and routing at random.
func plausible(o *RoutingEvidence) []Policy {
	shownLL := o.LLN >= MinRouteEvidence && o.LeastLoaded >= RouteShown
	shownRR := o.RRN >= MinRouteEvidence && o.RoundRobin >= RouteShown
	if shownLL && shownRR {
		missLL, missRR := 1-o.LeastLoaded, 1-o.RoundRobin
		shownLL, shownRR = missLL <= RouteMissRatio*missRR, missRR <= RouteMissRatio*missLL
		if !shownLL && !shownRR {
			shownLL, shownRR = true, true
		}
	}
	switch {
	case shownLL && shownRR:
		if o.RoundRobin > o.LeastLoaded {
			return []Policy{RouteRoundRobin, RouteLeastLoaded}
		}
		return []Policy{RouteLeastLoaded, RouteRoundRobin}
	case shownLL:
		return []Policy{RouteLeastLoaded}
	case shownRR:
		return []Policy{RouteRoundRobin}
	}
	var out []Policy
	if o.LLN < MinRouteEvidence {
		out = append(out, RouteLeastLoaded)
	}
	if o.RRN < MinRouteEvidence {
		out = append(out, RouteRoundRobin)
	}
	return append(out, RouteRandom)
}

// modelOf is the index of the named model, or an error listing them.
func (p *Pool) modelOf(name string) (int, error) {
	for i, m := range p.Models {
		if m == name {
			return i, nil
		}
	}
	return 0, fmt.Errorf("no model %q in the data (models: %s)", name, strings.Join(p.Models, ", "))
}

// Warm-up detection: a request is slow when its decode time per token is
// at least WarmSlow times what its model's fit gives for its batch.
const (
	WarmSlow      = 1.5
	MinWarmUp     = 3
	MinWarmFactor = 1.3
)

// warmUps finds each replica's warm-up: in its scheduling order, the
// requests up to its last one that is in a cold phase (the requests steps'
// phase) and slow; their median ratio of decode time per token to the fit
// is the warm-up's factor, kept when at least MinWarmFactor over at least
// MinWarmUp requests. The replay slows the replica's first requests by it
// and takes it out of the logged requests that ran in it. It returns each
// request's factor (1 outside a warm-up).
func warmUps(p *Pool, d *Data, repIdx map[string]int, fits map[[2]string]TPOTFit) []float64 {
	out := make([]float64, len(d.Requests))
	byRep := map[int][]int{}
	for i := range d.Requests {
		out[i] = 1
		if ri, ok := repIdx[d.Requests[i].Replica]; ok {
			byRep[ri] = append(byRep[ri], i)
		}
	}
	for ri, idx := range byRep {
		rep := &p.Replicas[ri]
		f, ok := fits[[2]string{p.Models[rep.Model], ""}]
		if !ok || f.TPOTIntercept == nil || *f.TPOTIntercept <= 0 {
			continue
		}
		sort.SliceStable(idx, func(a, b int) bool {
			x, y := &d.Requests[idx[a]], &d.Requests[idx[b]]
			return x.SchedNs < y.SchedNs || x.SchedNs == y.SchedNs && x.ArrNs < y.ArrNs
		})
		ratio := make([]float64, len(idx))
		last := -1
		for k, i := range idx {
			w := &d.Requests[i]
			ratio[k] = math.NaN()
			if math.IsNaN(w.TPOTMs) {
				continue
			}
			b := 1 + float64(max(w.Batch, 1)-1)/(1-p.Missing[rep.Model])
			ratio[k] = w.TPOTMs / (*f.TPOTIntercept * (1 + rep.Slope*(b-1)))
			if w.Phase == "cold" && ratio[k] >= WarmSlow {
				last = k
			}
		}
		if last+1 < MinWarmUp {
			continue
		}
		med := Quantile(ratio[:last+1], 0.5)
		if med == nil || *med < MinWarmFactor {
			continue
		}
		rep.WarmUp, rep.WarmFactor = last+1, *med
		for _, i := range idx[:last+1] {
			out[i] = *med
		}
		for e := range p.Evidence {
			if p.Evidence[e].Name == rep.Name {
				p.Evidence[e].WarmUp, p.Evidence[e].WarmFactor = rep.WarmUp, rep.WarmFactor
			}
		}
	}
	return out
}
