package analyze

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/infertrace/infertrace/contract"
	"github.com/infertrace/infertrace/internal/duck"
)

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
		return FormatWindow(s.From, s.To)
	}
	return s.Dir
}

// CompareOptions says what Compare compares and how it slices.
type CompareOptions struct {
	Baseline, Target CompareSide
	// By lists the slice columns of the per-slice table; empty means
	// DefaultBy. A column that selects a side is left out.
	By        []string
	Resources duck.Resources
	// Contract, when not nil, is judged on both sides with the evals and
	// prices of Evals and Prices (files as report's; empty: none), for
	// the verdict on the change (compare_contract.go).
	Contract      *contract.Contract
	Evals, Prices string
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

// Label is "P50", "P95" or "P99".
func (q QuantileChange) Label() string { return fmt.Sprintf("P%g", q.P*100) }

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

// ErrNoRequests is wrapped by Compare's error when a side holds no request.
var ErrNoRequests = errors.New("holds no request")

// Compare compares the requests of opts.Baseline with those of opts.Target
// (queries/compare.sql) per slice of opts.By and of each of CompareDims,
// and states the findings, largest impact first.
func Compare(ctx context.Context, opts CompareOptions) (*Comparison, error) {
	by, err := ValidateBy(opts.By)
	if err != nil {
		return nil, err
	}
	sides := []CompareSide{opts.Baseline, opts.Target}
	selectors := map[string]bool{}
	for _, s := range sides {
		if s.Column != "" {
			if !sliceColumnSet[s.Column] {
				return nil, fmt.Errorf("unknown slice column %q: allowed are %s", s.Column, strings.Join(SliceColumns, ", "))
			}
			selectors[s.Column] = true
		}
	}
	by = deleteSelected(by, selectors)
	cmp := &Comparison{Baseline: opts.Baseline, Target: opts.Target, By: by,
		BaselineLabel: opts.Baseline.Label(), TargetLabel: opts.Target.Label()}

	db, closeDB, err := duck.Open(ctx, opts.Target.Dir, opts.Resources)
	if err != nil {
		return nil, err
	}
	defer closeDB()
	for i, s := range sides {
		name := []string{"baseline", "target"}[i]
		if err := registerSide(ctx, db, name, s); err != nil {
			return nil, err
		}
		var n int64
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+name+"_requests").Scan(&n); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if n == 0 {
			return nil, fmt.Errorf("the %s (%s) %w", name, s.Label(), ErrNoRequests)
		}
		if i == 0 {
			cmp.BaselineN = n
		} else {
			cmp.TargetN = n
		}
	}
	groupings := [][]string{nil}
	if len(by) > 0 {
		groupings = append(groupings, by)
	}
	for _, d := range CompareDims {
		if !selectors[d] && !(len(by) == 1 && by[0] == d) {
			groupings = append(groupings, []string{d})
		}
	}
	for gi, cols := range groupings {
		got, err := compareGrouping(ctx, db, cols)
		if err != nil {
			return nil, err
		}
		if gi <= 1 && (gi == 0 || len(by) > 0) {
			cmp.Slices = append(cmp.Slices, got...)
		}
		if len(cols) == 1 {
			cmp.Dims = append(cmp.Dims, got...)
		}
	}
	for _, s := range cmp.Slices {
		for _, m := range s.Metrics {
			for _, q := range m.Points {
				if q.Delta != nil && !q.TooFew {
					cmp.Compared++
				}
				if q.Significant {
					cmp.Significant++
				}
			}
		}
	}
	if opts.Contract != nil {
		if cmp.Verdict, err = compareContract(ctx, db, opts); err != nil {
			return nil, err
		}
	}
	return cmp, nil
}

// registerSide creates the view NAME_requests: the requests of side s.
func registerSide(ctx context.Context, db *sql.DB, name string, s CompareSide) error {
	if err := AttachRequests(ctx, db, s.Dir); err != nil {
		return err
	}
	path := filepath.Join(s.Dir, RequestsFile)
	q := "CREATE OR REPLACE VIEW " + name + "_requests AS SELECT * FROM read_parquet(" + duck.Quote(path) + ")"
	var where []string
	if s.From != nil {
		where = append(where, "start >= "+sqlTimestamp(*s.From))
	}
	if s.To != nil {
		where = append(where, "start < "+sqlTimestamp(*s.To))
	}
	if s.Column != "" {
		if !sliceColumnSet[s.Column] {
			return fmt.Errorf("unknown slice column %q", s.Column)
		}
		where = append(where, sliceExpr(s.Column, nil)+" = "+duck.Quote(s.Value))
	}
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	if _, err := db.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("register %s: %w", name, err)
	}
	return nil
}

func sqlTimestamp(t time.Time) string {
	return "TIMESTAMP_NS " + duck.Quote(t.UTC().Format("2006-01-02 15:04:05.999999999"))
}

// compareGrouping runs queries/compare.sql with the sides sliced by cols
// (none: all requests).
func compareGrouping(ctx context.Context, db *sql.DB, cols []string) ([]CompareSlice, error) {
	key := "NULL::VARCHAR[]"
	if len(cols) > 0 {
		parts := make([]string, len(cols))
		for i, c := range cols {
			if !sliceColumnSet[c] {
				return nil, fmt.Errorf("unknown slice column %q", c)
			}
			parts[i] = sliceExpr(c, nil)
		}
		key = "[" + strings.Join(parts, ", ") + "]::VARCHAR[]"
	}
	view := "CREATE OR REPLACE VIEW compare_input AS " +
		"SELECT 'baseline' AS side, " + key + " AS slice_key, * FROM baseline_requests " +
		"UNION ALL BY NAME SELECT 'target' AS side, " + key + " AS slice_key, * FROM target_requests"
	if _, err := db.ExecContext(ctx, view); err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	rows, err := duck.Rows(ctx, db, "compare")
	if err != nil {
		return nil, err
	}
	var out []CompareSlice
	index := map[string]int{}
	for _, r := range rows {
		var values []string
		for i := range cols {
			v := "(none)"
			if k := duck.List(r["slice_key"]); i < len(k) && k[i] != nil {
				v = duck.String(k[i])
			}
			values = append(values, v)
		}
		id := strings.Join(values, "\x00")
		i, ok := index[id]
		if !ok {
			s := CompareSlice{All: len(cols) == 0, Columns: cols, Values: values, Label: "all requests",
				BaselineN: duck.Int(r["baseline_requests"]), TargetN: duck.Int(r["target_requests"])}
			if len(cols) > 0 {
				parts := make([]string, len(cols))
				for j, c := range cols {
					parts[j] = c + "=" + values[j]
				}
				s.Label = strings.Join(parts, ", ")
			}
			for _, m := range CompareMetrics {
				s.Metrics = append(s.Metrics, MetricChange{Metric: m.Metric, Name: m.Name, Unit: m.Unit, HigherIsBetter: m.Metric == "tps_user"})
			}
			out = append(out, s)
			i = len(out) - 1
			index[id] = i
		}
		metric := duck.String(r["metric"])
		for j := range out[i].Metrics {
			m := &out[i].Metrics[j]
			if m.Metric != metric {
				continue
			}
			p := duck.Float(r["p"])
			q := QuantileChange{
				BaselineN: duck.Int(r["baseline_n"]), TargetN: duck.Int(r["target_n"]),
				Baseline: duck.Float(r["baseline"]), Target: duck.Float(r["target"]), Delta: duck.Float(r["delta"]),
				Lo: duck.Float(r["lo"]), Hi: duck.Float(r["hi"]),
				Significant: r["significant"] == true, TooFew: r["too_few"] == true, Strong: r["strong"] == true,
				LoIndep: duck.Float(r["lo_indep"]), HiIndep: duck.Float(r["hi_indep"]),
				BaselineD: duck.Float(r["baseline_d"]), TargetD: duck.Float(r["target_d"]),
			}
			if p != nil {
				q.P = *p
			}
			m.Points = append(m.Points, q)
		}
	}
	for i := range out {
		for j := range out[i].Metrics {
			m := &out[i].Metrics[j]
			sort.Slice(m.Points, func(a, b int) bool { return m.Points[a].P < m.Points[b].P })
		}
	}
	return out, nil
}

// ParseWindow reads a time window for a side of compare:
// "HH:MM[:SS]-HH:MM[:SS]" (UTC times of the data's first day, which
// firstDay gives; an end at or before the start is on the next day), or
// FROM/TO, each end as ParseTime reads it (HH:MM[:SS], a date, RFC 3339).
// It reports false when s looks like no window.
func ParseWindow(s string, firstDay func() (time.Time, error)) (from, to time.Time, ok bool, err error) {
	if a, b, found := strings.Cut(s, "/"); found {
		from, err = ParseTime(a, firstDay)
		if err == nil {
			to, err = ParseTime(b, firstDay)
		}
		if err != nil {
			return from, to, true, fmt.Errorf("window %q: %w", s, err)
		}
		if !to.After(from) {
			return from, to, true, fmt.Errorf("window %q ends before it starts", s)
		}
		return from, to, true, nil
	}
	m := windowRE.FindStringSubmatch(s)
	if m == nil {
		return from, to, false, nil
	}
	if from, err = ParseTime(m[1], firstDay); err == nil {
		to, err = ParseTime(m[2], firstDay)
	}
	if err != nil {
		return from, to, true, fmt.Errorf("window %q: %w", s, err)
	}
	if !to.After(from) {
		to = to.Add(24 * time.Hour)
	}
	return from, to, true, nil
}

var windowRE = regexp.MustCompile(`^(\d{1,2}:\d{2}(?::\d{2})?)-(\d{1,2}:\d{2}(?::\d{2})?)$`)

// FirstStart returns the earliest request start of an analyzed dir, for
// the day of a time-of-day window; nil without requests.
func FirstStart(ctx context.Context, dir string, res duck.Resources) (*time.Time, error) {
	db, closeDB, err := duck.Open(ctx, dir, res)
	if err != nil {
		return nil, err
	}
	defer closeDB()
	if err := registerRequests(ctx, db, filepath.Join(dir, RequestsFile)); err != nil {
		return nil, err
	}
	var t sql.NullTime
	if err := db.QueryRowContext(ctx, "SELECT min(start) FROM requests").Scan(&t); err != nil {
		return nil, fmt.Errorf("first start: %w", err)
	}
	if !t.Valid {
		return nil, nil
	}
	u := t.Time.UTC()
	return &u, nil
}

// FormatDuration prints a duration in ms as "150.0 ms", or from a second
// up as "1.80 s": how compare and the trend say an amount of time.
func FormatDuration(v float64) string {
	if math.Abs(v) >= 1000 {
		return fmt.Sprintf("%.2f s", v/1000)
	}
	return fmt.Sprintf("%.1f ms", v)
}

func deleteSelected(by []string, selectors map[string]bool) []string {
	var out []string
	for _, c := range by {
		if !selectors[c] {
			out = append(out, c)
		}
	}
	return out
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
