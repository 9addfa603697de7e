package whatif

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/contract"
	"github.com/infertrace/infertrace/internal/duck"
)

// Tolerance is how far the as-is replay may land from the logged
// percentiles (P50 and P95 of queue, TTFT and E2E, per model) for the
// model to count as fitting the data: TolerancePct of the logged value, or
// ToleranceMs when that is more (a queue of a few ms).
const (
	TolerancePct = 10.0
	ToleranceMs  = 5.0
)

// Options is one what-if: the changes to the pool and the traffic, and the
// window of the requests the figures are about.
type Options struct {
	// Replicas: "MODEL=N" (N replicas) or "MODEL=+N" / "MODEL=-N" (N more
	// or fewer than logged). Slots: "MODEL=N", the most requests each
	// replica of MODEL runs at once.
	Replicas, Slots []string
	// Traffic scales the arrival rate at every moment, keeping the mix: 1.5
	// is half as much traffic again (see compressTraffic). 0 or 1: unchanged.
	Traffic float64
	// Window: the figures are about the requests starting in it (all are
	// replayed, so that the queue at its start is what came before).
	Window    analyze.Window
	Resources duck.Resources
	// Contract, when set, has the fewest replicas to add (on top of the
	// changes) searched for, for its server queue, TTFT and E2E
	// percentiles to hold (searchContract).
	Contract *contract.Contract
}

// Change is one parsed change of a model's replicas or slots.
type Change struct {
	Model string
	// Replicas: Delta replicas more (Relative), else exactly Count.
	Relative     bool
	Count, Delta int
	// Slots (0: unchanged).
	Slots int
}

// ParseChanges reads Options.Replicas and Options.Slots.
func ParseChanges(replicas, slots []string) ([]Change, error) {
	var out []Change
	for _, s := range replicas {
		m, v, ok := strings.Cut(s, "=")
		if !ok || m == "" || v == "" {
			return nil, fmt.Errorf("--replicas %q: want MODEL=N or MODEL=+N", s)
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, fmt.Errorf("--replicas %q: %q is no whole number", s, v)
		}
		c := Change{Model: m}
		if v[0] == '+' || v[0] == '-' {
			c.Relative, c.Delta = true, n
		} else {
			if n < 1 {
				return nil, fmt.Errorf("--replicas %q: want at least 1 replica", s)
			}
			c.Count = n
		}
		out = append(out, c)
	}
	for _, s := range slots {
		m, v, ok := strings.Cut(s, "=")
		if !ok || m == "" || v == "" {
			return nil, fmt.Errorf("--slots %q: want MODEL=N", s)
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || v[0] == '+' {
			return nil, fmt.Errorf("--slots %q: want a whole number of slots, at least 1", s)
		}
		out = append(out, Change{Model: m, Slots: n})
	}
	return out, nil
}

func (c Change) String() string {
	switch {
	case c.Slots > 0:
		return fmt.Sprintf("%s: %d slots per replica", c.Model, c.Slots)
	case c.Relative:
		return fmt.Sprintf("%s: %+d replica(s)", c.Model, c.Delta)
	}
	return fmt.Sprintf("%s: %d replicas", c.Model, c.Count)
}

// MisfitKind is why a model's as-is replay does not fit its logs.
type MisfitKind int

const (
	// MisfitFigure: the as-is replay's P50 or P95 of a figure is beyond
	// the tolerance of the logged one.
	MisfitFigure MisfitKind = iota
	// MisfitUnreplayed: more than MaxUncovered of the model's server
	// records give no arrival instant, queue or server E2E.
	MisfitUnreplayed
	// MisfitUnlogged: more than MaxUncovered of the model's forwarded
	// requests have no server record (a replica's log missing).
	MisfitUnlogged
	// MisfitNoRequest: no request of the model in the window.
	MisfitNoRequest
	// MisfitUnplaced: none of its requests could be placed on a replica.
	MisfitUnplaced
)

// Misfit is one reason a model's as-is replay does not fit its logs.
type Misfit struct {
	Kind MisfitKind
	// MisfitFigure: the percentile ("P50", "P95"), the figure ("queue",
	// "TTFT", "E2E"), and the as-is replay's and the logs' values in ms.
	Quantile, Figure string
	AsIsMs, LoggedMs float64
	// MisfitUnreplayed, MisfitUnlogged: Missing of Of server records or
	// forwarded requests.
	Missing, Of int64
}

// Figures are P50, P95 and P99 of queue, TTFT and E2E at the server (ms)
// over N requests (NTTFT of them with a first token).
type Figures struct {
	N, NTTFT         int
	Queue, TTFT, E2E [3]*float64
}

// ModelResult is one model's observed, as-is and predicted figures.
type ModelResult struct {
	Model                     string
	Observed, AsIs, Predicted Figures
	From, To                  *time.Time // the first and last start of the observed requests
	Fits                      bool
	Misfits                   []Misfit // why not, one figure or gap of coverage each
	Replicas, PredReplicas    int
	Slots, PredSlots          string
	// Slices are the same figures per use case (the as-is check is the
	// model's).
	Slices []SliceResult
	// Untouched: the what-if changes neither its pool nor its traffic, so
	// its prediction is its as-is replay.
	Untouched bool
	// Policy routes its requests in Predicted; Plausible are the policies
	// its logs leave open. With more than one (and a change to predict),
	// ByPolicy has the prediction under each and Low, High their range.
	Policy    Policy
	Plausible []Policy
	ByPolicy  []PolicyFigures
	Low, High Figures
	// Saturation is the predicted pool's offered load against its
	// capacity (nil: no change, or no span); when Saturated, the queue
	// grows without bound and Predicted only says how long the window was.
	Saturation *Saturation
}

// PolicyFigures are a model's predicted figures under one routing policy.
type PolicyFigures struct {
	Policy  Policy
	Figures Figures
}

// maxPlausible is the most plausible policies a touched model has.
func maxPlausible(p *Pool, touched []bool) int {
	n := 1
	for m, t := range touched {
		if t {
			n = max(n, len(p.Routing[m].Plausible))
		}
	}
	return n
}

// span is the element-wise lowest and highest of the figures.
func span(by []PolicyFigures) (lo, hi Figures) {
	pick := func(dst *[3]*float64, src [3]*float64, better func(a, b float64) bool) {
		for k := range dst {
			if src[k] != nil && (dst[k] == nil || better(*src[k], *dst[k])) {
				v := *src[k]
				dst[k] = &v
			}
		}
	}
	less := func(a, b float64) bool { return a < b }
	more := func(a, b float64) bool { return a > b }
	for _, b := range by {
		lo.N, hi.N, lo.NTTFT, hi.NTTFT = b.Figures.N, b.Figures.N, b.Figures.NTTFT, b.Figures.NTTFT
		pick(&lo.Queue, b.Figures.Queue, less)
		pick(&lo.TTFT, b.Figures.TTFT, less)
		pick(&lo.E2E, b.Figures.E2E, less)
		pick(&hi.Queue, b.Figures.Queue, more)
		pick(&hi.TTFT, b.Figures.TTFT, more)
		pick(&hi.E2E, b.Figures.E2E, more)
	}
	return lo, hi
}

// SliceResult is one use case's figures within a model.
type SliceResult struct {
	UseCase                   string
	Observed, AsIs, Predicted Figures
}

// Result is a what-if's answer.
type Result struct {
	Dir    string
	Window analyze.Window
	// Changes are the changes asked, in order; Traffic the traffic factor
	// (1: unchanged), a change of every model when it is not 1.
	Changes []Change
	Traffic float64
	Pool    *Pool
	// Policies route each model's requests in the prediction (the first
	// of its plausible policies when the logs leave several).
	Policies []Policy
	LeftOut  int64
	Replayed int
	Models   []ModelResult
	Fits     bool // every model's as-is replay fits
	Changed  bool // there is a change to predict
	Contract *ContractResult
}

// Run answers a what-if on the analyzed dir.
func Run(ctx context.Context, dir string, o Options) (*Result, error) {
	changes, err := ParseChanges(o.Replicas, o.Slots)
	if err != nil {
		return nil, err
	}
	if o.Traffic < 0 || math.IsNaN(o.Traffic) || math.IsInf(o.Traffic, 0) {
		return nil, fmt.Errorf("--traffic %v: want a factor more than 0", o.Traffic)
	}
	if err := o.Window.Check(); err != nil {
		return nil, err
	}
	d, err := ReadInput(ctx, dir, o.Resources)
	if err != nil {
		return nil, err
	}
	return Answer(d, changes, o)
}

// Answer is Run on data already read.
func Answer(d *Data, changes []Change, o Options) (*Result, error) {
	pool, jobs, err := estimate(d)
	if err != nil {
		return nil, err
	}
	res := &Result{Dir: d.Dir, Window: o.Window, Traffic: o.Traffic, Pool: pool,
		LeftOut: d.LeftOut, Replayed: len(jobs)}
	if res.Traffic == 0 {
		res.Traffic = 1
	}
	// The models whose pool or traffic the what-if changes; the others
	// keep their as-is figures.
	touched := make([]bool, len(pool.Models))
	for _, c := range changes {
		m, err := pool.modelOf(c.Model)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c, err)
		}
		res.Changes = append(res.Changes, c)
		touched[m] = touched[m] || !(c.Relative && c.Delta == 0)
	}
	if res.Traffic != 1 {
		for m := range touched {
			touched[m] = true
		}
	}
	res.Changed = len(res.Changes) > 0 || res.Traffic != 1
	base := make([]Job, len(jobs))
	for i := range jobs {
		base[i] = jobs[i].job
	}
	asIs, err := Replay(pool.Replicas, base, pool.Policies...)
	if err != nil {
		return nil, err
	}
	reps, remap, err := apply(pool, changes)
	if err != nil {
		return nil, err
	}
	// One replay per policy a changed model's logs leave plausible: the
	// k-th replay routes each changed model by its k-th (or last)
	// plausible policy, the others as in the as-is replay.
	var scenarios [][]Policy
	for k := 0; k == 0 || k < maxPlausible(pool, touched); k++ {
		pol := append([]Policy(nil), pool.Policies...)
		for m := range pol {
			if touched[m] {
				pl := pool.Routing[m].Plausible
				pol[m] = pl[min(k, len(pl)-1)]
			}
		}
		scenarios = append(scenarios, pol)
	}
	res.Policies = scenarios[0]
	pred := base
	if res.Traffic != 1 {
		pred = compressTraffic(jobs, res.Traffic)
		t0 := jobs[0].job.Arrival
		for i := range reps {
			if a := reps[i].Appear; a > t0 {
				reps[i].Appear = t0 + int64(float64(a-t0)/res.Traffic)
			}
		}
	}
	for i := range pred {
		if r := pred[i].Replica; r >= 0 && remap != nil {
			pred[i].Replica = remap[r]
		}
	}
	var predOut []Outcome
	var predBy [][]Outcome
	if res.Changed {
		for _, pol := range scenarios {
			out, err := Replay(reps, pred, pol...)
			if err != nil {
				return nil, err
			}
			// An untouched model's requests keep their as-is outcomes: its
			// pool and its traffic are as they were.
			for i := range out {
				if !touched[jobs[i].model] {
					out[i] = asIs[i]
				}
			}
			predBy = append(predBy, out)
		}
		predOut = predBy[0]
	}
	res.Fits = true
	for m, name := range pool.Models {
		mr := ModelResult{Model: name}
		var obs, as, pr [][3]float64
		slices := map[string]*[3][][3]float64{}
		var order []string
		for i, pl := range jobs {
			if pl.model != m || pl.job.Unlogged || !inWindow(pl.start, o.Window) {
				continue
			}
			if pl.start != nil {
				if mr.From == nil || pl.start.Before(*mr.From) {
					mr.From = pl.start
				}
				if mr.To == nil || pl.start.After(*mr.To) {
					mr.To = pl.start
				}
			}
			a := asIs[i]
			row := [3][3]float64{{pl.obsQueue, pl.obsTTFT, pl.obsE2E}, {a.QueueMs, a.TTFTMs, a.E2EMs}}
			if predOut != nil { // pred[i] is jobs[i], played as changed
				p := predOut[i]
				row[2] = [3]float64{p.QueueMs, p.TTFTMs, p.E2EMs}
				pr = append(pr, row[2])
			}
			obs, as = append(obs, row[0]), append(as, row[1])
			uc := pl.req.UseCase
			if uc == "" {
				uc = "(none logged)"
			}
			sl, ok := slices[uc]
			if !ok {
				sl = &[3][][3]float64{}
				slices[uc] = sl
				order = append(order, uc)
			}
			for k := range 3 {
				sl[k] = append(sl[k], row[k])
			}
		}
		mr.Observed, mr.AsIs = figures(obs), figures(as)
		mr.Untouched = !touched[m]
		if res.Changed && touched[m] {
			mr.Saturation = saturation(reps, pred, m)
		}
		mr.Plausible = pool.Routing[m].Plausible
		mr.Policy = res.Policies[m]
		if predOut != nil {
			mr.Predicted = figures(pr)
			if touched[m] && len(mr.Plausible) > 1 {
				for k := range mr.Plausible {
					var rows [][3]float64
					for i, pl := range jobs {
						if pl.model == m && !pl.job.Unlogged && inWindow(pl.start, o.Window) {
							p := predBy[min(k, len(predBy)-1)][i]
							rows = append(rows, [3]float64{p.QueueMs, p.TTFTMs, p.E2EMs})
						}
					}
					mr.ByPolicy = append(mr.ByPolicy, PolicyFigures{Policy: mr.Plausible[k], Figures: figures(rows)})
				}
				mr.Low, mr.High = span(mr.ByPolicy)
			}
		}
		sort.Strings(order)
		for _, uc := range order {
			sl := slices[uc]
			r := SliceResult{UseCase: uc, Observed: figures(sl[0]), AsIs: figures(sl[1])}
			if predOut != nil {
				r.Predicted = figures(sl[2])
			}
			mr.Slices = append(mr.Slices, r)
		}
		mr.Misfits = append(coverage(d, name), misfits(mr.Observed, mr.AsIs)...)
		mr.Fits = len(mr.Misfits) == 0 && mr.Observed.N > 0
		if mr.Observed.N == 0 {
			mr.Misfits = append(mr.Misfits, Misfit{Kind: MisfitNoRequest})
		}
		res.Fits = res.Fits && mr.Fits
		mr.Replicas, mr.Slots = countSlots(pool.Replicas, m)
		mr.PredReplicas, mr.PredSlots = countSlots(reps, m)
		res.Models = append(res.Models, mr)
	}
	if o.Contract != nil {
		fits := make([]bool, len(pool.Models))
		for m := range pool.Models {
			fits[m] = res.Models[m].Fits
		}
		// Added replicas need a policy: each model's likeliest.
		cp := append([]Policy(nil), pool.Policies...)
		for m := range cp {
			cp[m] = pool.Routing[m].Plausible[0]
		}
		res.Contract = searchContract(o.Contract, pool, jobs, pred, reps, cp, fits, func(i int) bool { return inWindow(jobs[i].start, o.Window) })
	}
	// Models with requests but no replica the replay could place.
	for _, name := range unplacedModels(d, pool) {
		res.Fits = false
		res.Models = append(res.Models, ModelResult{Model: name,
			Misfits: append(coverage(d, name), Misfit{Kind: MisfitUnplaced})})
	}
	return res, nil
}

// MaxUncovered is the largest share of a model's requests the replay may
// lack or make up before the model counts as not fitting: requests with a
// server record it cannot place, and forwarded requests without one (a
// replica whose log is missing would be missing from the pool).
const MaxUncovered = 0.05

// coverage says why the replay of the model rests on too few of its
// requests, if it does.
func coverage(d *Data, model string) []Misfit {
	var placed, unlogged int64
	for i := range d.Requests {
		if d.Requests[i].Model == model {
			placed++
		}
	}
	for i := range d.Unlogged {
		if d.Unlogged[i].Model == model {
			unlogged++
		}
	}
	records := d.ServerRecords[model]
	var out []Misfit
	if left := records - placed; records > 0 && float64(left) > MaxUncovered*float64(records) {
		out = append(out, Misfit{Kind: MisfitUnreplayed, Missing: left, Of: records})
	}
	if all := records + unlogged; all > 0 && float64(unlogged) > MaxUncovered*float64(all) {
		out = append(out, Misfit{Kind: MisfitUnlogged, Missing: unlogged, Of: all})
	}
	return out
}

// unplacedModels are the models with requests of which the pool has no
// replica.
func unplacedModels(d *Data, p *Pool) []string {
	seen := map[string]bool{}
	for _, m := range p.Models {
		seen[m] = true
	}
	var out []string
	add := func(m string) {
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	var names []string
	for m := range d.ServerRecords {
		names = append(names, m)
	}
	sort.Strings(names)
	for _, m := range names {
		add(m)
	}
	for i := range d.Unlogged {
		add(d.Unlogged[i].Model)
	}
	return out
}

func countSlots(reps []Replica, m int) (int, string) {
	n := 0
	var slots []string
	seen := map[int]bool{}
	for _, r := range reps {
		if r.Model != m {
			continue
		}
		n++
		if !seen[r.Slots] {
			seen[r.Slots] = true
			slots = append(slots, strconv.Itoa(r.Slots))
		}
	}
	return n, strings.Join(slots, "/")
}

func inWindow(t *time.Time, w analyze.Window) bool {
	if w.IsZero() {
		return true
	}
	if t == nil {
		return false
	}
	return (w.From.IsZero() || !t.Before(w.From)) && (w.To.IsZero() || t.Before(w.To))
}

// figures are the percentiles of the rows' queue, TTFT and E2E.
func figures(rows [][3]float64) Figures {
	f := Figures{N: len(rows)}
	cols := [3][]float64{}
	for _, r := range rows {
		for k := range 3 {
			cols[k] = append(cols[k], r[k])
		}
		if !math.IsNaN(r[1]) {
			f.NTTFT++
		}
	}
	for k, q := range []float64{0.5, 0.95, 0.99} {
		f.Queue[k] = Quantile(cols[0], q)
		f.TTFT[k] = Quantile(cols[1], q)
		f.E2E[k] = Quantile(cols[2], q)
	}
	return f
}

// misfits lists the P50 and P95 figures where the as-is replay is beyond
// the tolerance of the logged value.
func misfits(obs, as Figures) []Misfit {
	var out []Misfit
	for _, m := range []struct {
		name string
		o, a [3]*float64
	}{{"queue", obs.Queue, as.Queue}, {"TTFT", obs.TTFT, as.TTFT}, {"E2E", obs.E2E, as.E2E}} {
		for k, q := range []string{"P50", "P95"} {
			o, a := m.o[k], m.a[k]
			if o == nil || a == nil {
				continue
			}
			if math.Abs(*a-*o) > math.Max(TolerancePct/100*math.Abs(*o), ToleranceMs) {
				out = append(out, Misfit{Kind: MisfitFigure, Quantile: q, Figure: m.name, AsIsMs: *a, LoggedMs: *o})
			}
		}
	}
	return out
}

// apply returns the changed replicas, and for a changed set of replicas
// the index of each old replica in it (-1: removed); nil when the set is
// the same.
func apply(p *Pool, changes []Change) ([]Replica, []int, error) {
	reps := append([]Replica(nil), p.Replicas...)
	keep := make([]bool, len(reps))
	for i := range keep {
		keep[i] = true
	}
	var added []Replica
	changedSet := false
	for _, c := range changes {
		if c.Slots > 0 || (c.Relative && c.Delta == 0) {
			continue
		}
		m, _ := p.modelOf(c.Model)
		var idx []int
		for i, r := range reps {
			if r.Model == m && keep[i] {
				idx = append(idx, i)
			}
		}
		for _, r := range added {
			if r.Model == m {
				idx = append(idx, -1)
			}
		}
		target := c.Count
		if c.Relative {
			target = len(idx) + c.Delta
		}
		if target < 1 {
			return nil, nil, fmt.Errorf("%s: leaves %s with %d replicas: want at least 1", c, c.Model, target)
		}
		for n := len(idx); n < target; n++ {
			added = append(added, newReplica(p, m, n))
			changedSet = true
		}
		// Fewer: the replicas that appeared last go first.
		var own []int
		for _, i := range idx {
			if i >= 0 {
				own = append(own, i)
			}
		}
		sort.SliceStable(own, func(a, b int) bool { return reps[own[a]].Appear > reps[own[b]].Appear })
		for n, k := len(idx), 0; n > target && k < len(own); n, k = n-1, k+1 {
			keep[own[k]] = false
			changedSet = true
		}
	}
	var out []Replica
	remap := make([]int, len(reps))
	for i, r := range reps {
		remap[i] = -1
		if keep[i] {
			remap[i] = len(out)
			out = append(out, r)
		}
	}
	out = append(out, added...)
	for _, c := range changes {
		if c.Slots == 0 {
			continue
		}
		m, _ := p.modelOf(c.Model)
		for i := range out {
			if out[i].Model == m {
				out[i].Slots = c.Slots
			}
		}
	}
	if !changedSet {
		return out, nil, nil
	}
	return out, remap, nil
}

// newReplica is an added replica of model m: there from the start, with
// the most slots its model's replicas have and its model's decode fit.
func newReplica(p *Pool, m, n int) Replica {
	r := Replica{Name: fmt.Sprintf("%s (added %d)", p.Models[m], n+1), Model: m, Appear: math.MinInt64}
	fits := map[[2]string]TPOTFit{}
	for _, f := range p.Fits {
		fits[[2]string{f.Model, f.Replica}] = f
	}
	r.Slope, _ = slopeOf(fits, p.Models[m], "")
	if f, ok := prefillOf(p.PrefillFits, p.Models[m], ""); ok {
		r.PrefillSlope = f.Slope
	}
	for _, x := range p.Replicas {
		if x.Model == m {
			r.Slots = max(r.Slots, x.Slots)
		}
	}
	r.Slots = max(r.Slots, 1)
	return r
}

// compressTraffic plays the logged arrivals factor times as fast: every
// gap between two arrivals (on the common clock) is divided by factor, and
// every replica appears as much sooner. A Poisson stream stays one, at
// factor times the rate, with the same requests (model, tokens, service
// times); a burst keeps its share of the requests and its rate over the
// steady rate, in 1/factor of the time. Requests keep their logged start
// for the window: the figures of a window are those of its requests.
func compressTraffic(jobs []placed, factor float64) []Job {
	out := make([]Job, len(jobs))
	if len(jobs) == 0 {
		return out
	}
	t0 := jobs[0].job.Arrival
	for i, pl := range jobs {
		out[i] = pl.job
		out[i].Arrival = t0 + int64(float64(pl.job.Arrival-t0)/factor)
	}
	return out
}
