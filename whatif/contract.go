package whatif

import (
	"math"

	"github.com/infertrace/infertrace/contract"
)

// ContractMaxAdded bounds the replicas the contract search adds per model.
const ContractMaxAdded = 8

// ContractResult is the contract search's answer: the fewest replicas to
// add, on top of the what-if's changes, for every judged constraint to
// hold in the replay, and each constraint at that change.
type ContractResult struct {
	File string
	// Met: every judged constraint holds with Added; Added[m] is the
	// replicas added to model m (Models order).
	Met    bool
	Added  []int
	Models []string
	Steps  int // replays the search ran
	Checks []ContractCheck
	// NotJudged says which constraints the replay cannot judge, and why.
	NotJudged []NotJudged
}

// NotJudgedReason is why the replay cannot judge a contract's case or
// constraint.
type NotJudgedReason int

const (
	// NotKept: the case matches on Column, which the replay does not keep.
	NotKept NotJudgedReason = iota
	// SlicesBy: the case's slices (by By) are not judged, only the case.
	SlicesBy
	// NotReplayed: Metric is not a server queue, TTFT or E2E percentile.
	NotReplayed
	// ModelMisfit: Metric of the case is on Model, whose as-is replay does
	// not fit.
	ModelMisfit
)

// NotJudged is a case or constraint of the contract the replay does not
// judge.
type NotJudged struct {
	Case   string
	Reason NotJudgedReason
	Column string   // NotKept
	By     []string // SlicesBy
	Metric string   // NotReplayed, ModelMisfit
	Model  string   // ModelMisfit
}

// ContractCheck is one judged constraint at the change found (or at the
// last one tried).
type ContractCheck struct {
	Case, Metric string
	Percentile   float64
	Op           string
	Target       float64
	Value        *float64
	N            int
	Met          bool
}

// whatifMetrics are the contract metrics the replay gives: per request,
// the index of queue, TTFT, E2E in an outcome row; TTFT over streamed
// requests, as the contract defines it.
var whatifMetrics = map[string]int{"queue_ms": 0, "server_ttft_ms": 1, "server_e2e_ms": 2}

type judged struct {
	c     contract.Constraint
	cs    string
	model string // "" any
	uc    string // "" any
}

// searchContract adds one replica at a time, each time to the model whose
// extra replica leaves the least shortfall (the sum over failing
// constraints of how far their value misses the target, relative to it),
// until every judged constraint holds, at most ContractMaxAdded per model.
func searchContract(c *contract.Contract, p *Pool, jobs []placed, pred []Job, reps []Replica, policy []Policy, fits []bool, win func(i int) bool) *ContractResult {
	res := &ContractResult{File: c.File, Models: p.Models, Added: make([]int, len(p.Models))}
	var js []judged
	for _, cs := range c.Cases {
		j := judged{cs: cs.Name}
		ok := true
		for _, m := range cs.Match {
			switch m.Column {
			case "use_case":
				j.uc = m.Value
			case "model":
				j.model = m.Value
			default:
				ok = false
				res.NotJudged = append(res.NotJudged, NotJudged{Case: cs.Name, Reason: NotKept, Column: m.Column})
			}
		}
		if !ok {
			continue
		}
		if len(cs.By) > 0 {
			res.NotJudged = append(res.NotJudged, NotJudged{Case: cs.Name, Reason: SlicesBy, By: cs.By})
		}
		for _, k := range cs.Constraints {
			if _, ok := whatifMetrics[k.Metric]; !ok || k.Percentile <= 0 {
				res.NotJudged = append(res.NotJudged, NotJudged{Case: cs.Name, Reason: NotReplayed, Metric: k.Metric})
				continue
			}
			j.c = k
			js = append(js, j)
		}
	}
	// A case on a model whose as-is replay does not fit cannot be judged.
	var usable []judged
	for _, j := range js {
		bad := ""
		for m, name := range p.Models {
			if !fits[m] && (j.model == "" || j.model == name) && caseHas(jobs, m, j) {
				bad = name
			}
		}
		if bad != "" {
			res.NotJudged = append(res.NotJudged, NotJudged{Case: j.cs, Reason: ModelMisfit, Metric: j.c.Metric, Model: bad})
			continue
		}
		usable = append(usable, j)
	}
	if len(usable) == 0 {
		return res
	}
	judge := func(added []int) ([]ContractCheck, float64, bool) {
		rs := append([]Replica(nil), reps...)
		for m, n := range added {
			for k := range n {
				rs = append(rs, newReplica(p, m, k+countModel(rs, m)))
			}
		}
		res.Steps++
		out, err := Replay(rs, pred, policy...)
		if err != nil {
			return nil, math.Inf(1), false
		}
		var checks []ContractCheck
		short, all := 0.0, true
		for _, j := range usable {
			var xs []float64
			for i, pl := range jobs {
				if pl.job.Unlogged || !win(i) || !inCase(p, pl, j) {
					continue
				}
				if j.c.Metric == "server_ttft_ms" && !pl.req.Streamed {
					continue
				}
				xs = append(xs, [3]float64{out[i].QueueMs, out[i].TTFTMs, out[i].E2EMs}[whatifMetrics[j.c.Metric]])
			}
			v := Quantile(xs, j.c.Percentile/100)
			ck := ContractCheck{Case: j.cs, Metric: j.c.Metric, Percentile: j.c.Percentile, Op: j.c.Op, Target: j.c.Target, Value: v, N: len(xs)}
			if v != nil {
				ck.Met = meets(*v, j.c.Op, j.c.Target)
				if !ck.Met {
					short += math.Abs(*v-j.c.Target) / math.Max(math.Abs(j.c.Target), 1)
				}
			}
			all = all && ck.Met
			checks = append(checks, ck)
		}
		return checks, short, all
	}
	added := make([]int, len(p.Models))
	checks, short, ok := judge(added)
	for !ok {
		best, bestShort := -1, short
		var bestChecks []ContractCheck
		bestOK := false
		for m := range p.Models {
			if added[m] >= ContractMaxAdded || !fits[m] {
				continue
			}
			try := append([]int(nil), added...)
			try[m]++
			c, s, o := judge(try)
			if o || best < 0 || s < bestShort {
				best, bestShort, bestChecks, bestOK = m, s, c, o
			}
			if o {
				break
			}
		}
		if best < 0 {
			break
		}
		added[best]++
		checks, short, ok = bestChecks, bestShort, bestOK
	}
	res.Added, res.Checks, res.Met = added, checks, ok
	return res
}

func countModel(rs []Replica, m int) int {
	n := 0
	for _, r := range rs {
		if r.Model == m {
			n++
		}
	}
	return n
}

func inCase(p *Pool, pl placed, j judged) bool {
	if j.model != "" && p.Models[pl.model] != j.model {
		return false
	}
	return j.uc == "" || pl.req.UseCase == j.uc
}

func caseHas(jobs []placed, m int, j judged) bool {
	for _, pl := range jobs {
		if pl.model == m && !pl.job.Unlogged && (j.uc == "" || pl.req.UseCase == j.uc) {
			return true
		}
	}
	return false
}

func meets(v float64, op string, target float64) bool {
	switch op {
	case "<=":
		return v <= target
	case "<":
		return v < target
	case ">=":
		return v >= target
	case ">":
		return v > target
	}
	return false
}
