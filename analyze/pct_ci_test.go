package analyze

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/analyze/analyzetest"
	"github.com/infertrace/infertrace/internal/duck"
	"github.com/infertrace/infertrace/queries"
)

func checkInterval(t *testing.T, what string, got Interval, lo, hi *float64) {
	t.Helper()
	same := func(a, b *float64) bool { return a == nil && b == nil || a != nil && b != nil && near(a, *b) }
	if !same(got.Lo, lo) || !same(got.Hi, hi) {
		t.Errorf("%s interval = [%s, %s], want [%s, %s]", what, fmtp(got.Lo), fmtp(got.Hi), fmtp(lo), fmtp(hi))
	}
}

func f64(v float64) *float64 { return &v }

// The percentile intervals of the slice and phase tables are the order
// statistics of ranks floor(nq ∓ 1.96 √(nq(1−q))) (+1 above), and a
// percentile from fewer than 1/(1 − q) samples is too small.
func TestPercentileIntervals(t *testing.T) {
	t.Parallel()
	var f analyzetest.Fixture
	add := func(id string, i int64, e2e int64, uc string) {
		f.Clients = append(f.Clients, analyzetest.Client{
			ID: id, Start: analyzetest.At(i * 1000), End: analyzetest.At(i*1000 + e2e),
			Status: analyzetest.Int(200), Streamed: analyzetest.Bool(false), Model: "m", UseCase: uc,
			Output: analyzetest.Int(10), Line: int(i),
		})
	}
	// use_case a: client E2E 1..200 ms; b: 1001..1010 ms.
	for i := int64(1); i <= 200; i++ {
		add(fmt.Sprintf("a%03d", i), i, i, "a")
	}
	for i := int64(1); i <= 10; i++ {
		add(fmt.Sprintf("b%03d", i), 200+i, 1000+i, "b")
	}
	res := summarize(t, f, "use_case")

	// a, n = 200. P95: 190 ∓ 1.959964·√9.5 = 190 ∓ 6.041 → ranks 183 and
	// 197 + 1 (P90 = 180.1 is the threshold: rank 181 = ceil(0.9·199) + 1
	// is below 183). P99: 198 ∓ 2.758 → rank 195 and 201 + 1 > n, open.
	a := findSlice(t, res, "use_case=a").ClientE2E
	checkInterval(t, "a P95", a.P95CI, f64(183), f64(198))
	checkInterval(t, "a P99", a.P99CI, f64(195), nil)
	if a.Small != [4]bool{} {
		t.Errorf("a small = %v, want none", a.Small)
	}
	// b, n = 10: P95 and P99 too small, P90 (needs 10) and P50 not.
	b := findSlice(t, res, "use_case=b").ClientE2E
	if b.Small != [4]bool{false, false, true, true} || b.P95CI.Lo != nil || b.P99CI.Lo != nil {
		t.Errorf("b small = %v, P95 %+v, P99 %+v; want P95 and P99 too small, no intervals", b.Small, b.P95CI, b.P99CI)
	}
	// All requests, n = 210: 1..200, 1001..1010. P95: 199.5 ∓ 6.190 →
	// ranks 193 and 206 + 1 (value 1007); P99: 207.9 ∓ 2.826 → rank 205
	// (value 1005), open above.
	all := res.Slices[0].ClientE2E
	checkInterval(t, "all P95", all.P95CI, f64(193), f64(1007))
	checkInterval(t, "all P99", all.P99CI, f64(1005), nil)
	// Every request is steady: the same samples as all requests.
	for _, p := range res.Phases {
		if p.Name == "steady" {
			checkInterval(t, "steady P95", p.ClientE2E.P95CI, f64(193), f64(1007))
			checkInterval(t, "steady P99", p.ClientE2E.P99CI, f64(1005), nil)
		} else if p.ClientE2E.N != 0 || p.ClientE2E.Small != [4]bool{true, true, true, true} {
			t.Errorf("%s: client E2E %+v, want no samples, every percentile too small", p.Name, p.ClientE2E)
		}
	}
}

// pct_ci.sql computes each percentile from the samples at two ranks,
// found by bucket counts and a sort of a few buckets, so that the samples
// are never held in memory as quantile_cont holds them. Its P50, P90, P95
// and P99 must be exactly quantile_cont's (same ranks, same
// interpolation, same rounding) and its intervals exactly the order
// statistics of the ranks of macros.sql, on data with ties, NULLs,
// negative values, zeros, values spanning ten orders of magnitude and
// near-equal values that share a bucket, in groups of 1 to 3,000 samples,
// and in the all-requests group that holds every other group's samples.
func TestPercentilesMatchQuantileCont(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := openMemory1(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := duck.CreateMacros(ctx, db); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	kinds := []func() float64{
		func() float64 { return float64(rng.IntN(6)) },                                  // heavy ties
		func() float64 { return math.Exp(rng.NormFloat64()*4) / 100 },                   // 1e-7 .. 1e4 and beyond
		func() float64 { return rng.NormFloat64() * 50 },                                // negative and positive
		func() float64 { return 1000 + rng.Float64()*2 },                                // one bucket, all distinct
		func() float64 { return math.Round(rng.ExpFloat64()*300*1000) / 1000 },          // ms with µs ties
		func() float64 { return []float64{0, 0, 0, math.Inf(1), -1e-300}[rng.IntN(5)] }, // zeros, inf, tiny
	}
	sizes := []int{1, 2, 3, 4, 5, 9, 10, 11, 19, 20, 21, 99, 100, 101, 250, 1000, 3000}
	var b strings.Builder
	b.WriteString("CREATE TABLE samples AS SELECT * FROM (VALUES (0, 'none', NULL::DOUBLE)")
	gid := 0
	for _, n := range sizes {
		for _, gen := range kinds {
			gid++
			for i := 0; i < 2*n; i++ {
				metric := []string{"a", "b"}[i%2]
				v := "NULL"
				if rng.IntN(10) > 0 {
					v = strconv.FormatFloat(gen(), 'g', -1, 64)
					if strings.Contains(v, "Inf") {
						v = "'" + v + "'::DOUBLE"
					}
				}
				fmt.Fprintf(&b, ", (%d, '%s', %s)", gid, metric, v)
			}
		}
	}
	b.WriteString(") AS t(gid, metric, value) WHERE gid > 0")
	for _, s := range []string{
		b.String(),
		"CREATE VIEW pct_groups AS SELECT 0 AS gid, true AS grp_all, NULL AS part UNION ALL SELECT DISTINCT gid, false, NULL FROM samples",
		"CREATE VIEW pct_values AS SELECT gid, metric, value FROM samples",
	} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := percentiles(ctx, db, "got", reportQuantiles, ""); err != nil {
		t.Fatal(err)
	}
	// The reference: quantile_cont, and the order statistics by a plain
	// row_number over every sample of each group (all: gid 0).
	const want = `
	WITH s AS (SELECT gid, metric, value FROM samples WHERE value IS NOT NULL
	           UNION ALL SELECT 0, metric, value FROM samples WHERE value IS NOT NULL),
	r AS (SELECT *, row_number() OVER (PARTITION BY gid, metric ORDER BY value) AS rk,
	             count(*) OVER (PARTITION BY gid, metric) AS n FROM s)
	SELECT gid, metric, n, quantile_cont(value, [0.5, 0.9, 0.95, 0.99]) AS q,
	    CASE WHEN NOT pct_too_small(n, 0.95) THEN max(value) FILTER (WHERE rk = pct_lo_rank(n, 0.95)) END AS p95_lo,
	    CASE WHEN NOT pct_too_small(n, 0.95) THEN max(value) FILTER (WHERE rk = pct_hi_rank(n, 0.95)) END AS p95_hi,
	    CASE WHEN NOT pct_too_small(n, 0.99) THEN max(value) FILTER (WHERE rk = pct_lo_rank(n, 0.99)) END AS p99_lo,
	    CASE WHEN NOT pct_too_small(n, 0.99) THEN max(value) FILTER (WHERE rk = pct_hi_rank(n, 0.99)) END AS p99_hi
	FROM r GROUP BY gid, metric, n`
	var groups, differ int
	err = db.QueryRowContext(ctx, `WITH w AS (`+want+`)
	SELECT count(*), count(*) FILTER (WHERE g.gid IS NULL OR w.gid IS NULL
	    OR g.n <> w.n OR g.q IS DISTINCT FROM w.q
	    OR g.p95_lo IS DISTINCT FROM w.p95_lo OR g.p95_hi IS DISTINCT FROM w.p95_hi
	    OR g.p99_lo IS DISTINCT FROM w.p99_lo OR g.p99_hi IS DISTINCT FROM w.p99_hi)
	FROM w FULL JOIN got AS g ON g.gid = w.gid AND g.metric = w.metric`).Scan(&groups, &differ)
	if err != nil {
		t.Fatal(err)
	}
	if groups < 2*len(sizes)*len(kinds) || differ != 0 {
		rows, _ := duck.Maps(ctx, db, "diff", `WITH w AS (`+want+`)
		SELECT w.gid, w.metric, w.n, w.q AS want_q, g.q AS got_q, w.p95_lo, g.p95_lo AS got_p95_lo, w.p99_hi, g.p99_hi AS got_p99_hi
		FROM w FULL JOIN got AS g ON g.gid = w.gid AND g.metric = w.metric
		WHERE g.q IS DISTINCT FROM w.q OR g.p95_lo IS DISTINCT FROM w.p95_lo OR g.p95_hi IS DISTINCT FROM w.p95_hi
		   OR g.p99_lo IS DISTINCT FROM w.p99_lo OR g.p99_hi IS DISTINCT FROM w.p99_hi OR g.n IS DISTINCT FROM w.n
		LIMIT 5`)
		t.Errorf("%d of %d groups and metrics differ from quantile_cont and the order statistics; first: %v", differ, groups, rows)
	}
	// Any quantiles, in ascending order: those of the trend (periods.sql).
	if err := percentiles(ctx, db, "got9", periodQuantiles, ""); err != nil {
		t.Fatal(err)
	}
	err = db.QueryRowContext(ctx, `WITH w AS (
		SELECT gid, metric, quantile_cont(value, [0.45, 0.5, 0.55, 0.93, 0.95, 0.97, 0.985, 0.99, 0.995]) AS q
		FROM (SELECT gid, metric, value FROM samples UNION ALL SELECT 0, metric, value FROM samples)
		WHERE value IS NOT NULL GROUP BY gid, metric)
	SELECT count(*), count(*) FILTER (WHERE g.q IS DISTINCT FROM w.q) FROM w FULL JOIN got9 AS g USING (gid, metric)`).Scan(&groups, &differ)
	if err != nil {
		t.Fatal(err)
	}
	if groups < 2*len(sizes)*len(kinds) || differ != 0 {
		t.Errorf("%d of %d groups and metrics differ from quantile_cont at the trend's quantiles", differ, groups)
	}
	// Cells: the same samples, each in one of three phases, read once as
	// cells that count in their group and in all (every metric), and in
	// their phase for metric a only; the figures must be those of the
	// samples of each group, phase and metric taken apart.
	for _, s := range []string{
		"CREATE TABLE cell_samples AS SELECT gid, metric, value, (row_number() OVER ()) % 3 + 1 AS ph FROM samples",
		`CREATE OR REPLACE VIEW pct_groups AS SELECT 0 AS gid, true AS grp_all, 's' AS part
		 UNION ALL SELECT DISTINCT gid, false, 's' FROM samples
		 UNION ALL SELECT 1000000 + ph, false, 'p' FROM (VALUES (1), (2), (3)) AS p(ph)`,
		"CREATE OR REPLACE VIEW pct_values AS SELECT 2000000 + 4 * gid + ph AS gid, metric, value FROM cell_samples",
		`CREATE TABLE cells AS SELECT DISTINCT 2000000 + 4 * gid + ph AS src, gid, NULL AS metric FROM cell_samples
		 UNION ALL SELECT DISTINCT 2000000 + 4 * gid + ph, 0, NULL FROM cell_samples
		 UNION ALL SELECT DISTINCT 2000000 + 4 * gid + ph, 1000000 + ph, 'a' FROM cell_samples`,
	} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := percentiles(ctx, db, "got_cells", reportQuantiles, "cells"); err != nil {
		t.Fatal(err)
	}
	wantCells := strings.Replace(want, `WITH s AS (SELECT gid, metric, value FROM samples WHERE value IS NOT NULL
	           UNION ALL SELECT 0, metric, value FROM samples WHERE value IS NOT NULL),`,
		`WITH s AS (SELECT gid, metric, value FROM samples WHERE value IS NOT NULL
	           UNION ALL SELECT 0, metric, value FROM samples WHERE value IS NOT NULL
	           UNION ALL SELECT 1000000 + ph, metric, value FROM cell_samples WHERE value IS NOT NULL AND metric = 'a'),`, 1)
	if wantCells == want {
		t.Fatal("the reference of the cells names no phase")
	}
	var phases int
	err = db.QueryRowContext(ctx, `WITH w AS (`+wantCells+`)
	SELECT count(*), count(*) FILTER (WHERE g.gid IS NULL OR w.gid IS NULL
	    OR g.n <> w.n OR g.q IS DISTINCT FROM w.q
	    OR g.p95_lo IS DISTINCT FROM w.p95_lo OR g.p95_hi IS DISTINCT FROM w.p95_hi
	    OR g.p99_lo IS DISTINCT FROM w.p99_lo OR g.p99_hi IS DISTINCT FROM w.p99_hi),
	    count(*) FILTER (WHERE w.gid > 1000000)
	FROM w FULL JOIN got_cells AS g ON g.gid = w.gid AND g.metric = w.metric`).Scan(&groups, &differ, &phases)
	if err != nil {
		t.Fatal(err)
	}
	if groups < 2*len(sizes)*len(kinds)+3 || phases != 3 || differ != 0 {
		t.Errorf("cells: %d of %d groups and metrics (%d of the phases, want 3) differ from quantile_cont and the order statistics",
			differ, groups, phases)
	}

	// By hand: 1..10 gives P50 = 5.5 and P90 = 9.1, as slices.sql says.
	if _, err := db.ExecContext(ctx, `CREATE OR REPLACE VIEW pct_groups AS SELECT 1 AS gid, false AS grp_all, NULL AS part;
		CREATE OR REPLACE VIEW pct_values AS SELECT 1 AS gid, 'm' AS metric, range::DOUBLE AS value FROM range(10, 0, -1)`); err != nil {
		t.Fatal(err)
	}
	if err := percentiles(ctx, db, "ten", reportQuantiles, ""); err != nil {
		t.Fatal(err)
	}
	var p50, p90 float64
	if err := db.QueryRowContext(ctx, "SELECT q[1], q[2] FROM ten").Scan(&p50, &p90); err != nil {
		t.Fatal(err)
	}
	if p50 != 5.5 || math.Abs(p90-9.1) > 1e-12 {
		t.Errorf("1..10: P50 %v, P90 %v; want 5.5 and 9.1", p50, p90)
	}
}

// The queries of a report (--period and --contract included) hold no
// quantile state:
// DuckDB keeps every sample of a quantile_cont, quantile_disc, median or
// mode group in memory that does not spill, so one of them over the
// requests would make report's memory grow with the requests whatever
// --memory-limit says. Their percentiles come from pct_ci.sql instead.
// Likewise an ordered aggregate (list(x ORDER BY y)) buffers its group's
// whole input: it may only list the first few rows a window ranked, as
// FILTER (WHERE rk <= N). And no [NOT] EXISTS subquery: DuckDB runs a
// correlated one as a delim join that holds its whole outer input (every
// request of every use case, for contract_members.sql) in memory.
func TestReportQueriesHoldNoQuantileState(t *testing.T) {
	t.Parallel()
	holistic := regexp.MustCompile(`(?i)\b(quantile_cont|quantile_disc|quantile|percentile_cont|percentile_disc|median|mode|mad|histogram|array_agg|string_agg|group_concat)\s*\(`)
	filtered := regexp.MustCompile(`(?is)^\s*FILTER\s*\(\s*WHERE\s+rk\s*<=\s*\d+\s*\)`)
	for _, name := range []string{
		"server_formats", "coverage", "joins", "unjoined", "tgi_hosts", "aborted", "anomalies", "rejects",
		"slice_ci_groups", "slice_phase_ci_values", "slice_phase_ci_cells", "pct_ci", "slice_dists", "slice_components", "slice_ttft_components", "slices",
		"slowest", "phase_ci_groups", "phases", "failure_ci_groups", "failure_ci_values", "failures",
		"replica_ci_groups", "replica_phase_ci_values", "replica_phase_ci_cells", "replicas",
		"timeseries_ci_groups", "timeseries_ci_values", "timeseries", "aborted_ci_groups", "aborted_ci_values",
		"period_ci_groups", "period_ci_values", "periods",
		"contract_members", "contract_values", "contract_ci_groups", "contract_ci_values", "contract_goodput", "contract_targets",
	} {
		q, err := queries.Get(name)
		if err != nil {
			t.Error(err)
			continue
		}
		if regexp.MustCompile(`(?i)\bEXISTS\s*\(`).MatchString(duck.StripComments(q)) {
			t.Errorf("%s.sql: an EXISTS subquery, run over its whole outer input in memory", name)
		}
		if m := holistic.FindString(duck.StripComments(q)); m != "" {
			t.Errorf("%s.sql: %s…): an aggregate that holds every sample of its group in memory", name, m)
		}
		for _, call := range orderedAggregates(duck.StripComments(q)) {
			// The causes of a slice's misses: a list over its few causes'
			// counts (at most eight), not over its requests.
			bounded := name == "contract_goodput" && strings.HasPrefix(call[0], "list({'cause': cause")
			if !bounded && !filtered.MatchString(call[1]) {
				t.Errorf("%s.sql: %s: an ordered aggregate over a whole group", name, strings.Join(strings.Fields(call[0]), " "))
			}
		}
	}
}

// orderedAggregates finds the list(... ORDER BY ...) calls of q: each call
// and the text after it.
func orderedAggregates(q string) [][2]string {
	var out [][2]string
	call := regexp.MustCompile(`(?i)\blist\s*\(`)
	for _, loc := range call.FindAllStringIndex(q, -1) {
		depth, end := 1, loc[1]
		for ; end < len(q) && depth > 0; end++ {
			switch q[end] {
			case '(':
				depth++
			case ')':
				depth--
			}
		}
		// ORDER BY at the call's own level, not in a nested call.
		inner, depth, top := q[loc[1]:end-1], 0, ""
		for _, c := range inner {
			switch c {
			case '(':
				depth++
			case ')':
				depth--
			default:
				if depth == 0 {
					top += string(c)
				}
			}
		}
		if regexp.MustCompile(`(?i)\bORDER\s+BY\b`).MatchString(top) {
			out = append(out, [2]string{q[loc[0]:end], q[end:]})
		}
	}
	return out
}

// The component P50/P95 of the attribution tables follow the same rules:
// queue and TTFT queue of use case a (1..200 ms, n = 200) have the P95
// interval [x(183), x(198)] = [183, 198] ms; those of use case b (n = 10)
// are too small; model (10 ms each) has its interval from its own samples.
func TestComponentIntervals(t *testing.T) {
	t.Parallel()
	var f analyzetest.Fixture
	add := func(id string, i, queue int64, uc string) {
		start := i * 10000
		f.Clients = append(f.Clients, analyzetest.Client{
			ID: id, Start: analyzetest.At(start), FirstToken: analyzetest.At(start + queue + 5),
			End: analyzetest.At(start + queue + 10), Status: analyzetest.Int(200), Streamed: analyzetest.Bool(true),
			Model: "m", UseCase: uc, Output: analyzetest.Int(10), Line: int(i),
		})
		f.Servers = append(f.Servers, analyzetest.Server{
			ID: id, Arrival: analyzetest.At(start), Scheduled: analyzetest.At(start + queue),
			FirstToken: analyzetest.At(start + queue + 5), End: analyzetest.At(start + queue + 10),
			Model: "m", Replica: "r1", Output: analyzetest.Int(10), Status: analyzetest.Int(200), Line: int(i),
		})
	}
	for i := int64(1); i <= 200; i++ {
		add(fmt.Sprintf("a%03d", i), i, i, "a")
	}
	for i := int64(1); i <= 10; i++ {
		add(fmt.Sprintf("b%03d", i), 200+i, 1000+i, "b")
	}
	res := summarize(t, f, "use_case")
	comp := func(cs []Component, name string) Component {
		for _, c := range cs {
			if c.Name == name {
				return c
			}
		}
		t.Fatalf("no component %q in %+v", name, cs)
		return Component{}
	}
	a := findSlice(t, res, "use_case=a")
	for _, c := range []Component{comp(a.E2E, "queue"), comp(a.TTFT, "queue")} {
		if c.N != 200 || !near(c.P95, 190.05) || c.Small != [2]bool{} {
			t.Errorf("a %s: n %d P95 %s small %v, want n 200, P95 190.05, none small", c.Column, c.N, fmtp(c.P95), c.Small)
		}
		checkInterval(t, "a "+c.Column+" P95", c.P95CI, f64(183), f64(198))
	}
	// Model time is 10 ms for every request: both bounds are 10 ms.
	checkInterval(t, "a model P95", comp(a.E2E, "model").P95CI, f64(10), f64(10))
	b := findSlice(t, res, "use_case=b")
	for _, c := range []Component{comp(b.E2E, "queue"), comp(b.TTFT, "queue")} {
		if c.N != 10 || c.Small != [2]bool{false, true} || c.P95CI.Lo != nil || c.P95CI.Hi != nil {
			t.Errorf("b %s: n %d small %v interval %+v, want n 10, P95 too small, no interval", c.Column, c.N, c.Small, c.P95CI)
		}
	}
	// All requests: queue 1..200 and 1001..1010, n = 210: ranks 193 and
	// 207 (see TestPercentileIntervals) are 193 and 1007 ms.
	all := res.Slices[0]
	checkInterval(t, "all queue P95", comp(all.E2E, "queue").P95CI, f64(193), f64(1007))
	checkInterval(t, "all ttft queue P95", comp(all.TTFT, "queue").P95CI, f64(193), f64(1007))
	// No gateway: no network component, every percentile too small.
	if c := comp(all.E2E, "network"); c.N != 0 || c.Small != [2]bool{true, true} {
		t.Errorf("all network: n %d small %v, want no samples, both too small", c.N, c.Small)
	}
}

// The time series' P95s carry their intervals too: 200 requests start in
// the first second (client E2E 1..200 ms: P95 interval [183, 198]), none
// in the next, 5 in the third (P95 from n = 5 is too small).
func TestTimeSeriesIntervals(t *testing.T) {
	t.Parallel()
	var f analyzetest.Fixture
	add := func(id string, start, e2e int64, line int) {
		f.Clients = append(f.Clients, analyzetest.Client{
			ID: id, Start: analyzetest.At(start), End: analyzetest.At(start + e2e),
			Status: analyzetest.Int(200), Streamed: analyzetest.Bool(false), Model: "m", UseCase: "u",
			Output: analyzetest.Int(10), Line: line,
		})
		f.Servers = append(f.Servers, analyzetest.Server{
			ID: id, Arrival: analyzetest.At(start), Scheduled: analyzetest.At(start + e2e - 1),
			End: analyzetest.At(start + e2e), Model: "m", Replica: "r1", Output: analyzetest.Int(10),
			Status: analyzetest.Int(200), Line: line,
		})
	}
	for k := int64(0); k < 200; k++ {
		add(fmt.Sprintf("a%03d", k), k*5, k+1, int(k)+1)
	}
	for k := int64(0); k < 5; k++ {
		add(fmt.Sprintf("b%03d", k), 2000+k, 1000+k, 201+int(k))
	}
	res := summarize(t, f)
	if len(res.TimeSeries) != 3 || res.TimeSeries[0].WidthS != 1 {
		t.Fatalf("time series %+v, want 3 windows of 1 s", res.TimeSeries)
	}
	w0, w1, w2 := res.TimeSeries[0], res.TimeSeries[1], res.TimeSeries[2]
	if w0.ClientE2EN != 200 || w0.ClientE2ESmall {
		t.Errorf("window 0: client E2E n %d small %v, want 200, not small", w0.ClientE2EN, w0.ClientE2ESmall)
	}
	checkInterval(t, "window 0 client E2E P95", w0.ClientE2ECI, f64(183), f64(198))
	// Queue = E2E − 1 ms: 0..199, so the bounds are one less.
	checkInterval(t, "window 0 queue P95", w0.QueueCI, f64(182), f64(197))
	checkInterval(t, "window 0 model P95", w0.ModelCI, f64(1), f64(1))
	if w1.ClientE2EN != 0 || !w1.ClientE2ESmall || !w1.QueueSmall || !w1.ModelSmall {
		t.Errorf("window 1: %+v, want no samples, every P95 too small", w1)
	}
	if w2.ClientE2EN != 5 || !w2.ClientE2ESmall || !w2.QueueSmall || w2.ClientE2ECI.Lo != nil || w2.ClientE2ECI.Hi != nil {
		t.Errorf("window 2: %+v, want n 5, P95 too small, no interval", w2)
	}
}
