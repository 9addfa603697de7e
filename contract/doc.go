// Package contract reads a product contract: per use case (or any slice of
// requests), the constraints the service must meet, in the product's own
// order of priority. A contract is TOML or YAML:
//
//	[[use_case]]
//	name = "chat"                  # the section; by default it selects use_case = "chat"
//	match = { use_case = "chat" }  # optional: slice columns and the value each must have
//	by = ["model"]                 # optional: judge each of these slices too
//
//	  [[use_case.constraint]]      # first: what matters most
//	  metric = "eval_pass_rate"    # share of evaluated requests that passed
//	  op = ">="
//	  target = "97%"
//
//	  [[use_case.constraint]]
//	  metric = "client_ttft_ms"
//	  percentile = 95
//	  op = "<="
//	  target = 800                 # ms; or a duration string, "800ms", "10m"
//	  may_worsen = "50ms"          # optional, for infertrace compare (below)
//
// Each metric is one of Metrics: a percentile of a per-request column of
// requests.parquet (or of the eval score or per-request cost), a share
// (eval pass rate, error rate, goodput), a rate over the use case's window
// (completions per hour) or a cost aggregate. Percentile metrics need
// percentile; the others must not have one. A constraint's kind (quality,
// latency, cost, reliability, throughput) defaults to its metric's.
//
// may_worsen, optional, is how much infertrace compare may see the
// constraint worsen from a baseline to a target and still accept the
// change: in the metric's unit as a target is ("50ms", "$0.01", "0.5%" of
// a share, i.e. half a point), or "5%" of the baseline's value for a
// metric that is no share. Without it the constraint may not worsen at
// all beyond the noise.
//
// A mistake is an *Error, printed as file:line: use case "chat": what was
// given and what is wanted (the line left out where it cannot be told for
// sure). The package only parses and checks; analyze evaluates a Contract
// with the queries contract_*.sql, and returns an *Error too for a use
// case that selects no request of the run.
package contract
