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
// from the baseline to the target, and the findings.
type Comparison struct {
	Baseline, Target      CompareSide
	BaselineLabel         string
	TargetLabel           string
	By                    []string
	BaselineN, TargetN    int64          // requests on each side
	Slices                []CompareSlice // all requests, then the --by slices, most requests first
	Dims                  []CompareSlice // the one-column slices of CompareDims
	Findings              []string
	Significant, Compared int // quantile changes significant / compared (all requests and --by slices)
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
	cmp.Findings = compareFindings(cmp)
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

// The findings of a comparison.
//
// A component (network, application, queue, model) changed in a slice when
// one of its P50, P95, P99 changed strongly (its 99.9% interval excludes
// 0, queries/compare.sql) and materially: by at least materialMs and materialRel of its baseline
// value; the largest such change is the slice's. Where it changed is found
// one column at a time (CompareDims): a column localizes the change when
// some but not all of its values changed and the others did not change at
// all; of the columns that do, the one with the fewest changed values
// names where (the coarser column on a tie, in CompareDims order). A
// change no column localizes is in all requests. Findings are ranked by
// impact: the change times the share of the target's requests in the
// slices named.
const (
	materialMs  = 5
	materialRel = 0.20
)

// componentAdvice says where to look when a component moved: look for a
// rise and a fall alike, rise and fall for the model, whose own change
// says which. A component other than the model adds ", not the model"
// only when model time is flat where it moved.
var componentAdvice = []struct{ metric, name, look, rise, fall string }{
	{"queue", "server queueing", "look at capacity (replicas, batch size, admission)", "", ""},
	{"network", "network time", "look at the network between the clients and the gateway", "", ""},
	{"application", "application time", "look at the gateway (auth, routing, retries) and its hop to the servers", "", ""},
	{"model", "model time", "", "the model itself is slower: batch size, prompt and output lengths, hardware", "the model itself is faster: batch size, prompt and output lengths, hardware"},
}

// change is a component's material, significant change in one slice.
type change struct {
	q     QuantileChange
	slice *CompareSlice
}

func material(q QuantileChange) bool {
	return q.Strong && large(q)
}

// large: the change is at least materialMs and materialRel of its baseline.
func large(q QuantileChange) bool {
	if q.Delta == nil || q.Baseline == nil {
		return false
	}
	d := math.Abs(*q.Delta)
	return d >= materialMs && d >= materialRel*math.Abs(*q.Baseline)
}

// changeIn returns the largest material change of metric in s.
func changeIn(s *CompareSlice, metric string) (change, bool) {
	m, ok := s.Metric(metric)
	if !ok {
		return change{}, false
	}
	var best change
	found := false
	for _, q := range m.Points {
		if material(q) && (!found || math.Abs(*q.Delta) > math.Abs(*best.q.Delta)) {
			best, found = change{q: q, slice: s}, true
		}
	}
	return best, found
}

type finding struct {
	impact float64
	text   string
}

func compareFindings(c *Comparison) []string {
	if len(c.Slices) == 0 {
		return nil
	}
	all := &c.Slices[0]
	loci := map[string][]change{}
	for _, ca := range componentAdvice {
		if locus, ok := locate(c, all, ca.metric); ok {
			loci[ca.metric] = locus
		}
	}
	var out []finding
	for _, ca := range componentAdvice {
		locus, ok := loci[ca.metric]
		if !ok {
			continue
		}
		share := 0.0
		for _, ch := range locus {
			if all.TargetN > 0 {
				share += float64(ch.slice.TargetN) / float64(all.TargetN)
			}
		}
		top := locus[0]
		impact := math.Abs(*top.q.Delta) * share
		most := ""
		if top.slice.All {
			most = mostIn(c, ca.metric, top.q)
		}
		look := ca.look
		if ca.metric == "model" {
			look = ca.rise
			if *top.q.Delta < 0 {
				look = ca.fall
			}
		}
		out = append(out, finding{impact, componentSentence(ca.name, ca.metric, look, locus, most, loci["model"] != nil)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].impact > out[j].impact })
	var texts []string
	for _, f := range out {
		texts = append(texts, f.text)
	}
	if len(texts) == 0 {
		e2e, ok := changeIn(all, "client_e2e")
		if ok {
			texts = append(texts, fmt.Sprintf("%s client E2E of all requests %s %s (n=%d vs %d), with no component changed on its own beyond its noise.",
				e2e.q.Label(), verb(*e2e.q.Delta), fmtAbsMs(*e2e.q.Delta), e2e.q.BaselineN, e2e.q.TargetN))
		} else {
			texts = append(texts, fmt.Sprintf("No significant change: no figure of all requests, of any --by slice or of any one %s moved beyond its noise (its 99.9%% interval of the difference excluding 0) by at least %d ms and %.0f%% of its baseline.",
				strings.Join(CompareDims, ", "), materialMs, materialRel*100))
		}
	}
	return texts
}

// locate finds where metric changed: the changed slices of the column that
// localizes it, largest change first, else all requests.
func locate(c *Comparison, all *CompareSlice, metric string) ([]change, bool) {
	var bestCol []change
	bestCount := 0
	for _, d := range CompareDims {
		var changed []change
		values, quiet := 0, 0
		for i := range c.Dims {
			s := &c.Dims[i]
			if len(s.Columns) != 1 || s.Columns[0] != d || s.Values[0] == "(none)" || !comparable(s, metric) {
				continue
			}
			values++
			if ch, ok := changeIn(s, metric); ok {
				changed = append(changed, ch)
			} else if !anySignificant(s, metric) {
				quiet++
			}
		}
		if len(changed) == 0 || len(changed) == values || len(changed)+quiet != values {
			continue
		}
		// One direction only: a column whose values moved both ways
		// says no single "where".
		up := *changed[0].q.Delta > 0
		mixed := false
		for _, ch := range changed {
			if (*ch.q.Delta > 0) != up {
				mixed = true
			}
		}
		if mixed {
			continue
		}
		if bestCol == nil || len(changed) < bestCount {
			bestCol, bestCount = changed, len(changed)
		}
	}
	allCh, allChanged := changeIn(all, metric)
	if bestCol != nil && allChanged && all.TargetN > 0 {
		// A change of all requests is localized only by a minority of
		// the traffic: else the quiet values are just smaller slices.
		n := int64(0)
		for _, ch := range bestCol {
			n += ch.slice.TargetN
		}
		if 2*n > all.TargetN {
			bestCol = nil
		}
	}
	if bestCol != nil {
		sort.SliceStable(bestCol, func(i, j int) bool { return math.Abs(*bestCol[i].q.Delta) > math.Abs(*bestCol[j].q.Delta) })
		return bestCol, true
	}
	if allChanged {
		return []change{allCh}, true
	}
	return nil, false
}

// mostIn names, for a change of all requests, the value of the first of
// CompareDims whose change at the same quantile is surely the largest:
// its 95% interval lies above every other value's (below, for a fall).
// The values are set side by side over the same requests' time, so one
// burst weighs on all of them alike: the intervals are those of
// independent samples (LoIndep, HiIndep), while the change itself needed
// the intervals that count one backlog as one event.
func mostIn(c *Comparison, metric string, at QuantileChange) string {
	if s := mostInAt(c, metric, at.P, *at.Delta > 0); s != "" || at.P == 0.5 {
		return s
	}
	// Slices too small for the tail quantile may still tell at the median.
	return mostInAt(c, metric, 0.5, *at.Delta > 0)
}

func mostInAt(c *Comparison, metric string, p float64, up bool) string {
	for _, d := range CompareDims {
		var qs []QuantileChange
		var labels []string
		for i := range c.Dims {
			s := &c.Dims[i]
			if s.Columns[0] != d || s.Values[0] == "(none)" {
				continue
			}
			q := pointAt(s, metric, p)
			if q.LoIndep == nil || q.HiIndep == nil || q.Delta == nil {
				continue
			}
			qs, labels = append(qs, q), append(labels, s.Label)
		}
		if len(qs) < 2 {
			continue
		}
		best := 0
		for i, q := range qs {
			if (up && *q.Delta > *qs[best].Delta) || (!up && *q.Delta < *qs[best].Delta) {
				best = i
			}
		}
		sure, next := true, -1
		for i, q := range qs {
			if i == best {
				continue
			}
			if (up && *qs[best].LoIndep <= *q.HiIndep) || (!up && *qs[best].HiIndep >= *q.LoIndep) {
				sure = false
			}
			if next < 0 || (up && *q.Delta > *qs[next].Delta) || (!up && *q.Delta < *qs[next].Delta) {
				next = i
			}
		}
		if sure && large(qs[best]) && ((up && *qs[best].LoIndep > 0) || (!up && *qs[best].HiIndep < 0)) {
			return fmt.Sprintf("; most in %s (%s at %s, against %s in %s)", labels[best], fmtSignedV(*qs[best].Delta), qs[best].Label(), fmtSignedV(*qs[next].Delta), labels[next])
		}
	}
	return ""
}

// comparable reports whether some quantile of metric in s has enough
// samples on both sides to be compared.
func comparable(s *CompareSlice, metric string) bool {
	m, _ := s.Metric(metric)
	for _, q := range m.Points {
		if !q.TooFew && q.Delta != nil {
			return true
		}
	}
	return false
}

func anySignificant(s *CompareSlice, metric string) bool {
	m, _ := s.Metric(metric)
	for _, q := range m.Points {
		if q.Significant {
			return true
		}
	}
	return false
}

// componentSentence words one component's finding. Every figure it
// quotes is worded by its own sign and significance: model time is
// "flat" only where its change is not significant and under materialRel
// of its baseline, and never beside a finding of the model's own
// (modelFinding).
func componentSentence(name, metric, look string, locus []change, most string, modelFinding bool) string {
	top := locus[0]
	q := top.q
	var where []string
	for _, ch := range locus {
		where = append(where, ch.slice.Label)
	}
	in := "in all requests"
	if !top.slice.All {
		in = "in " + strings.Join(where, " and ")
	}
	s := fmt.Sprintf("%s %s %s %s at %s (%s → %s, %s; 95%% interval %s)",
		capital(name), verb(*q.Delta), fmtAbsMs(*q.Delta), in, q.Label(), fmtMsV(q.Baseline), fmtMsV(q.Target), fmtN(q), fmtInterval(q.Lo, q.Hi))
	if len(locus) > 1 {
		s += "; largest in " + top.slice.Label
	}
	s += most
	if e2e := pointAt(top.slice, "client_e2e", 0.95); e2e.Delta != nil {
		s += fmt.Sprintf(". There P95 client E2E %s", describe(e2e))
	}
	if metric == "model" {
		return s + ": " + look + "."
	}
	m := pointAt(top.slice, "model", q.P)
	switch {
	case modelFinding:
		return s + ", and model time changed too (its own finding): " + look + ", and at the model."
	case m.Delta == nil:
		return s + ": " + look + "."
	case material(m):
		return s + fmt.Sprintf(" and model time %s at %s too (%s): both the model and %s.", verb(*m.Delta), m.Label(), fmtRel(m), strings.TrimSuffix(name, " time"))
	case m.TooFew:
		return s + fmt.Sprintf(", while model time has too few samples at %s to tell: %s.", m.Label(), look)
	case !m.Significant && flat(m):
		return s + fmt.Sprintf(", while model time is flat (%s %s, not significant): %s, not the model.", m.Label(), fmtRel(m), look)
	case !m.Significant:
		return s + fmt.Sprintf(", while model time moved %s at %s within its noise (95%% interval %s): %s.", fmtRel(m), m.Label(), fmtInterval(m.Lo, m.Hi), look)
	}
	short := "its 99.9% interval holding 0, short of a finding"
	if m.Strong {
		short = fmt.Sprintf("under the %d ms and %.0f%% of its baseline a finding needs", materialMs, materialRel*100)
	}
	return s + fmt.Sprintf(", and model time %s %s at %s (95%% interval %s; %s): %s, and at the model.",
		verb(*m.Delta), fmtRel(m), m.Label(), fmtInterval(m.Lo, m.Hi), short, look)
}

// flat: the change is under materialMs or materialRel of the baseline.
func flat(q QuantileChange) bool {
	return q.Delta != nil && q.Baseline != nil && !large(q)
}

// fmtN is "n=2203 vs 1164", with the effective numbers where requests
// cluster in time (a side's design effect of 1.5 or more).
func fmtN(q QuantileChange) string {
	s := fmt.Sprintf("n=%d vs %d", q.BaselineN, q.TargetN)
	b, t := q.EffectiveN()
	if b <= float64(q.BaselineN)/1.5 || t <= float64(q.TargetN)/1.5 {
		s += fmt.Sprintf(", as %.0f vs %.0f independent samples, the requests clustering in time", b, t)
	}
	return s
}

// fmtInterval is "+1.2 ms to +3.4 ms", "+1.2 ms or more" (no upper bound),
// "up to +3.4 ms" (no lower one) or "unbounded".
func fmtInterval(lo, hi *float64) string {
	switch {
	case lo != nil && hi != nil:
		return fmtSigned(lo) + " to " + fmtSigned(hi)
	case lo != nil:
		return fmtSigned(lo) + " or more"
	case hi != nil:
		return "up to " + fmtSigned(hi)
	}
	return "unbounded"
}

// pointAt returns metric's quantile change at p in s.
func pointAt(s *CompareSlice, metric string, p float64) QuantileChange {
	m, _ := s.Metric(metric)
	for _, q := range m.Points {
		if q.P == p {
			return q
		}
	}
	return QuantileChange{}
}

func describe(q QuantileChange) string {
	switch {
	case q.TooFew:
		return fmt.Sprintf("moved %s (too few samples to tell, n=%d vs %d)", fmtSignedV(*q.Delta), q.BaselineN, q.TargetN)
	case !q.Significant:
		return fmt.Sprintf("did not change significantly (%s, n=%d vs %d)", fmtSignedV(*q.Delta), q.BaselineN, q.TargetN)
	}
	return fmt.Sprintf("%s %s (%s → %s, n=%d vs %d)", verb(*q.Delta), fmtAbsMs(*q.Delta), fmtMsV(q.Baseline), fmtMsV(q.Target), q.BaselineN, q.TargetN)
}

func verb(d float64) string {
	if d < 0 {
		return "fell"
	}
	return "rose"
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// fmtAbsMs prints |d| ms as "1.8 s" or "150 ms".
func fmtAbsMs(d float64) string { return fmtDur(math.Abs(d)) }

func fmtDur(v float64) string {
	if math.Abs(v) >= 1000 {
		return fmt.Sprintf("%.2f s", v/1000)
	}
	return fmt.Sprintf("%.1f ms", v)
}

func fmtMsV(p *float64) string {
	if p == nil {
		return "–"
	}
	return fmtDur(*p)
}

func fmtSignedV(v float64) string {
	if v >= 0 {
		return "+" + fmtDur(v)
	}
	return "−" + fmtDur(-v)
}

func fmtSigned(p *float64) string {
	if p == nil {
		return "–"
	}
	return fmtSignedV(*p)
}

// fmtRel is the change relative to the baseline, "+2%", else the change.
func fmtRel(q QuantileChange) string {
	if q.Delta == nil {
		return "–"
	}
	if q.Baseline != nil && math.Abs(*q.Baseline) > 0 {
		return fmt.Sprintf("%+.0f%%", 100**q.Delta / *q.Baseline)
	}
	return fmtSignedV(*q.Delta)
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
