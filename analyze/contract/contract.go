package contract

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"
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

// rawFile is the file as decoded, before checking.
type rawFile struct {
	UseCase []rawCase `toml:"use_case" yaml:"use_case"`
}

type rawCase struct {
	Name       string          `toml:"name" yaml:"name"`
	Match      map[string]any  `toml:"match" yaml:"match"`
	By         []string        `toml:"by" yaml:"by"`
	Constraint []rawConstraint `toml:"constraint" yaml:"constraint"`
}

type rawConstraint struct {
	Kind       string `toml:"kind" yaml:"kind"`
	Metric     string `toml:"metric" yaml:"metric"`
	Percentile any    `toml:"percentile" yaml:"percentile"`
	Op         string `toml:"op" yaml:"op"`
	Target     any    `toml:"target" yaml:"target"`
	Eval       string `toml:"eval" yaml:"eval"`
	MayWorsen  any    `toml:"may_worsen" yaml:"may_worsen"`
}

// Load reads and checks the contract file at path: TOML (.toml) or YAML
// (.yaml, .yml). columns are the slice columns match and by may name.
// Errors name the file, the use case and the constraint.
func Load(path string, columns []string) (*Contract, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("contract: %w", err)
	}
	return Parse(path, data, columns)
}

// Parse is Load of data read from path (whose extension says the format).
func Parse(path string, data []byte, columns []string) (*Contract, error) {
	fail := func(format string, args ...any) (*Contract, error) {
		return nil, fmt.Errorf("contract %s: %s", path, fmt.Sprintf(format, args...))
	}
	var raw rawFile
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".toml":
		md, err := toml.Decode(string(data), &raw)
		if err != nil {
			return fail("%v", err)
		}
		for _, key := range md.Undecoded() {
			if len(key) >= 2 && key[0] == "use_case" && key[1] == "match" {
				continue // match's keys are checked below
			}
			return fail("%s: unknown key (known: use_case.name, .match, .by, .constraint.kind, .metric, .percentile, .op, .target, .eval, .may_worsen)", key)
		}
	case ".yaml", ".yml":
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&raw); err != nil {
			return fail("%v", err)
		}
	default:
		return fail("want a .toml, .yaml or .yml file")
	}
	if len(raw.UseCase) == 0 {
		return fail("no use_case: want one [[use_case]] section (TOML) or use_case: list item (YAML) per use case")
	}
	known := map[string]bool{}
	for _, c := range columns {
		known[c] = true
	}
	c := &Contract{File: path}
	seen := map[string]bool{}
	for i, rc := range raw.UseCase {
		where := fmt.Sprintf("use_case %d", i+1)
		if rc.Name == "" {
			return fail("%s: no name", where)
		}
		where = fmt.Sprintf("use_case %q", rc.Name)
		if seen[rc.Name] {
			return fail("%s: a second use case of that name", where)
		}
		seen[rc.Name] = true
		uc := Case{Name: rc.Name}
		if rc.Match == nil {
			uc.Match = []Match{{Column: "use_case", Value: rc.Name}}
		}
		for col, v := range rc.Match {
			if !known[col] {
				return fail("%s: match.%s: no slice column of that name (known: %s)", where, col, strings.Join(columns, ", "))
			}
			uc.Match = append(uc.Match, Match{Column: col, Value: matchValue(v)})
		}
		sort.Slice(uc.Match, func(a, b int) bool { return uc.Match[a].Column < uc.Match[b].Column })
		for _, b := range rc.By {
			if !known[b] {
				return fail("%s: by: %q is no slice column (known: %s)", where, b, strings.Join(columns, ", "))
			}
			uc.By = append(uc.By, b)
		}
		if len(rc.Constraint) == 0 {
			return fail("%s: no constraint", where)
		}
		for j, rk := range rc.Constraint {
			k, err := constraint(rk)
			if err != nil {
				return fail("%s: constraint %d: %v", where, j+1, err)
			}
			uc.Constraints = append(uc.Constraints, k)
		}
		c.Cases = append(c.Cases, uc)
	}
	return c, nil
}

// matchValue is a match value as the slice columns hold it (text: 200,
// true).
func matchValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

func constraint(rk rawConstraint) (Constraint, error) {
	m, ok := MetricByName(rk.Metric)
	if !ok {
		if rk.Metric == "" {
			return Constraint{}, fmt.Errorf("no metric (known: %s)", metricNames())
		}
		return Constraint{}, fmt.Errorf("metric %q: unknown (known: %s)", rk.Metric, metricNames())
	}
	k := Constraint{Kind: rk.Kind, Metric: m.Name, Op: rk.Op, Eval: rk.Eval}
	if k.Kind == "" {
		k.Kind = m.Kind
	}
	if !contains(Kinds, k.Kind) {
		return k, fmt.Errorf("kind %q: unknown (want one of %s)", k.Kind, strings.Join(Kinds, ", "))
	}
	if k.Eval != "" && !strings.HasPrefix(m.Name, "eval_") {
		return k, fmt.Errorf("eval %q: only eval_pass_rate and eval_score name an eval", k.Eval)
	}
	switch k.Op {
	case "<=", "<", ">=", ">":
	case "":
		return k, fmt.Errorf("%s: no op (want <=, <, >= or >)", m.Name)
	default:
		return k, fmt.Errorf("op %q: want <=, <, >= or >", k.Op)
	}
	if m.Stat == "percentile" {
		p, err := number(rk.Percentile)
		if err != nil || rk.Percentile == nil {
			return k, fmt.Errorf("%s: percentile: want a number between 0 and 100 (95 for P95)", m.Name)
		}
		if !(p > 0 && p < 100) {
			return k, fmt.Errorf("%s: percentile %v: want a number between 0 and 100 (95 for P95)", m.Name, p)
		}
		k.Percentile = p
	} else if rk.Percentile != nil {
		return k, fmt.Errorf("%s is a %s, not a percentile: remove percentile", m.Name, m.Stat)
	}
	if rk.Target == nil {
		return k, fmt.Errorf("%s: no target", m.Name)
	}
	t, err := target(rk.Target, m)
	if err != nil {
		return k, fmt.Errorf("%s: target: %v", m.Name, err)
	}
	k.Target = t
	if rk.MayWorsen != nil {
		if k.MayWorsen, k.MayWorsenRel, err = allowance(rk.MayWorsen, m); err != nil {
			return k, fmt.Errorf("%s: may_worsen: %v", m.Name, err)
		}
	}
	return k, nil
}

// allowance reads may_worsen: as a target, in the metric's unit ("50ms",
// "$0.01", a number; a share as "0.5%" or 0.005, in points of the share),
// or, for a metric that is no share, "5%" of the baseline's value. It is
// never negative.
func allowance(v any, m Metric) (float64, bool, error) {
	if s, ok := v.(string); ok && m.Unit != "share" && strings.HasSuffix(strings.TrimSpace(s), "%") {
		f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%")), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, false, fmt.Errorf("%q is not a percentage", s)
		}
		if f < 0 {
			return 0, false, fmt.Errorf("%q: an allowance is not negative", s)
		}
		return f / 100, true, nil
	}
	a, err := target(v, m)
	if err != nil {
		return 0, false, err
	}
	if a < 0 {
		return 0, false, fmt.Errorf("%v: an allowance is not negative", v)
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
	case float64:
		return x, nil
	}
	return 0, fmt.Errorf("%v is not a number", v)
}

// target reads a target in the metric's unit: a number; a share as a
// fraction or "97%"; a time in ms or a duration ("800ms", "10m"); a cost
// as a number or "$0.40".
func target(v any, m Metric) (float64, error) {
	var t float64
	switch x := v.(type) {
	case string:
		s := strings.TrimSpace(x)
		switch {
		case strings.HasSuffix(s, "%"):
			if m.Unit != "share" {
				return 0, fmt.Errorf("%q: a percentage, but %s is in %s", x, m.Name, m.Unit)
			}
			f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(s, "%")), 64)
			if err != nil {
				return 0, fmt.Errorf("%q is not a percentage", x)
			}
			t = f / 100
		case strings.HasPrefix(s, "$"):
			if m.Unit != "USD" {
				return 0, fmt.Errorf("%q: dollars, but %s is in %s", x, m.Name, m.Unit)
			}
			f, err := strconv.ParseFloat(s[1:], 64)
			if err != nil {
				return 0, fmt.Errorf("%q is not an amount", x)
			}
			t = f
		default:
			d, err := time.ParseDuration(s)
			if err != nil || m.Unit != "ms" {
				return 0, fmt.Errorf("%q: want a number in %s", x, m.Unit)
			}
			t = float64(d) / 1e6
		}
	default:
		f, err := number(v)
		if err != nil {
			return 0, err
		}
		t = f
	}
	if math.IsNaN(t) || math.IsInf(t, 0) {
		return 0, fmt.Errorf("%v is not a finite number", v)
	}
	if m.Unit == "share" && (t < 0 || t > 1) {
		return 0, fmt.Errorf("%v: a share is between 0 and 1 (or 0%% and 100%%)", v)
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
