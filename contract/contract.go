package contract

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/infertrace/infertrace/internal/strictconf"
)

// Contract is the parsed contract file: its use cases in file order.
type Contract struct {
	File  string
	Cases []Case
}

// Case is one use case (or slice) and the constraints it must meet, most
// important first.
type Case struct {
	Name string
	// Line is the line of its name in the file, MatchLine of its match
	// (of its name when it has none); 0: unknown.
	Line, MatchLine int
	// ConstraintLines is the line of each constraint; 0: unknown.
	ConstraintLines []int
	// Match selects the requests of the case: each column must have its
	// value. Sorted by column.
	Match []Match
	// By lists slice columns within the case, each slice judged too.
	By          []string
	Constraints []Constraint
}

// Match is one condition of a case's selection: Column = Value.
type Match struct {
	Column, Value string
}

// Constraint is one target of a case.
type Constraint struct {
	Kind       string  // quality, latency, cost, reliability or throughput
	Metric     string  // a name of Metrics
	Percentile float64 // 0 < p < 100 for percentile metrics, else 0
	Op         string  // "<=", "<", ">=" or ">"
	Target     float64 // in the metric's unit (a share as a fraction)
	Eval       string  // eval metrics: only rows of this eval name; empty: all
	// MayWorsen is how much the constraint's value may worsen from a
	// baseline to a target for infertrace compare to accept the change:
	// in the metric's unit (a share as a fraction), or, when MayWorsenRel,
	// as a fraction of the baseline's value. 0: not at all.
	MayWorsen    float64
	MayWorsenRel bool
}

// Metric describes one metric a constraint can name.
type Metric struct {
	Name string
	Kind string // the default kind of a constraint on it
	// Stat is how it is aggregated: "percentile" (of a per-request value),
	// "share", "rate" or "cost".
	Stat string
	Unit string // "ms", "tokens/s", "USD", "share", "per hour", "score"
	// PerRequest: a latency constraint on it is also checked per request,
	// for goodput.
	PerRequest bool
	Doc        string
}

// Kinds are the constraint kinds, in the order products usually rank them.
var Kinds = []string{"quality", "latency", "cost", "reliability", "throughput"}

// Metrics lists every metric a contract can name. The per-request values
// and aggregates are computed by queries/contract_targets.sql, which
// knows exactly these names.
var Metrics = []Metric{
	{"eval_pass_rate", "quality", "share", "share", false, "evaluated requests that passed (every eval of the request, or of the named eval) / evaluated requests"},
	{"eval_score", "quality", "percentile", "score", false, "per evaluated request, the mean of its scores (of the named eval)"},
	{"client_e2e_ms", "latency", "percentile", "ms", true, "client end − client start, every request with a client record"},
	{"client_ttft_ms", "latency", "percentile", "ms", true, "client first token − client start, streamed requests"},
	{"tps_user", "latency", "percentile", "tokens/s", true, "per-user tokens/s: (output tokens − 1) / (first token to end), streamed requests with two tokens or more"},
	{"tpot_ms", "latency", "percentile", "ms", true, "time per output token after the first: (client E2E − client TTFT) / (output tokens − 1) = 1000 / tps_user; the first token excluded"},
	{"gateway_e2e_ms", "latency", "percentile", "ms", true, "gateway end − gateway start"},
	{"server_e2e_ms", "latency", "percentile", "ms", true, "server arrival to end (inference only)"},
	{"server_ttft_ms", "latency", "percentile", "ms", true, "server arrival to first token, streamed requests"},
	{"queue_ms", "latency", "percentile", "ms", true, "time in the inference server's queue"},
	{"model_ms", "latency", "percentile", "ms", true, "model time (prefill + decode)"},
	{"network_ms", "latency", "percentile", "ms", true, "client E2E − gateway E2E"},
	{"application_ms", "latency", "percentile", "ms", true, "gateway E2E − server E2E (+ server overhead)"},
	{"cost_usd", "cost", "percentile", "USD", false, "cost of one request (--prices)"},
	{"cost_per_1k_requests", "cost", "cost", "USD", false, "1,000 × sum of request costs / priced requests"},
	{"cost_per_good_request", "cost", "cost", "USD", false, "sum of request costs / requests meeting every per-request latency target (goodput)"},
	{"error_rate", "reliability", "share", "share", false, "requests not completed (HTTP status outside 2xx, or an error) / requests"},
	{"goodput_share", "latency", "share", "share", false, "requests completed and meeting every per-request latency target / requests judged"},
	{"completions_per_hour", "throughput", "rate", "per hour", false, "completed requests / window (first to last start) in hours"},
	{"goodput_per_s", "throughput", "rate", "per s", false, "requests meeting every per-request latency target / window in seconds"},
}

// MetricByName returns the metric of that name.
func MetricByName(name string) (Metric, bool) {
	for _, m := range Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

func metricNames() string {
	names := make([]string, len(Metrics))
	for i, m := range Metrics {
		names[i] = m.Name
	}
	return strings.Join(names, ", ")
}

// rawFile is the file as decoded, before checking. Values whose type the
// file may get wrong are any, so that the check can say which key holds
// what.
type rawFile struct {
	UseCase []rawCase `toml:"use_case" yaml:"use_case"`
}

type rawCase struct {
	Name       any             `toml:"name" yaml:"name"`
	Match      any             `toml:"match" yaml:"match"`
	By         any             `toml:"by" yaml:"by"`
	Constraint []rawConstraint `toml:"constraint" yaml:"constraint"`
}

type rawConstraint struct {
	Kind       any `toml:"kind" yaml:"kind"`
	Metric     any `toml:"metric" yaml:"metric"`
	Percentile any `toml:"percentile" yaml:"percentile"`
	Op         any `toml:"op" yaml:"op"`
	Target     any `toml:"target" yaml:"target"`
	Eval       any `toml:"eval" yaml:"eval"`
	MayWorsen  any `toml:"may_worsen" yaml:"may_worsen"`
}

// Load reads and checks the contract file at path: TOML (.toml) or YAML
// (.yaml, .yml). columns are the slice columns match and by may name.
// A mistake is an *Error naming the file, its line and the use case.
func Load(path string, columns []string) (*Contract, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("contract: %w", err)
	}
	return Parse(path, data, columns)
}

// Parse is Load of data read from path (whose extension says the format).
func Parse(path string, data []byte, columns []string) (*Contract, error) {
	fail := func(line int, name, format string, args ...any) (*Contract, error) {
		return nil, &Error{File: path, Line: line, Case: name, Msg: fmt.Sprintf(format, args...)}
	}
	var raw rawFile
	var where lines
	undecoded, err := strictconf.Decode(path, data, &raw)
	if err != nil {
		var ce *strictconf.Error
		errors.As(err, &ce)
		return fail(ce.Line, "", "%s", ce.Msg)
	}
	for _, key := range undecoded {
		if strings.HasPrefix(key, "use_case.match.") {
			continue // match's keys are checked below
		}
		return fail(0, "", "%s: unknown key (known: use_case.name, .match, .by, .constraint.kind, .metric, .percentile, .op, .target, .eval, .may_worsen)", key)
	}
	if strings.ToLower(filepath.Ext(path)) == ".toml" {
		where = tomlLines(data)
	} else {
		where = yamlLines(data)
	}
	where = where.check(&raw)
	if len(raw.UseCase) == 0 {
		return fail(0, "", "no use_case: want one [[use_case]] section (TOML) or use_case: list item (YAML) per use case")
	}
	known := map[string]bool{}
	for _, c := range columns {
		known[c] = true
	}
	c := &Contract{File: path}
	seen := map[string]int{}
	for i, rc := range raw.UseCase {
		name, err := text("name", rc.Name)
		if err != nil {
			return fail(where.at(i, -1, "name"), "", "use case %d: %v", i+1, err)
		}
		if name == "" {
			return fail(where.at(i, -1, ""), "", "use case %d has no name", i+1)
		}
		line := where.at(i, -1, "name")
		if first, ok := seen[name]; ok {
			at := ""
			if n := where.at(first, -1, "name"); n > 0 {
				at = fmt.Sprintf(" (the first is on line %d)", n)
			}
			return fail(line, name, "a second use case of that name%s", at)
		}
		seen[name] = i
		uc := Case{Name: name, Line: line, MatchLine: where.at(i, -1, "match")}
		match, ok := rc.Match.(map[string]any)
		switch {
		case rc.Match == nil:
			uc.Match = []Match{{Column: "use_case", Value: name}}
			uc.MatchLine = line
		case !ok:
			return fail(uc.MatchLine, name, "match must be a table of slice columns and values ({ use_case = \"chat\" }), not %s", describe(rc.Match))
		}
		for col, v := range match {
			if !known[col] {
				return fail(uc.MatchLine, name, "match.%s: no slice column of that name%s (known: %s)", col, DidYouMean(col, columns), strings.Join(columns, ", "))
			}
			mv, err := matchValue(col, v)
			if err != nil {
				return fail(uc.MatchLine, name, "%v", err)
			}
			uc.Match = append(uc.Match, Match{Column: col, Value: mv})
		}
		sort.Slice(uc.Match, func(a, b int) bool { return uc.Match[a].Column < uc.Match[b].Column })
		by, ok := rc.By.([]any)
		if rc.By != nil && !ok {
			return fail(where.at(i, -1, "by"), name, "by must be a list of slice columns ([\"model\"]), not %s", describe(rc.By))
		}
		for _, v := range by {
			b, ok := v.(string)
			if !ok {
				return fail(where.at(i, -1, "by"), name, "by: each item must be a slice column, not %s", describe(v))
			}
			if !known[b] {
				return fail(where.at(i, -1, "by"), name, "by: %q is no slice column%s (known: %s)", b, DidYouMean(b, columns), strings.Join(columns, ", "))
			}
			uc.By = append(uc.By, b)
		}
		if len(rc.Constraint) == 0 {
			return fail(line, name, "no constraint")
		}
		for j, rk := range rc.Constraint {
			k, err := constraint(rk)
			if err != nil {
				key := ""
				if fe, ok := err.(*fieldError); ok {
					key = fe.key
				}
				n := where.at(i, j, key)
				if n == 0 {
					return fail(0, name, "constraint %d: %v", j+1, err)
				}
				return fail(n, name, "%v", err)
			}
			uc.Constraints = append(uc.Constraints, k)
			uc.ConstraintLines = append(uc.ConstraintLines, where.at(i, j, ""))
		}
		c.Cases = append(c.Cases, uc)
	}
	return c, nil
}

// matchValue is a match value as the slice columns hold it (text: 200,
// true).
func matchValue(col string, v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case int64, int, bool:
		return fmt.Sprint(v), nil
	}
	return "", badField("match", "match.%s must be a value (a string, number or boolean), not %s", col, describe(v))
}

func constraint(rk rawConstraint) (Constraint, error) {
	name, err := text("metric", rk.Metric)
	if err != nil {
		return Constraint{}, err
	}
	m, ok := MetricByName(name)
	if !ok {
		if name == "" {
			return Constraint{}, badField("", "no metric (known: %s)", metricNames())
		}
		all := make([]string, len(Metrics))
		for i, m := range Metrics {
			all[i] = m.Name
		}
		return Constraint{}, badField("metric", "metric %q: unknown%s (known: %s)", name, DidYouMean(name, all), metricNames())
	}
	k := Constraint{Metric: m.Name}
	for _, f := range []struct {
		key string
		v   any
		dst *string
	}{{"kind", rk.Kind, &k.Kind}, {"op", rk.Op, &k.Op}, {"eval", rk.Eval, &k.Eval}} {
		if *f.dst, err = text(f.key, f.v); err != nil {
			return k, err
		}
	}
	if k.Kind == "" {
		k.Kind = m.Kind
	}
	if !contains(Kinds, k.Kind) {
		return k, badField("kind", "kind %q: unknown (want one of %s)", k.Kind, strings.Join(Kinds, ", "))
	}
	if k.Eval != "" && !strings.HasPrefix(m.Name, "eval_") {
		return k, badField("eval", "eval %q: only eval_pass_rate and eval_score name an eval", k.Eval)
	}
	switch k.Op {
	case "<=", "<", ">=", ">":
	case "":
		return k, badField("", "%s: no op (want <=, <, >= or >)", m.Name)
	default:
		return k, badField("op", "op %q: want <=, <, >= or >", k.Op)
	}
	const pctWant = "a number between 0 and 100 (95 for P95)"
	if m.Stat == "percentile" {
		if rk.Percentile == nil {
			return k, badField("", "%s needs a percentile: %s", m.Name, pctWant)
		}
		p, err := number(rk.Percentile)
		if err != nil {
			return k, badField("percentile", "percentile for %s must be %s, not %s", m.Name, pctWant, describe(rk.Percentile))
		}
		if !(p > 0 && p < 100) {
			return k, badField("percentile", "percentile for %s must be %s, not %v", m.Name, pctWant, p)
		}
		k.Percentile = p
	} else if rk.Percentile != nil {
		return k, badField("percentile", "%s is a %s, not a percentile: remove percentile", m.Name, m.Stat)
	}
	if rk.Target == nil {
		return k, badField("", "%s: no target", m.Name)
	}
	if k.Target, err = target("target", rk.Target, m); err != nil {
		return k, err
	}
	if rk.MayWorsen != nil {
		if k.MayWorsen, k.MayWorsenRel, err = allowance(rk.MayWorsen, m); err != nil {
			return k, err
		}
	}
	return k, nil
}

// allowance reads may_worsen: as a target, in the metric's unit ("50ms",
// "$0.01", a number; a share as "0.5%" or 0.005, in points of the share),
// or, for a metric that is no share, "5%" of the baseline's value. It is
// never negative.
func allowance(v any, m Metric) (float64, bool, error) {
	const key = "may_worsen"
	if s, ok := v.(string); ok && m.Unit != "share" && strings.HasSuffix(strings.TrimSpace(s), "%") {
		f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%")), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, false, badField(key, "%s for %s must be %s or a percentage of the baseline (\"5%%\"), not the string %q", key, m.Name, unitWant(m), s)
		}
		if f < 0 {
			return 0, false, badField(key, "%s for %s: %q: an allowance is not negative", key, m.Name, s)
		}
		return f / 100, true, nil
	}
	a, err := target(key, v, m)
	if err != nil {
		return 0, false, err
	}
	if a < 0 {
		return 0, false, badField(key, "%s for %s: %v: an allowance is not negative", key, m.Name, v)
	}
	return a, false, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func number(v any) (float64, error) {
	switch x := v.(type) {
	case int64:
		return float64(x), nil
	case int:
		return float64(x), nil
	case uint64:
		return float64(x), nil
	case float64:
		return x, nil
	}
	return 0, fmt.Errorf("%v is not a number", v)
}

// unitWant says what a target of the metric must be.
func unitWant(m Metric) string {
	switch m.Unit {
	case "ms":
		return `a number of milliseconds (800) or a duration ("800ms", "5s")`
	case "share":
		return `a share: a fraction (0.97) or a percentage ("97%")`
	case "USD":
		return `an amount in USD (0.40 or "$0.40")`
	case "per hour":
		return "a number per hour"
	case "per s":
		return "a number per second"
	}
	return "a number (" + m.Unit + ")"
}

// target reads a target (key: target, may_worsen) in the metric's unit: a
// number; a share as a fraction or "97%"; a time in ms or a duration
// ("800ms", "10m"); a cost as a number or "$0.40".
func target(key string, v any, m Metric) (float64, error) {
	wrong := func() (float64, error) {
		return 0, badField(key, "%s for %s must be %s, not %s", key, m.Name, unitWant(m), describe(v))
	}
	var t float64
	switch x := v.(type) {
	case string:
		s := strings.TrimSpace(x)
		var err error
		switch {
		case strings.HasSuffix(s, "%") && m.Unit == "share":
			t, err = strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(s, "%")), 64)
			t /= 100
		case strings.HasPrefix(s, "$") && m.Unit == "USD":
			t, err = strconv.ParseFloat(s[1:], 64)
		case m.Unit == "ms":
			var d time.Duration
			d, err = time.ParseDuration(s)
			t = float64(d) / 1e6
		default:
			return wrong()
		}
		if err != nil {
			return wrong()
		}
	default:
		f, err := number(v)
		if err != nil {
			return wrong()
		}
		t = f
	}
	if math.IsNaN(t) || math.IsInf(t, 0) {
		return 0, badField(key, "%s for %s: %v is not a finite number", key, m.Name, v)
	}
	if m.Unit == "share" && (t < 0 || t > 1) {
		return 0, badField(key, "%s for %s: %v: a share is between 0 and 1 (or 0%% and 100%%)", key, m.Name, v)
	}
	return t, nil
}

// titles name the metrics in reports.
var titles = map[string]string{
	"eval_pass_rate": "eval pass rate", "eval_score": "eval score",
	"client_e2e_ms": "client E2E", "client_ttft_ms": "client TTFT", "tps_user": "per-user tokens/s",
	"tpot_ms": "time per output token", "gateway_e2e_ms": "gateway E2E", "server_e2e_ms": "server E2E",
	"server_ttft_ms": "server TTFT", "queue_ms": "queue", "model_ms": "model", "network_ms": "network",
	"application_ms": "application", "cost_usd": "cost per request", "cost_per_1k_requests": "cost per 1,000 requests",
	"cost_per_good_request": "cost per good request", "error_rate": "error rate", "goodput_share": "goodput",
	"completions_per_hour": "completions per hour", "goodput_per_s": "goodput per second",
}

// Title is the metric's name in reports ("client TTFT").
func Title(metric string) string {
	if t, ok := titles[metric]; ok {
		return t
	}
	return metric
}
