package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	// The DuckDB driver, registered as "duckdb".
	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/infertrace/infertrace/queries"
)

// The simulator's proof: simulate writes native logs with skewed and
// drifting host clocks, lost, truncated and duplicated lines, errors,
// timeouts, cancels and 429s, plus truth.parquet with the true components of
// every request. The real CLI ingests and analyzes the logs, and every
// measured value is checked against the truth.
//
// No request is excluded for its imperfections, because none changes what
// can be measured beyond which tiers are present: a duplicated line
// collapses to one record, a truncated line is rejected at ingest (has_<tier>
// is false, as for a lost one), a client that times out or cancels logs its
// give-up time as its end and so does the truth, a 5xx has no first token in
// the log or the truth, and a 429 never reaches a server in either. Only the
// has_<tier> flags decide whether a value must be present or NULL.

// gtRequests is the number of simulated requests: enough for thousands of
// per-request comparisons and stable P99s, small enough to stay fast.
const gtRequests = 4000

// gtComponent is one requests.parquet column checked against the truth
// column of the same name, with the tiers its measurement needs.
type gtComponent struct {
	col   string
	tiers []string // has_<tier> flags that must all be true
}

var gtComponents = []gtComponent{
	{"client_e2e_ms", []string{"client"}},
	{"gateway_e2e_ms", []string{"gateway"}},
	{"server_e2e_ms", []string{"server"}},
	{"network_ms", []string{"client", "gateway"}},
	{"application_ms", []string{"gateway", "server"}},
	{"queue_ms", []string{"server"}},
	{"model_ms", []string{"server"}},
	{"client_ttft_ms", []string{"client"}},
	{"server_ttft_ms", []string{"server"}},
	{"ttft_network_ms", []string{"client", "gateway", "server"}},
	{"ttft_application_ms", []string{"gateway", "server"}},
	{"ttft_queue_ms", []string{"server"}},
	{"ttft_model_ms", []string{"server"}},
}

const (
	// gtPerRequestMs bounds |measured - true| per request and component.
	gtPerRequestMs = 0.5
	// gtQuantileRel bounds |measured - true| / |true| of each per-slice
	// P50, P95 and P99...
	gtQuantileRel = 0.01
	// ...except that differences up to gtQuantileFloorMs always pass. Host
	// clocks drift apart by up to 10 ppm (simulate's default MaxDriftPPM),
	// which moves a difference of two hosts' durations by up to 10 µs per
	// second of the request: more than 1% of a 2 ms gateway component on a
	// 10 s request. No same-clock method can remove that, and it is far
	// below what a reader of the report acts on.
	gtQuantileFloorMs = 0.1
)

// gtStats says how much the check compared.
type gtStats struct {
	truthRows   int64
	compared    map[string]int64 // per component: requests with both values
	nullChecked int64            // (request, component) pairs where a missing tier must give NULL
	quantiles   int64            // per-slice quantiles compared
	floorUsed   int64            // quantiles that passed only by gtQuantileFloorMs
	worstRel    float64          // largest relative quantile difference above the floor
}

// checkTruth compares the requests relation (a table or view with the
// requests.parquet columns) with the truth relation and returns every
// mismatch, worded for a test log. An empty list means the attribution
// matches the truth.
func checkTruth(ctx context.Context, db *sql.DB, requests, truth string) ([]string, gtStats, error) {
	st := gtStats{compared: map[string]int64{}}
	var bad []string
	add := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+truth).Scan(&st.truthRows); err != nil {
		return nil, st, err
	}

	// Tier presence: a request appears iff some tier logged it, and its
	// has_* flags are the truth's.
	rows, err := db.QueryContext(ctx, `
		SELECT coalesce(t.request_id, r.request_id),
		       t.request_id IS NOT NULL, r.request_id IS NOT NULL,
		       coalesce(t.has_client OR t.has_gateway OR t.has_server, false),
		       t.has_client IS NOT DISTINCT FROM r.has_client
		         AND t.has_gateway IS NOT DISTINCT FROM r.has_gateway
		         AND t.has_server IS NOT DISTINCT FROM r.has_server
		FROM `+truth+` AS t FULL JOIN `+requests+` AS r USING (request_id)
		ORDER BY 1`)
	if err != nil {
		return nil, st, err
	}
	for rows.Next() {
		var id string
		var inTruth, inRequests, anyTier, sameFlags bool
		if err := rows.Scan(&id, &inTruth, &inRequests, &anyTier, &sameFlags); err != nil {
			rows.Close()
			return nil, st, err
		}
		switch {
		case !inTruth:
			add("%s: in requests but not in the truth", id)
		case inRequests != anyTier:
			add("%s: in requests %v, but the truth says some tier logged it: %v", id, inRequests, anyTier)
		case inRequests && !sameFlags:
			add("%s: has_client/has_gateway/has_server differ from the truth", id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, st, err
	}

	// Per request and component: present exactly when the truth has the
	// value and every tier it needs logged the request, NULL otherwise,
	// and within gtPerRequestMs of the truth.
	for _, c := range gtComponents {
		var need []string
		for _, tier := range c.tiers {
			need = append(need, "t.has_"+tier)
		}
		q := fmt.Sprintf(`
			SELECT request_id, t.%[1]s, r.%[1]s, %[2]s
			FROM %[3]s AS t JOIN %[4]s AS r USING (request_id)
			ORDER BY request_id`, c.col, strings.Join(need, " AND "), truth, requests)
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			return nil, st, err
		}
		for rows.Next() {
			var id string
			var tv, rv sql.NullFloat64
			var tiers bool
			if err := rows.Scan(&id, &tv, &rv, &tiers); err != nil {
				rows.Close()
				return nil, st, err
			}
			want := tv.Valid && tiers
			if !tiers {
				st.nullChecked++
			}
			switch {
			case want && !rv.Valid:
				add("%s %s: NULL, truth %.3f with every tier it needs logged", id, c.col, tv.Float64)
			case !want && rv.Valid:
				add("%s %s: %.3f, want NULL (truth %v, needed tiers %v logged: %v)", id, c.col, rv.Float64, tv, c.tiers, tiers)
			case want:
				st.compared[c.col]++
				if d := math.Abs(rv.Float64 - tv.Float64); d > gtPerRequestMs {
					add("%s %s: %.3f, truth %.3f (off by %.3f ms)", id, c.col, rv.Float64, tv.Float64, d)
				}
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, st, err
		}
	}

	// Per slice: P50/P95/P99 over the same requests on both sides: the
	// successful ones, as the report's percentiles (analyze's sliced_ok):
	// status 2xx in the truth, and completed and not aborted as analyze
	// judges them from the logs (request_outcome in queries/macros.sql).
	var cols, tcols, rcols []string
	for _, c := range gtComponents {
		cols = append(cols, "'"+c.col+"'")
		tcols = append(tcols, "t."+c.col)
		rcols = append(rcols, "r."+c.col)
	}
	q := fmt.Sprintf(`
		WITH pairs AS (
		    SELECT t.model, t.use_case, t.phase,
		           unnest([%s]) AS col, unnest([%s]) AS tv, unnest([%s]) AS rv
		    FROM %s AS t JOIN %s AS r USING (request_id)
		    WHERE t.status BETWEEN 200 AND 299 AND r.completed AND NOT r.aborted
		),
		q AS (
		    SELECT CASE WHEN grouping(model, use_case) = 0 THEN 'model=' || model || ', use_case=' || use_case
		                WHEN grouping(phase) = 0 THEN 'phase=' || phase
		                ELSE 'all' END AS slice,
		           col, count(*) AS n,
		           quantile_cont(tv, [0.5, 0.95, 0.99]) AS tq,
		           quantile_cont(rv, [0.5, 0.95, 0.99]) AS rq
		    FROM pairs
		    WHERE tv IS NOT NULL AND rv IS NOT NULL
		    GROUP BY GROUPING SETS ((), (model, use_case), (phase)), col
		)
		SELECT slice, col, n, p, tq[i], rq[i]
		FROM q, (VALUES (1, 'P50'), (2, 'P95'), (3, 'P99')) AS x(i, p)
		ORDER BY slice, col, i`,
		strings.Join(cols, ", "), strings.Join(tcols, ", "), strings.Join(rcols, ", "), truth, requests)
	rows, err = db.QueryContext(ctx, q)
	if err != nil {
		return nil, st, err
	}
	defer rows.Close()
	for rows.Next() {
		var slice, col, p string
		var n int64
		var tq, rq float64
		if err := rows.Scan(&slice, &col, &n, &p, &tq, &rq); err != nil {
			return nil, st, err
		}
		st.quantiles++
		d := math.Abs(rq - tq)
		rel := d / math.Max(math.Abs(tq), 1e-9)
		switch {
		case rel <= gtQuantileRel:
			st.worstRel = math.Max(st.worstRel, rel)
		case d <= gtQuantileFloorMs:
			st.floorUsed++
		default:
			add("%s %s %s (n=%d): %.3f, truth %.3f (off by %.2f%%)", slice, col, p, n, rq, tq, 100*rel)
		}
	}
	return bad, st, rows.Err()
}

// simulateAndRun writes a simulation into a temporary directory and runs
// the whole pipeline on it, returning the simulation and output directories.
func simulateAndRun(t *testing.T, seed int) (simDir, outDir string) {
	t.Helper()
	return simulateAndRunN(t, seed, gtRequests)
}

// simulateAndRunN simulates n requests (with extra simulate flags) and runs
// the whole pipeline on the logs, DuckDB on one thread (see runCLI).
func simulateAndRunN(t *testing.T, seed, n int, extra ...string) (simDir, outDir string) {
	t.Helper()
	simDir, outDir = filepath.Join(t.TempDir(), "sim"), filepath.Join(t.TempDir(), "out")
	simulateAndRunIn(t, simDir, outDir, seed, n, extra...)
	return simDir, outDir
}

// simulateAndRunIn is simulateAndRunN into the directories simDir and
// outDir.
func simulateAndRunIn(t *testing.T, simDir, outDir string, seed, n int, extra ...string) {
	t.Helper()
	inputs := simulateInputsIn(t, simDir, seed, n, extra...)
	code, stdout, stderr := runCLI(t, append(append([]string{"run"}, inputs...), "--threads", "1", "--out", outDir)...)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	t.Logf("simulated %d requests with seed %d %v; %s", n, seed, extra, strings.TrimSpace(stdout))
}

// simulateAndAnalyzeN is simulateAndRunN for the tests that read only
// the analysis (requests.parquet, the ingest's manifest and parts): it
// ingests and analyzes the logs and writes no report, which would cost
// about half as much CPU again as both.
func simulateAndAnalyzeN(t *testing.T, seed, n int, extra ...string) (simDir, outDir string) {
	t.Helper()
	simDir, outDir = filepath.Join(t.TempDir(), "sim"), filepath.Join(t.TempDir(), "out")
	stdout := ingestAndAnalyze(t, outDir, simulateInputsIn(t, simDir, seed, n, extra...)...)
	t.Logf("simulated %d requests with seed %d %v; %s", n, seed, extra, stdout)
	return simDir, outDir
}

// ingestAndAnalyze ingests the inputs (ingest's flags) into outDir and
// analyzes them, as run does before it writes the report, DuckDB on one
// thread (see runCLI), and returns what the two printed on stdout.
func ingestAndAnalyze(t *testing.T, outDir string, inputs ...string) string {
	t.Helper()
	code, ingested, stderr := runCLI(t, append(append([]string{"ingest"}, inputs...), "--out", outDir)...)
	if code != 0 {
		t.Fatalf("ingest: exit %d\n%s\n%s", code, ingested, stderr)
	}
	code, analyzed, stderr := runCLI(t, "analyze", "--threads", "1", outDir)
	if code != 0 {
		t.Fatalf("analyze: exit %d\n%s\n%s", code, analyzed, stderr)
	}
	return strings.TrimSpace(ingested) + "; " + strings.TrimSpace(analyzed)
}

func openTruthDB(t *testing.T, simDir, outDir string) *sql.DB {
	t.Helper()
	return truthDB(t, outDir, simDir)
}

func TestGroundTruth(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	simDir, outDir := simulateAndRun(t, 11)
	db := openTruthDB(t, simDir, outDir)

	bad, st, err := checkTruth(ctx, db, "requests", "truth")
	if err != nil {
		t.Fatal(err)
	}
	if st.truthRows != gtRequests {
		t.Fatalf("truth has %d rows, want %d", st.truthRows, gtRequests)
	}
	var total int64
	for _, c := range gtComponents {
		n := st.compared[c.col]
		total += n
		t.Logf("%-20s compared on %d requests", c.col, n)
		if n < 1000 {
			t.Errorf("%s compared on only %d requests, want thousands", c.col, n)
		}
	}
	t.Logf("%d per-request values within %.1f ms, %d NULL where a needed tier is missing, %d per-slice quantiles within %.0f%% (worst %.3f%%; %d more within %.1f ms)",
		total, gtPerRequestMs, st.nullChecked, st.quantiles, 100*gtQuantileRel, 100*st.worstRel, st.floorUsed, gtQuantileFloorMs)
	if st.nullChecked < 100 || st.quantiles < 300 {
		t.Errorf("too little checked: %d NULL checks, %d quantiles", st.nullChecked, st.quantiles)
	}
	for i, b := range bad {
		if i == 30 {
			t.Errorf("... and %d more mismatches", len(bad)-i)
			break
		}
		t.Error(b)
	}

	// tps_user counts what the client received over its first token to end.
	var tpsN, tpsBad int64
	if err := db.QueryRow(`
		SELECT count(*), count(*) FILTER (WHERE abs(r.tps_user - t.tps_user) > 0.01 * t.tps_user)
		FROM truth AS t JOIN requests AS r USING (request_id)
		WHERE t.tps_user IS NOT NULL AND r.tps_user IS NOT NULL`).Scan(&tpsN, &tpsBad); err != nil {
		t.Fatal(err)
	}
	t.Logf("tps_user compared on %d requests, %d off by more than 1%%", tpsN, tpsBad)
	if tpsN < 1000 || tpsBad > 0 {
		t.Errorf("tps_user: %d of %d requests off by more than 1%%", tpsBad, tpsN)
	}

	checkPhases(t, db)
	checkReportShowsPhases(t, db, outDir)
}

// checkReportShowsPhases reads the report run wrote and checks that the
// burst and the cold replica are visible in it, not averaged away.
func checkReportShowsPhases(t *testing.T, db *sql.DB, outDir string) {
	t.Helper()
	var coldReplica string
	if err := db.QueryRow("SELECT any_value(replica) FROM truth WHERE phase = 'cold'").Scan(&coldReplica); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(outDir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	for _, re := range []string{
		// Findings: the burst's extra time is outside the model, in the queue.
		`In the burst phase \(n=\d+, window [^)]*\), P95 client E2E is [\d.]+ ms \(n=\d+, 95% interval [^)]*\) against [\d.]+ ms \(n=\d+, 95% interval [^)]*\) in steady state, \+[\d.]+ ms, while P95 model time stays comparatively flat, .*mostly in queueing`,
		// Findings: the late replica and its cold requests.
		`Replica ` + regexp.QuoteMeta(mdEscape(coldReplica)) + ` \([^)]*\) served its first request at [^,]+, [\d.]+ s after the first request of the service, and \d+ requests were detected as cold`,
		// Phases: the three side by side, each with thousands or hundreds of samples.
		`\| Client E2E \(ms\) \| cold \| [1-9]\d+ \|`,
		`\| Client E2E \(ms\) \| burst \| [1-9]\d\d+ \|`,
		`\| Client E2E \(ms\) \| steady \| [1-9]\d\d\d+ \|`,
		// Replicas: the cold replica's row counts its cold requests.
		`\| ` + regexp.QuoteMeta(mdEscape(coldReplica)) + ` \| [^|]+ \| \d+ \| [^|]+ \| [^|]+ \| [1-9]\d* \|`,
		// Time series: at least one window that is mostly burst.
		`\| \*\*\d{4}-\d\d-\d\d [\d:.]+\*\* \| \d+ \|`,
	} {
		if !regexp.MustCompile(re).MatchString(md) {
			t.Errorf("report.md does not match %s", re)
		}
	}
	b, err = os.ReadFile(filepath.Join(outDir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	// Charts (role="img"; legend swatches are not): attribution, two
	// percentile curves, time series, and a bar per row
	// of the summary table.
	if n, rows := strings.Count(html, `<svg role="img"`), strings.Count(html, `aria-label="attribution bars"`); n != 4+rows || rows == 0 {
		t.Errorf("report.html has %d SVG charts and %d summary bars, want 4 charts and a bar per summary row", n, rows)
	}
	// The first screen answers: the burst's queueing and the cold replica
	// are headlines, above the findings.
	summary, _, ok := strings.Cut(md, "\n## Findings\n")
	if !ok {
		t.Fatal("report.md has no Findings section")
	}
	for _, re := range []string{
		`During the burst \(\d+ requests, from [\d:]+ to [\d:]+ UTC\), P95 client E2E is [\d.]+ ms against [\d.]+ ms in steady state\. The extra time is queueing, not the model`,
		`Replica ` + regexp.QuoteMeta(mdEscape(coldReplica)) + ` served its first request [\d.]+ s after the service's first; \d+ of its requests were cold\.`,
	} {
		if !regexp.MustCompile(re).MatchString(summary) {
			t.Errorf("the summary of report.md does not match %s", re)
		}
	}
	if !strings.Contains(html, `<rect class="burst"`) || !strings.Contains(html, `<rect class="cold"`) {
		t.Error("the time series chart marks no burst window or no cold window")
	}
}

// mdEscape is the Markdown escaping the report applies to log-derived text
// (model and replica names hold no other special characters).
func mdEscape(s string) string { return strings.NewReplacer("_", `\_`, "*", `\*`).Replace(s) }

// checkPhases compares the phase analyze derives from the logs with the
// simulator's label.
func checkPhases(t *testing.T, db *sql.DB) {
	t.Helper()
	rows, err := db.Query(`
		SELECT t.phase, r.phase, count(*)
		FROM truth AS t JOIN requests AS r USING (request_id)
		GROUP BY ALL ORDER BY ALL`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	conf := map[[2]string]int{}
	truthN, foundN := map[string]int{}, map[string]int{}
	total, agree := 0, 0
	for rows.Next() {
		var tp, rp string
		var n int
		if err := rows.Scan(&tp, &rp, &n); err != nil {
			t.Fatal(err)
		}
		conf[[2]string{tp, rp}] = n
		truthN[tp] += n
		foundN[rp] += n
		total += n
		if tp == rp {
			agree += n
		}
	}
	var b strings.Builder
	b.WriteString("phase confusion (rows: truth, columns: detected)\n        cold  burst steady\n")
	for _, tp := range []string{"cold", "burst", "steady"} {
		fmt.Fprintf(&b, "%-6s", tp)
		for _, rp := range []string{"cold", "burst", "steady"} {
			fmt.Fprintf(&b, " %6d", conf[[2]string{tp, rp}])
		}
		b.WriteString("\n")
	}
	t.Log(b.String())
	t.Logf("phase agreement %d of %d (%.1f%%)", agree, total, 100*float64(agree)/float64(total))
	if float64(agree) < 0.95*float64(total) {
		t.Errorf("phase agrees on %d of %d requests, want >= 95%%", agree, total)
	}
	for _, p := range []string{"cold", "burst"} {
		hit := conf[[2]string{p, p}]
		if truthN[p] == 0 || float64(hit) < 0.9*float64(truthN[p]) {
			t.Errorf("%s: %d of %d true %s requests detected, want >= 90%%", p, hit, truthN[p], p)
		}
		if foundN[p] == 0 || float64(hit) < 0.9*float64(foundN[p]) {
			t.Errorf("%s: %d of %d detected %s requests are truly %s, want >= 90%%", p, hit, foundN[p], p, p)
		}
	}
}

// TestGroundTruthCatchesClockMixing is the negative control: the real
// requests steps (queries/requests/, as one statement) with one change,
// queue time measured from the gateway as server scheduled - gateway
// upstream_start, a gateway time subtracted from a server time. On one clock that would be the queue plus the sub-millisecond
// gateway-to-server hop; across the simulated host clocks it is off by the
// hosts' offset. The checker must report it.
func TestGroundTruthCatchesClockMixing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	simDir, outDir := simulateAndAnalyzeN(t, 12, gtRequests)
	db := openTruthDB(t, simDir, outDir)

	steps, err := queries.Steps("requests")
	if err != nil {
		t.Fatal(err)
	}
	one := queries.OneStatement(steps)
	q := one
	for _, r := range [][2]string{
		{"epoch_ns(s.scheduled_time) - epoch_ns(s.arrival_time)           AS s_queue,",
			"epoch_ns(s.scheduled_time) - epoch_ns(g.upstream_start_time)    AS s_queue,"},
	} {
		if !strings.Contains(q, r[0]) {
			t.Fatalf("the requests steps no longer contain %q; update the negative control", r[0])
		}
		q = strings.Replace(q, r[0], r[1], 1)
	}
	// The macros the requests steps use, as analyze creates them.
	for _, m := range strings.Split(queries.MustGet("macros"), ";\n") {
		if strings.Contains(m, "CREATE") {
			if _, err := db.Exec(m); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tier := range []string{"client", "gateway", "server"} {
		// rid as analyze's views number the rows (registerTiersIn).
		view := "CREATE VIEW " + tier + " AS SELECT *, NULL::BIGINT AS rid FROM (" + strings.TrimSuffix(strings.TrimSpace(queries.MustGet("empty_"+tier)), ";") +
			") UNION ALL BY NAME SELECT *, (file_index::BIGINT << 40) + file_row_number AS rid FROM read_parquet('" +
			filepath.Join(outDir, tier, "*", "*.parquet") + "', union_by_name = true, hive_partitioning = false)"
		if tier == "gateway" {
			// the column analyze's gateway view adds (gateway_matched.sql):
			// no record here was matched by time
			view = "CREATE VIEW gateway AS SELECT *, NULL::VARCHAR AS joined_by FROM (" + strings.TrimPrefix(view, "CREATE VIEW gateway AS ") + ")"
		}
		if _, err := db.Exec(view); err != nil {
			t.Fatal(err)
		}
		// The tier's batch and file name of a row, as analyze makes them
		// for a store of one batch (analyze/db.go, batchMacros).
		if _, err := db.Exec("CREATE MACRO " + tier + "_batch(rid) AS 1; CREATE MACRO " + tier + "_file(path, rid) AS path"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec("CREATE TABLE broken AS " + q); err != nil {
		t.Fatal(err)
	}

	// The unmodified query over the same views passes: the views are right
	// and only the changed line is at fault.
	if _, err := db.Exec("CREATE TABLE fixed AS " + one); err != nil {
		t.Fatal(err)
	}
	if bad, _, err := checkTruth(ctx, db, "fixed", "truth"); err != nil || len(bad) > 0 {
		t.Fatalf("the unmodified query fails the check (%v): %d mismatches, e.g. %v", err, len(bad), bad[:min(3, len(bad))])
	}

	bad, _, err := checkTruth(ctx, db, "broken", "truth")
	if err != nil {
		t.Fatal(err)
	}
	queue, quantile := 0, 0
	for _, b := range bad {
		if strings.Contains(b, " queue_ms") {
			queue++
		}
		if strings.Contains(b, " P50 ") || strings.Contains(b, " P95 ") || strings.Contains(b, " P99 ") {
			quantile++
		}
	}
	t.Logf("queue time across clocks: %d mismatches reported, e.g.\n%s", len(bad), strings.Join(bad[:min(3, len(bad))], "\n"))
	if queue < 100 || quantile == 0 {
		t.Errorf("the check did not catch queue time taken across clocks: %d queue, %d quantile mismatches", queue, quantile)
	}
}

// scheduledField matches the scheduled time of a native server log line:
// an RFC 3339 string or Unix epoch seconds with a fraction.
var scheduledField = regexp.MustCompile(`"scheduled":("[^"]*"|[0-9]+\.[0-9]+)`)

// shiftScheduled moves the scheduled time in one log line by d, keeping its
// format; lines without one (or cut before it) are returned unchanged.
func shiftScheduled(t *testing.T, line string, d time.Duration) string {
	return scheduledField.ReplaceAllStringFunc(line, func(m string) string {
		v := strings.TrimPrefix(m, `"scheduled":`)
		if strings.HasPrefix(v, `"`) {
			at, err := time.Parse(time.RFC3339Nano, strings.Trim(v, `"`))
			if err != nil {
				t.Fatalf("scheduled %s: %v", v, err)
			}
			return `"scheduled":"` + at.Add(d).Format("2006-01-02T15:04:05.000000Z07:00") + `"`
		}
		sec, frac, _ := strings.Cut(v, ".")
		s, err1 := strconv.ParseInt(sec, 10, 64)
		us, err2 := strconv.ParseInt((frac + "000000")[:6], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("scheduled %s: %v %v", v, err1, err2)
		}
		us += s*1e6 + d.Microseconds()
		return fmt.Sprintf(`"scheduled":%d.%06d`, us/1e6, us%1e6)
	})
}

// TestGroundTruthCatchesOneSkewedReplica is a second negative control, in
// the logs rather than in the query: one replica writes its scheduled time
// 7 ms late, as a host whose clock handling is broken for one field would.
// The check must flag that replica's queue and model time, and only those.
func TestGroundTruthCatchesOneSkewedReplica(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	simDir := filepath.Join(t.TempDir(), "sim")
	if code, stdout, stderr := runCLI(t, "simulate", "--out", simDir, "--requests", fmt.Sprint(gtRequests), "--seed", "13"); code != 0 {
		t.Fatalf("simulate: exit %d\n%s\n%s", code, stdout, stderr)
	}
	const replica = "llama-3.1-8b-0"
	path := filepath.Join(simDir, "server", replica+".jsonl")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		lines[i] = shiftScheduled(t, l, 7*time.Millisecond)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	outDir := filepath.Join(t.TempDir(), "out")
	// What the check reads is the analysis: no report.
	ingestAndAnalyze(t, outDir, "--client", filepath.Join(simDir, "client", "*"),
		"--gateway", filepath.Join(simDir, "gateway", "*"), "--server", filepath.Join(simDir, "server", "*"))
	db := openTruthDB(t, simDir, outDir)
	bad, _, err := checkTruth(ctx, db, "requests", "truth")
	if err != nil {
		t.Fatal(err)
	}
	var onReplica int
	if err := db.QueryRow("SELECT count(*) FROM requests WHERE replica = ? AND queue_ms IS NOT NULL", replica).Scan(&onReplica); err != nil {
		t.Fatal(err)
	}
	cols := map[string]int{}
	for _, m := range bad {
		f := strings.Fields(m)
		if len(f) > 1 && strings.HasSuffix(f[1], "_ms:") {
			cols[strings.TrimSuffix(f[1], ":")]++
		}
	}
	t.Logf("%s's scheduled shifted by 7 ms: %d mismatches; per-request by column %v; %d requests on the replica", replica, len(bad), cols, onReplica)
	for _, c := range []string{"queue_ms", "model_ms", "ttft_queue_ms", "ttft_model_ms"} {
		if cols[c] < onReplica*8/10 {
			t.Errorf("%s: %d requests flagged, want about the %d on %s", c, cols[c], onReplica, replica)
		}
	}
	for c, n := range cols {
		switch c {
		case "queue_ms", "model_ms", "ttft_queue_ms", "ttft_model_ms":
		default:
			t.Errorf("%s flagged on %d requests: only queue and model times depend on scheduled", c, n)
		}
	}
}
