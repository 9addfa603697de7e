package whatif

import (
	"container/heap"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// Job is one request to replay through the pool.
type Job struct {
	// Arrival is when it reaches the pool, ns on the common clock.
	Arrival int64
	// Model indexes the pool's models; the job goes to a replica of it.
	Model int
	// PrefillMs is its time from scheduling to the first token at a batch
	// of one (the prefill of its own prompt; Replica.PrefillSlope slows it
	// with the batch). For a request that failed
	// before its first token it is the whole service time, and Tokens is 0.
	PrefillMs float64
	// BaseTPOTMs is its decode time per token after the first at a batch
	// of one: its own decode time per token divided by the slowdown of the
	// batch it ran in. Tokens is the number of those tokens (output - 1).
	BaseTPOTMs float64
	Tokens     int
	// FixedDecodeMs is added to its decode time whatever the batch (the
	// decode of a request whose time per token is unknown).
	FixedDecodeMs float64
	// TTFTExtraMs and E2EExtraMs are the server's own time outside the
	// queue and the model (server overhead), before the first token and in
	// all, added as logged.
	TTFTExtraMs, E2EExtraMs float64
	// NoFirstToken: it failed before its first token; no TTFT.
	NoFirstToken bool
	// Replica is the replica (index into Pool.Replicas) it ran on, for
	// RouteObserved; -1 when none (then it is routed to the least loaded).
	Replica int
	// Unlogged: its server record is missing, its service times come
	// from its model's fits, and no figure counts it.
	Unlogged bool
}

// Replica is one serving replica of the pool.
type Replica struct {
	Name  string
	Model int
	// Slots is the most requests it runs at once; more wait in its queue,
	// first come first served.
	Slots int
	// Appear is when it starts taking requests, ns on the common clock.
	Appear int64
	// Slope is how much slower decoding gets per further running request,
	// as a share of the time per token at a batch of one: a request
	// scheduled into a batch of b decodes at BaseTPOTMs * (1 + Slope*(b-1))
	// for its whole life.
	Slope float64
	// PrefillSlope slows prefill in the same way: a request scheduled into
	// a batch of b prefills in PrefillMs * (1 + PrefillSlope*(b-1)).
	PrefillSlope float64
	// WarmUp is how many of the first requests it schedules run WarmFactor
	// times slower, prefill and decode (a replica warming up); 0: none.
	WarmUp     int
	WarmFactor float64
}

// Policy is how a request is routed among its model's replicas.
type Policy int

const (
	// RouteLeastLoaded sends each request to the replica of its model with
	// the fewest requests in it (running and queued) among those that have
	// appeared; ties go to the first in Pool.Replicas order.
	RouteLeastLoaded Policy = iota
	// RouteObserved keeps the replica each request ran on (Job.Replica).
	RouteObserved
	// RouteRoundRobin sends a model's requests to its replicas that have
	// appeared in turn: a counter per model, taken modulo their number, in
	// Pool.Replicas order.
	RouteRoundRobin
	// RouteRandom sends each request to one of its model's replicas that
	// have appeared at random (one fixed seed per model: the same replay
	// gives the same answer).
	RouteRandom
)

func (p Policy) String() string {
	switch p {
	case RouteObserved:
		return "as observed"
	case RouteRoundRobin:
		return "round robin"
	case RouteRandom:
		return "random"
	}
	return "least loaded"
}

// Outcome is what the replay gives one job.
type Outcome struct {
	Replica int
	// Batch is the requests running on its replica when it was scheduled,
	// itself included.
	Batch                  int
	QueueMs, TTFTMs, E2EMs float64
}

type engineEvent struct {
	t       int64
	seq     int64
	replica int
	ready   bool // the replica appears (else a job ends)
}

// eventQueue is a min-heap (container/heap) by time, then by the order
// events were made.
type eventQueue []engineEvent

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	return q[i].t < q[j].t || q[i].t == q[j].t && q[i].seq < q[j].seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(engineEvent)) }
func (q *eventQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

func (q *eventQueue) push(e engineEvent) { heap.Push(q, e) }
func (q *eventQueue) pop() engineEvent   { return heap.Pop(q).(engineEvent) }

type replicaState struct {
	Replica
	running  int
	admitted int
	queue    []int // job indexes, FIFO
	head     int
}

func (r *replicaState) load() int { return r.running + len(r.queue) - r.head }

// Replay runs the jobs through the replicas as a discrete-event model of
// continuous batching: a job is routed on arrival (policy), waits in its
// replica's queue while Slots jobs run there, and once scheduled into a
// batch of b it takes PrefillMs*(1+PrefillSlope*(b-1)) to its first token
// and then Tokens tokens
// of BaseTPOTMs*(1+Slope*(b-1)) each, plus FixedDecodeMs (all WarmFactor
// times longer for the first WarmUp requests a replica schedules). Events at the
// same instant: a job ending frees its slot before a job arriving then is
// routed. The jobs must be in arrival order; the outcomes are in the same
// order. policy[m] routes model m's requests; a single policy routes every
// model's.
func Replay(replicas []Replica, jobs []Job, policy ...Policy) ([]Outcome, error) {
	if len(policy) == 0 {
		return nil, fmt.Errorf("no routing policy")
	}
	reps := make([]*replicaState, len(replicas))
	byModel := map[int][]int{}
	for i, r := range replicas {
		if r.Slots < 1 {
			return nil, fmt.Errorf("replica %s has %d slots: want at least 1", r.Name, r.Slots)
		}
		reps[i] = &replicaState{Replica: r}
		byModel[r.Model] = append(byModel[r.Model], i)
	}
	out := make([]Outcome, len(jobs))
	rt := &router{policy: policy, next: map[int]int{}, rng: map[int]*rand.Rand{}}
	var q eventQueue
	var seq int64
	for i, r := range reps {
		seq++
		q.push(engineEvent{t: r.Appear, seq: seq, replica: i, ready: true})
	}
	admit := func(ri int, t int64) {
		r := reps[ri]
		if t < r.Appear {
			return
		}
		for r.running < r.Slots && r.head < len(r.queue) {
			ji := r.queue[r.head]
			r.head++
			r.running++
			j := &jobs[ji]
			b := r.running
			f := 1.0
			if r.admitted < r.WarmUp {
				f = r.WarmFactor
			}
			r.admitted++
			prefill := j.PrefillMs * (1 + r.PrefillSlope*float64(b-1)) * f
			tpot := j.BaseTPOTMs * (1 + r.Slope*float64(b-1)) * f
			wait := float64(t-j.Arrival) / 1e6
			serviceMs := prefill + float64(j.Tokens)*tpot + j.FixedDecodeMs*f
			end := t + int64(math.Round(serviceMs*1e6))
			o := &out[ji]
			o.Replica, o.Batch, o.QueueMs = ri, b, wait
			o.TTFTMs = wait + prefill + j.TTFTExtraMs
			if j.NoFirstToken {
				o.TTFTMs = math.NaN()
			}
			o.E2EMs = float64(end-j.Arrival)/1e6 + j.E2EExtraMs
			seq++
			q.push(engineEvent{t: end, seq: seq, replica: ri})
		}
		if r.head == len(r.queue) {
			r.queue, r.head = r.queue[:0], 0
		}
	}
	next := 0
	for next < len(jobs) || len(q) > 0 {
		if len(q) > 0 && (next == len(jobs) || q[0].t <= jobs[next].Arrival) {
			e := q.pop()
			if !e.ready {
				reps[e.replica].running--
			}
			admit(e.replica, e.t)
			continue
		}
		j := &jobs[next]
		if next > 0 && j.Arrival < jobs[next-1].Arrival {
			return nil, fmt.Errorf("jobs out of arrival order at %d", next)
		}
		ri, err := rt.route(reps, byModel[j.Model], j)
		if err != nil {
			return nil, err
		}
		reps[ri].queue = append(reps[ri].queue, next)
		admit(ri, j.Arrival)
		next++
	}
	return out, nil
}

// router holds the routing state of one replay: each model's policy,
// round-robin counter and random stream.
type router struct {
	policy []Policy
	next   map[int]int
	rng    map[int]*rand.Rand
}

func (rt *router) policyOf(m int) Policy {
	if len(rt.policy) == 1 || m >= len(rt.policy) {
		return rt.policy[0]
	}
	return rt.policy[m]
}

func (rt *router) route(reps []*replicaState, cands []int, j *Job) (int, error) {
	if len(cands) == 0 {
		return 0, fmt.Errorf("no replica serves model %d", j.Model)
	}
	policy := rt.policyOf(j.Model)
	if policy == RouteObserved && j.Replica >= 0 {
		if j.Replica >= len(reps) || reps[j.Replica].Model != j.Model {
			return 0, fmt.Errorf("job has no replica of its model to keep")
		}
		return j.Replica, nil
	}
	if policy == RouteRoundRobin || policy == RouteRandom {
		var up []int
		for _, i := range cands {
			if reps[i].Appear <= j.Arrival {
				up = append(up, i)
			}
		}
		if len(up) > 0 {
			if policy == RouteRandom {
				g, ok := rt.rng[j.Model]
				if !ok {
					g = rand.New(rand.NewPCG(uint64(j.Model)+1, 0x9e3779b97f4a7c15))
					rt.rng[j.Model] = g
				}
				return up[g.IntN(len(up))], nil
			}
			k := rt.next[j.Model] % len(up)
			rt.next[j.Model]++
			return up[k], nil
		}
	}
	best := -1
	for _, i := range cands {
		if reps[i].Appear > j.Arrival {
			continue
		}
		if best < 0 || reps[i].load() < reps[best].load() {
			best = i
		}
	}
	if best < 0 { // none has appeared yet: the first to appear queues it
		best = cands[0]
		for _, i := range cands {
			if reps[i].Appear < reps[best].Appear {
				best = i
			}
		}
	}
	return best, nil
}

// Quantile is the q quantile of xs by linear interpolation between the
// closest ranks (DuckDB's quantile_cont); NaN values are left out, and
// nil is returned when none remains. xs is not modified.
func Quantile(xs []float64, q float64) *float64 {
	v := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return nil
	}
	sort.Float64s(v)
	pos := q * float64(len(v)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(v)-1)
	r := v[lo] + (pos-float64(lo))*(v[hi]-v[lo])
	return &r
}
