package compare

import (
	"time"

	"github.com/infertrace/infertrace/analyze"
)

// What a comparison of two sets of requests returns (Run computes it;
// report words it): per slice, the change of every figure,
// and the change judged against the product contract.

// CompareSide is one side of a comparison: the requests of Dir, optionally
// only those starting in [From, To) (on the first tier's clock, as the
// report's windows), or only those whose slice column Column has Value.
type CompareSide struct {
	Dir      string
	From, To *time.Time
	Column   string
	Value    string
}

// Label says which requests the side holds, e.g. "out/last-week",
// "10:00:00–10:30:00 UTC" or "model=llama-3.1-70b".
func (s CompareSide) Label() string {
	switch {
	case s.Column != "":
		return s.Column + "=" + s.Value
	case s.From != nil && s.To != nil:
		return analyze.FormatWindow(s.From, s.To)
	}
	return s.Dir
}

// CompareDims are the columns Compare also slices by one at a time, to
// find where a change is: a change in one region shows in its region's
// slice, not in every model's.
var CompareDims = []string{"model", "region", "use_case", "gateway", "replica", "client"}

// Comparison is what compare shows: per slice, the change of every figure
// from the baseline to the target (report words its findings).
type Comparison struct {
	Baseline, Target      CompareSide
	BaselineLabel         string
	TargetLabel           string
	By                    []string
	BaselineN, TargetN    int64          // requests on each side
	Slices                []CompareSlice // all requests, then the --by slices, most requests first
	Dims                  []CompareSlice // the one-column slices of CompareDims
	Significant, Compared int            // quantile changes significant / compared (all requests and --by slices)
	// Verdict is the change judged against the contract (nil without
	// one).
	Verdict *ContractVerdict
}

// CompareSlice is one slice of a comparison.
type CompareSlice struct {
	All       bool
	Columns   []string
	Values    []string
	Label     string // "all requests" or "model=m, use_case=u"
	BaselineN int64  // requests in the slice on each side
	TargetN   int64
	Metrics   []MetricChange // in CompareMetrics order
}

// MetricChange is the change of one metric's quantiles.
type MetricChange struct {
	Metric string // "client_e2e", "queue", "ttft_network", ...
	Name   string // "client E2E", "queue", "TTFT network"
	Unit   string // "ms" or "tok/s"
	// HigherIsBetter: a rise is an improvement (tokens/s).
	HigherIsBetter bool
	Points         []QuantileChange // P50, P95, P99
}

// QuantileChange is the change of one quantile, with its 95% interval
// (queries/compare.sql says how it is computed). A nil Lo or Hi is an
// open bound: the samples cannot bound the change on that side.
type QuantileChange struct {
	P                   float64
	BaselineN, TargetN  int64
	Baseline, Target    *float64
	Delta, Lo, Hi       *float64
	Significant, TooFew bool
	// Strong: the 99.9% interval excludes 0 too; findings need it.
	Strong bool
	// LoIndep, HiIndep: the 95% interval as if the requests were
	// independent samples, only to set slices of one comparison side by
	// side (mostIn): they share the same time and its bursts.
	LoIndep, HiIndep *float64
	// BaselineD, TargetD: each side's design effect, how many requests
	// count as one independent sample given how they cluster in time
	// (1: independent); nil without samples.
	BaselineD, TargetD *float64
}

// EffectiveN is each side's number of samples over its design effect:
// what its interval rests on.
func (q QuantileChange) EffectiveN() (baseline, target float64) {
	eff := func(n int64, d *float64) float64 {
		if d == nil || *d < 1 {
			return float64(n)
		}
		return float64(n) / *d
	}
	return eff(q.BaselineN, q.BaselineD), eff(q.TargetN, q.TargetD)
}

// CompareMetrics lists the compared metrics in the order a comparison
// shows them: the headline figures, the E2E attribution, the split of
// model time, the TTFT attribution.
var CompareMetrics = []struct{ Metric, Name, Unit string }{
	{"client_e2e", "client E2E", "ms"},
	{"client_ttft", "client TTFT", "ms"},
	{"tps_user", "per-user tokens/s", "tok/s"},
	{"network", "network", "ms"},
	{"application", "application", "ms"},
	{"queue", "queue", "ms"},
	{"model", "model", "ms"},
	{"prefill", "prefill", "ms"},
	{"decode", "decode", "ms"},
	{"ttft_network", "TTFT network", "ms"},
	{"ttft_application", "TTFT application", "ms"},
	{"ttft_queue", "TTFT queue", "ms"},
	{"ttft_model", "TTFT model", "ms"},
}

// Metric returns the change of one metric ("queue"), or false.
func (s *CompareSlice) Metric(name string) (MetricChange, bool) {
	for _, m := range s.Metrics {
		if m.Metric == name {
			return m, true
		}
	}
	return MetricChange{}, false
}

// Point returns metric's quantile change at p in s (the zero change when
// s has none).
func (s *CompareSlice) Point(metric string, p float64) QuantileChange {
	m, _ := s.Metric(metric)
	for _, q := range m.Points {
		if q.P == p {
			return q
		}
	}
	return QuantileChange{}
}

// The statuses of a constraint's change and the verdicts on a change
// (compare's rules, stated in the compare package and docs/compare.md).
const (
	ChangeImproved   = "improved"
	ChangeWithin     = "worsened within its allowance"
	ChangeBeyond     = "worsened beyond its allowance"
	ChangeNone       = "no significant change"
	ChangeCannotTell = "cannot tell"
	VerdictAccept    = "accept"
	VerdictReject    = "reject"
	VerdictUndecided = "undecided"
)

// ContractVerdict is compare's verdict on the change against the
// contract.
type ContractVerdict struct {
	File    string
	Verdict string // VerdictAccept, VerdictReject or VerdictUndecided
	// Deciding is the index in Cases of the use case that decides a
	// reject (the first whose quality drops, else the first rejected in
	// the contract's order); -1 when the change is not rejected.
	Deciding int
	Cases    []CaseChange
}

// CaseChange is one use case of the contract on both sides.
type CaseChange struct {
	Name, Match        string
	BaselineN, TargetN int64 // the use case's requests on each side
	Verdict            string
	// Deciding is the index in Constraints of the constraint that rejects
	// the use case (the first beyond its allowance, a quality one before
	// any other); -1 when the use case is not rejected.
	Deciding                   int
	Constraints                []ConstraintChange
	QualityHolds, QualityKnown bool
}

// ConstraintChange is one constraint measured on both sides.
type ConstraintChange struct {
	Baseline, Target analyze.ConstraintResult
	Delta, Lo, Hi    *float64
	// Allowed is the allowance in the metric's unit (may_worsen, or its
	// fraction of the baseline's value); 0: none.
	Allowed float64
	Status  string // ChangeImproved, ChangeWithin, ChangeBeyond, ChangeNone, ChangeCannotTell
	Why     string // for ChangeCannotTell: "n too small on the target", ...
}

// Kind is the constraint's kind ("quality").
func (c ConstraintChange) Kind() string { return c.Target.Kind }

// TrendComparison is what changed between the last two periods of a
// trend, by Run's rules: order-statistic intervals on each side, one
// backlog counted as one event, so that traffic where nothing changed
// gives no finding in 19 of 20 comparisons.
type TrendComparison struct {
	Baseline, Target string // the periods' labels, e.g. "week of 2026-11-23"
	// Comparison is the comparison itself, for the findings a report
	// words of it.
	Comparison            *Comparison
	Significant, Compared int
}

// Method is how Run measures a change and when it states one
// (queries/compare.sql, and the findings report words); a comparison
// page prints it as its protocol.
const Method = `Percentiles are DuckDB's quantile_cont on each side, over the same samples as the report (TTFT and its components over streamed requests). ` +
	`Each side's interval of a percentile is distribution-free, the order statistics of ranks floor(np − z √(D np(1 − p))) and ceil(np + z √(D np(1 − p))) + 1 as in the report: it assumes nothing of the distribution's shape, so it holds where a percentile falls in a gap between two modes (two regions' round trips), and a rank beyond the n samples leaves its bound open. ` +
	`D, the design effect, counts requests that cluster in time as fewer samples: each side's time is cut into blocks of 1 minute (a tenth of the side's span when that is shorter, at least 1 s), and D is the variance over the blocks of the share of samples at or below the percentile, against that of independent samples (at least 1; samples all in one block have no interval), so one burst's backlog weighs as one event, not as its n requests. ` +
	`The 95% interval of a change runs from the target's lower bound minus the baseline's upper bound to the target's upper bound minus the baseline's lower bound, each side's interval at √0.95, so that both hold together with 95%; "open" is a bound the samples cannot give. ` +
	`A finding needs the same interval at 99.9% to exclude 0 and a change of at least 5 ms and 20% of the baseline, since a comparison tests hundreds of figures; which value of a column changed most is judged on intervals of independent samples (D = 1), the values sharing the same time and bursts.`
