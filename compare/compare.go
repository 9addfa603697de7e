package compare

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/contract"
	"github.com/infertrace/infertrace/internal/duck"
)

// Options says what Compare compares and how it slices.
type Options struct {
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

// ErrNoRequests is wrapped by Compare's error when a side holds no request.
var ErrNoRequests = errors.New("holds no request")

// Compare compares the requests of opts.Baseline with those of opts.Target
// (queries/compare.sql) per slice of opts.By and of each of CompareDims,
// and states the findings, largest impact first.
func Run(ctx context.Context, opts Options) (*Comparison, error) {
	by, err := analyze.ValidateBy(opts.By)
	if err != nil {
		return nil, err
	}
	sides := []CompareSide{opts.Baseline, opts.Target}
	selectors := map[string]bool{}
	for _, s := range sides {
		if s.Column != "" {
			if !analyze.IsSliceColumn(s.Column) {
				return nil, fmt.Errorf("unknown slice column %q: allowed are %s", s.Column, strings.Join(analyze.SliceColumns, ", "))
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
	gs := [][]string{nil}
	if len(by) > 0 {
		gs = append(gs, by)
	}
	for _, d := range CompareDims {
		if !selectors[d] && !(len(by) == 1 && by[0] == d) {
			gs = append(gs, []string{d})
		}
	}
	got, err := groupings(ctx, db, gs, slicingsPerQuery(cmp.BaselineN+cmp.TargetN, opts.Resources.MemoryLimit))
	if err != nil {
		return nil, err
	}
	for gi, cols := range gs {
		if gi <= 1 && (gi == 0 || len(by) > 0) {
			cmp.Slices = append(cmp.Slices, got[gi]...)
		}
		if len(cols) == 1 {
			cmp.Dims = append(cmp.Dims, got[gi]...)
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
		if cmp.Verdict, err = judgeContract(ctx, db, opts); err != nil {
			return nil, err
		}
	}
	return cmp, nil
}

// registerSide creates the view NAME_requests: the requests of side s.
func registerSide(ctx context.Context, db *sql.DB, name string, s CompareSide) error {
	if err := analyze.AttachRequests(ctx, db, s.Dir); err != nil {
		return err
	}
	src, err := analyze.RequestsSource(ctx, db, s.Dir)
	if err != nil {
		return err
	}
	q := "CREATE OR REPLACE VIEW " + name + "_requests AS SELECT * FROM " + src
	var where []string
	if s.From != nil {
		where = append(where, "start >= "+sqlTimestamp(*s.From))
	}
	if s.To != nil {
		where = append(where, "start < "+sqlTimestamp(*s.To))
	}
	if s.Column != "" {
		if !analyze.IsSliceColumn(s.Column) {
			return fmt.Errorf("unknown slice column %q", s.Column)
		}
		where = append(where, analyze.SliceExpr(s.Column)+" = "+duck.Quote(s.Value))
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

// slicingBytes is the memory one request in one slicing may take in a
// run of queries/compare.sql, its 13 samples in their lists, blocks and
// joins: about 1 KiB measured (120,000 requests in 8 slicings ran out of
// 500 MB), 4 KiB to be safe.
const slicingBytes = 4 << 10

// slicingsPerQuery is how many slicings of a comparison of n requests
// (both sides) one run of queries/compare.sql takes within the memory
// limit: every sample is in it once per slicing, so a large comparison
// runs a few slicings at a time, or one. Under the default 1 GiB all 8 of
// a comparison of up to 32,768 requests run at once.
func slicingsPerQuery(n, memoryLimit int64) int {
	if memoryLimit <= 0 {
		memoryLimit = duck.DefaultMemoryLimit
	}
	return int(max(1, min(1<<10, memoryLimit/slicingBytes/max(n, 1))))
}

// groupings runs queries/compare.sql for the slicings gs, each a list of
// slice columns (none: all requests), perQuery of them at a time, and
// returns the slices of each.
func groupings(ctx context.Context, db *sql.DB, gs [][]string, perQuery int) ([][]CompareSlice, error) {
	perQuery = max(perQuery, 1)
	out := make([][]CompareSlice, len(gs))
	for first := 0; first < len(gs); first += perQuery {
		last := min(first+perQuery, len(gs))
		if err := runSlicings(ctx, db, gs, first, last, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// runSlicings runs queries/compare.sql once for the slicings gs[first:last]
// and sets out[first:last] to their slices.
func runSlicings(ctx context.Context, db *sql.DB, gs [][]string, first, last int, out [][]CompareSlice) error {
	var keys []string
	for gi := first; gi < last; gi++ {
		key := "NULL::VARCHAR[]"
		if cols := gs[gi]; len(cols) > 0 {
			parts := make([]string, len(cols))
			for i, c := range cols {
				if !analyze.IsSliceColumn(c) {
					return fmt.Errorf("unknown slice column %q", c)
				}
				parts[i] = analyze.SliceExpr(c)
			}
			key = "[" + strings.Join(parts, ", ") + "]::VARCHAR[]"
		}
		keys = append(keys, fmt.Sprintf("{'gi': %d, 'slice_key': %s}", gi, key))
	}
	list := "[" + strings.Join(keys, ", ") + "]"
	view := "CREATE OR REPLACE VIEW compare_input AS " +
		"SELECT 'baseline' AS side, " + list + " AS slice_keys, * FROM baseline_requests " +
		"UNION ALL BY NAME SELECT 'target' AS side, " + list + " AS slice_keys, * FROM target_requests"
	if _, err := db.ExecContext(ctx, view); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	rows, err := duck.Rows(ctx, db, "compare")
	if err != nil {
		return err
	}
	byGrouping := make([][]map[string]any, len(gs))
	for _, r := range rows {
		gi := duck.Int(r["gi"])
		if gi < int64(first) || gi >= int64(last) {
			return fmt.Errorf("compare: slicing %d outside %d..%d", gi, first, last-1)
		}
		byGrouping[gi] = append(byGrouping[gi], r)
	}
	for gi := first; gi < last; gi++ {
		out[gi] = slicesOf(gs[gi], byGrouping[gi])
	}
	return nil
}

// slicesOf makes the slices of the slicing cols from its rows of
// queries/compare.sql, in their order.
func slicesOf(cols []string, rows []map[string]any) []CompareSlice {
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
	return out
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
