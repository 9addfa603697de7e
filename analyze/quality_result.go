package analyze

import (
	"time"

	"github.com/infertrace/infertrace/contract"
)

// SliceQuality is the quality and cost of one slice, where --evals or
// --prices were given (queries/slice_quality.sql).
type SliceQuality struct {
	Evaluated  int64 // requests with at least one eval row
	EvalPassN  int64 // requests with a pass...
	EvalPassK  int64 // ...whose evals all passed
	EvalPass   *float64
	EvalPassLo *float64 // Wilson 95% interval of EvalPass
	EvalPassHi *float64
	EvalScoreN int64
	EvalScore  *float64 // mean of the requests' mean scores
	Priced     int64    // requests with a cost
	CostPer1K  *float64 // 1000 x mean cost of the priced requests, USD
	CostSum    *float64
	// CostPerSuccess is CostSum over the priced requests that completed:
	// failed requests are paid for too.
	CostPerSuccess *float64
}

// EvalsJoin says how the eval rows joined the requests
// (queries/evals_joined.sql).
type EvalsJoin struct {
	File              string
	Rows, Requests    int64
	Unmatched         int64 // request IDs of the file no request has
	UnmatchedExamples []string
}

// ContractResult is the contract judged per use case and slice.
type ContractResult struct {
	File  string
	Cases []CaseResult // per use case: the whole case first, then its slices
}

// CaseResult is one use case, or one slice of it, against its contract.
type CaseResult struct {
	Name   string // the use case
	Slice  string // "" for the whole use case, else "model=m"
	Match  string // the selection, "use_case=chat"
	Values []string

	Requests, Completed     int64
	WindowFirst, WindowLast *time.Time
	WindowS                 *float64
	Evaluated, Priced       int64

	Constraints []ConstraintResult // in the contract's order
	Goodput     Goodput
	Causes      []MissCause // why requests missed, most frequent first
	// Verdict is "pass" (every constraint passes), "fail" (one fails) or
	// "incomplete" (none fails, but some cannot be judged); FirstFail the
	// index of the first failing constraint, -1 when none fails.
	Verdict   string
	FirstFail int
}

// ConstraintResult is one constraint measured in one use case or slice.
type ConstraintResult struct {
	contract.Constraint
	Title string // "client TTFT"
	Unit  string
	N     int64  // samples
	K     *int64 // of them, counted (shares, rates)
	Value *float64
	// CILo and CIHi bound the 95% confidence interval; nil when open or
	// when there is none.
	CILo, CIHi *float64
	// Verdict: "pass", "fail", "n too small" or "no data".
	Verdict string
	// Decided: the target lies outside the interval, so the verdict holds
	// at this n; nil without an interval.
	Decided *bool
}

// Goodput is the share and rate of requests meeting every per-request
// latency target of a use case (queries/contract_goodput.sql).
type Goodput struct {
	Targets                      int64 // per-request targets; 0: no goodput
	Good, Missed, Unknown, Error int64
	Share, Lo, Hi                *float64 // Good / (Good + Missed), Wilson 95%
	PerS                         *float64 // Good / window seconds
}

// MissCause counts the missed requests one component made miss.
type MissCause struct {
	Cause    string // network, application, queue, model (prefill), model (decode), model, error, not attributed
	Requests int64
}
