package e2e

import (
	"bufio"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Metamorphic tests: properties of the analysis that hold on any data, each
// checked by changing the input in a known way and comparing
// requests.parquet row for row with the unchanged run.

// simulateDir runs simulate with the given flags into a new directory.
func simulateDir(t *testing.T, args ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sim")
	code, stdout, stderr := runCLI(t, append([]string{"simulate", "--out", dir}, args...)...)
	if code != 0 {
		t.Fatalf("simulate %v: exit %d\n%s\n%s", args, code, stdout, stderr)
	}
	return dir
}

// ingestTiers ingests the three tiers of each simulated dir into out (the
// first as a new store, the others appended as batches), then analyzes it,
// DuckDB on one thread (see runCLI; every analyze and report here does).
func ingestTiers(t *testing.T, out string, sims ...string) {
	t.Helper()
	for i, sim := range sims {
		args := []string{"ingest", "-q",
			"--client", filepath.Join(sim, "client", "*"),
			"--gateway", filepath.Join(sim, "gateway", "*"),
			"--server", filepath.Join(sim, "server", "*"),
			"--out", out}
		if i > 0 {
			args = append(args, "--append")
		}
		if code, stdout, stderr := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, stdout, stderr)
		}
	}
	if code, stdout, stderr := runCLI(t, "analyze", "-q", "--threads", "1", out); code != 0 {
		t.Fatalf("analyze %s: exit %d\n%s\n%s", out, code, stdout, stderr)
	}
}

// requestsDiff counts the rows of a's requests.parquet (restricted to where,
// over alias r) that b's has not, column for column but those excluded, and
// the rows compared; it logs a few of the differing rows of both sides.
func requestsDiff(t *testing.T, a, b, where string, exclude ...string) (differ, n int64) {
	t.Helper()
	db, err := sql.Open("duckdb", duckOneThread)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cols := "*"
	if len(exclude) > 0 {
		cols = "* EXCLUDE (" + strings.Join(exclude, ", ") + ")"
	}
	for name, dir := range map[string]string{"a": a, "b": b} {
		q := fmt.Sprintf(`CREATE VIEW %s AS SELECT %s FROM read_parquet('%s') AS r WHERE %s`,
			name, cols, filepath.Join(dir, "requests.parquet"), where)
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.QueryRow(`SELECT (SELECT count(*) FROM (SELECT * FROM a EXCEPT ALL SELECT * FROM b)), (SELECT count(*) FROM a)`).Scan(&differ, &n); err != nil {
		t.Fatal(err)
	}
	if differ > 0 {
		rows, err := db.Query(`(SELECT 'only before' AS side, * FROM (SELECT * FROM a EXCEPT ALL SELECT * FROM b) LIMIT 3)
		    UNION ALL (SELECT 'only after', * FROM (SELECT * FROM b EXCEPT ALL SELECT * FROM a)
		               WHERE request_id IN (SELECT request_id FROM a) LIMIT 3)`)
		if err == nil {
			defer rows.Close()
			names, _ := rows.Columns()
			for rows.Next() {
				v := make([]any, len(names))
				p := make([]any, len(v))
				for i := range v {
					p[i] = &v[i]
				}
				if err := rows.Scan(p...); err == nil {
					var s strings.Builder
					for i, x := range v {
						fmt.Fprintf(&s, " %s=%v", names[i], x)
					}
					t.Log(s.String())
				}
			}
		}
	}
	return differ, n
}

// A request's phase, components and every other column do not change when
// a batch of other traffic, a week away, is added to the store: each batch
// is analyzed within its own session, whichever batches the store holds.
func TestFarBatchChangesNoRequest(t *testing.T) {
	t.Parallel()
	first := simulateDir(t, "--requests", "1500", "--seed", "21", "--start", "2026-11-23T10:00:00Z")
	second := simulateDir(t, "--requests", "1500", "--seed", "22", "--start", "2026-11-30T10:00:00Z")
	alone, both := filepath.Join(t.TempDir(), "alone"), filepath.Join(t.TempDir(), "both")
	ingestTiers(t, alone, first)
	ingestTiers(t, both, first, second)
	differ, n := requestsDiff(t, alone, both, "true")
	if n < 1400 || differ != 0 {
		t.Errorf("%d of the first batch's %d requests changed when a batch a week later was added", differ, n)
	}
	// The other way round: the later batch alone, then the earlier one
	// appended after it.
	alone2, both2 := filepath.Join(t.TempDir(), "alone2"), filepath.Join(t.TempDir(), "both2")
	ingestTiers(t, alone2, second)
	ingestTiers(t, both2, second, first)
	differ, n = requestsDiff(t, alone2, both2, "true")
	if n < 1400 || differ != 0 {
		t.Errorf("%d of the later batch's %d requests changed when a batch a week earlier was added", differ, n)
	}
}

// timeField matches the instants of the native format's records of every
// tier: an RFC 3339 string or Unix seconds.
var timeField = regexp.MustCompile(`"(start|end|first_token|arrival|scheduled|upstream_start|upstream_first_byte|upstream_end)":("[^"]*"|[0-9]+\.[0-9]+)`)

// shiftClock copies the native log src to dst with every instant moved by d,
// as a host whose clock is d ahead would have written it.
func shiftClock(t *testing.T, src, dst string, d time.Duration) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var b strings.Builder
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	shifted := 0
	for sc.Scan() {
		line := timeField.ReplaceAllStringFunc(sc.Text(), func(m string) string {
			k, v, _ := strings.Cut(m, ":")
			shifted++
			if strings.HasPrefix(v, `"`) {
				at, err := time.Parse(time.RFC3339Nano, strings.Trim(v, `"`))
				if err != nil {
					t.Fatalf("%s: %s: %v", src, m, err)
				}
				return k + `:"` + at.Add(d).Format("2006-01-02T15:04:05.000000Z07:00") + `"`
			}
			sec, frac, _ := strings.Cut(v, ".")
			s, err1 := strconv.ParseInt(sec, 10, 64)
			us, err2 := strconv.ParseInt((frac + "000000")[:6], 10, 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: %s: %v %v", src, m, err1, err2)
			}
			us += s*1e6 + d.Microseconds()
			return fmt.Sprintf(`%s:%d.%06d`, k, us/1e6, us%1e6)
		})
		b.WriteString(line)
		b.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if shifted < 100 {
		t.Fatalf("%s: %d instants shifted: not a native log?", src, shifted)
	}
	if err := os.WriteFile(dst, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyTree copies the regular files of src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A constant shift of a host's clock changes no component and no phase:
// every duration is a difference of one host's times, and every yardstick
// of the phases (sessions, hours of a host's traffic, replica lifetimes) is
// taken on one host's clock. One client's clock is moved 7 ms, one
// gateway's 2.5 s ahead, one replica's 90 s back and another's 3 min ahead
// (clocks are taken to agree within minutes: see sessions in docs/attribution.md); only start, the time
// of the request's first tier, may move.
func TestClockShiftChangesNoComponent(t *testing.T) {
	t.Parallel()
	sim := simulateDir(t, "--requests", "3000", "--seed", "23")
	moved := filepath.Join(t.TempDir(), "moved")
	copyTree(t, sim, moved)
	shifts := map[string]time.Duration{
		filepath.Join("gateway", "gw-1.jsonl"):           2500 * time.Millisecond,
		filepath.Join("server", "llama-3.1-8b-0.jsonl"):  -90 * time.Second,
		filepath.Join("server", "llama-3.1-70b-0.jsonl"): 3 * time.Minute,
	}
	clients, _ := filepath.Glob(filepath.Join(sim, "client", "*.jsonl"))
	if len(clients) == 0 {
		t.Fatal("no client log")
	}
	rel, _ := filepath.Rel(sim, clients[0])
	shifts[rel] = 7 * time.Millisecond
	for f, d := range shifts {
		shiftClock(t, filepath.Join(sim, f), filepath.Join(moved, f), d)
	}
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	ingestTiers(t, a, sim)
	ingestTiers(t, b, moved)
	// The logs were copied: their sources name the other directory.
	differ, n := requestsDiff(t, a, b, "true", "start", "client_source", "gateway_source", "server_source")
	if n < 2900 || differ != 0 {
		t.Errorf("%d of %d requests changed when four hosts' clocks were shifted", differ, n)
	}
	var bursts, cold int
	db, err := sql.Open("duckdb", duckOneThread)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow(`SELECT count(*) FILTER (WHERE phase = 'burst'), count(*) FILTER (WHERE phase = 'cold')
	    FROM read_parquet('`+filepath.Join(a, "requests.parquet")+`')`).Scan(&bursts, &cold); err != nil {
		t.Fatal(err)
	}
	if bursts < 100 || cold < 20 {
		t.Errorf("%d burst and %d cold requests: the run no longer tests the phases", bursts, cold)
	}
}

// truthDB opens the truth of the simulated dirs (one view over all their
// truth.parquet files) beside the requests.parquet of out.
func truthDB(t *testing.T, out string, sims ...string) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", duckOneThread)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	var files []string
	for _, s := range sims {
		files = append(files, "'"+filepath.Join(s, "truth.parquet")+"'")
	}
	for _, s := range []string{
		"SET TimeZone = 'UTC'",
		"CREATE VIEW truth AS SELECT * FROM read_parquet([" + strings.Join(files, ", ") + "])",
		"CREATE VIEW requests AS SELECT * FROM read_parquet('" + filepath.Join(out, "requests.parquet") + "')",
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return db
}

// A weekly store: two batches of traffic a week apart, each with its burst
// and its late, cold replica, ingested as two batches and analyzed once.
// Each request's phase agrees with the truth as in one run (before sessions,
// 98% of such a store read as burst, and the second batch had no cold
// start).
func TestPhasesTwoWeeks(t *testing.T) {
	t.Parallel()
	first := simulateDir(t, "--requests", "5000", "--seed", "31", "--start", "2026-11-23T10:00:00Z")
	second := simulateDir(t, "--requests", "5000", "--seed", "32", "--start", "2026-11-30T10:00:00Z")
	out := filepath.Join(t.TempDir(), "store")
	ingestTiers(t, out, first, second)
	checkPhases(t, truthDB(t, out, first, second))
}

// Diurnal traffic over three days (the rate at 03:00 a fifth of 15:00's)
// with one burst, on weekdays and over a quiet weekend (Saturday and
// Sunday at 0.3 of the weekday's rate): the day's peak and Friday's traffic
// are no burst against the night or the weekend, and the burst is found.
// Before the usual rate followed the hour, 775 of 5,940 steady requests of
// the weekday store and 1,909 of 3,794 of the weekend one read as burst.
func TestPhasesDiurnal(t *testing.T) {
	t.Parallel()
	for name, flags := range map[string][]string{
		"weekdays": {"--requests", "6000", "--start", "2026-11-23T00:00:00Z", "--burst-duration", "10m", "--burst-multiplier", "8"},
		"weekend": {"--requests", "4000", "--start", "2026-11-27T00:00:00Z", "--weekend", "0.3",
			"--burst-duration", "20m", "--burst-multiplier", "12"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sim := simulateDir(t, append([]string{"--seed", "4", "--rate", "0.05", "--diurnal", "0.8", "--burst-start", "39h",
				"--cold", "none"}, flags...)...)
			out := filepath.Join(t.TempDir(), "store")
			ingestTiers(t, out, sim)
			db := truthDB(t, out, sim)
			var steady, falseBurst, burst, found int
			if err := db.QueryRow(`SELECT count(*) FILTER (WHERE t.phase = 'steady'),
			        count(*) FILTER (WHERE t.phase = 'steady' AND r.phase = 'burst'),
			        count(*) FILTER (WHERE t.phase = 'burst'),
			        count(*) FILTER (WHERE t.phase = 'burst' AND r.phase = 'burst')
			    FROM truth AS t JOIN requests AS r USING (request_id)`).Scan(&steady, &falseBurst, &burst, &found); err != nil {
				t.Fatal(err)
			}
			t.Logf("steady %d (%d read as burst), burst %d (%d found)", steady, falseBurst, burst, found)
			if steady < 3000 || float64(falseBurst) > 0.01*float64(steady) {
				t.Errorf("%d of %d steady requests read as burst, want <= 1%%", falseBurst, steady)
			}
			if burst < 150 || float64(found) < 0.9*float64(burst) {
				t.Errorf("%d of %d burst requests found, want >= 90%%", found, burst)
			}
		})
	}
}

// A replica that scales up during the burst, as an autoscaler's does, and
// warms up in each of the simulator's ways: its cold requests are cold, not
// burst (cold, burst and steady are never collapsed).
func TestPhasesScaleUpDuringBurst(t *testing.T) {
	t.Parallel()
	for kind, flags := range map[string][]string{
		"decode":  {"--cold", "decode"},
		"prefill": {"--cold", "prefill"},
		"load":    {"--cold", "load"},
		"queue":   {"--cold", "queue"},
		// a mild warm-up: 25 requests twice as slow, which no threshold
		// on the replica's unloaded decode speed alone finds in a burst
		"mild": {"--cold", "decode", "--cold-factor", "2", "--cold-requests", "25"},
	} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			sim := simulateDir(t, append([]string{"--requests", "3000", "--seed", "3", "--cold-join", "41s"}, flags...)...)
			out := filepath.Join(t.TempDir(), "store")
			ingestTiers(t, out, sim)
			db := truthDB(t, out, sim)
			var cold, asCold, asBurst int
			if err := db.QueryRow(`SELECT count(*), count(*) FILTER (WHERE r.phase = 'cold'),
			        count(*) FILTER (WHERE r.phase = 'burst')
			    FROM truth AS t JOIN requests AS r USING (request_id) WHERE t.phase = 'cold'`).Scan(&cold, &asCold, &asBurst); err != nil {
				t.Fatal(err)
			}
			t.Logf("%d cold requests: %d read as cold, %d as burst", cold, asCold, asBurst)
			if cold < 10 || float64(asCold) < 0.9*float64(cold) {
				t.Errorf("%d of %d cold requests of the replica that joined in the burst read as cold, want >= 90%%", asCold, cold)
			}
		})
	}
}

// Analyzing a window of a store (--from/--to) gives the same rows as
// analyzing the same window of a store that holds only the window's logs
// (its margin included): nothing outside the window and its margin reaches
// a request of it.
func TestWindowMatchesStoreOfTheWindow(t *testing.T) {
	t.Parallel()
	before := simulateDir(t, "--requests", "1500", "--seed", "41", "--start", "2026-11-29T10:00:00Z")
	day := simulateDir(t, "--requests", "1500", "--seed", "42", "--start", "2026-11-30T10:00:00Z")
	after := simulateDir(t, "--requests", "1500", "--seed", "43", "--start", "2026-12-01T10:00:00Z")
	whole, only := filepath.Join(t.TempDir(), "whole"), filepath.Join(t.TempDir(), "only")
	ingestTiers(t, whole, before, day, after)
	ingestTiers(t, only, day)
	for _, dir := range []string{whole, only} {
		if code, stdout, stderr := runCLI(t, "analyze", "-q", "--threads", "1", dir, "--from", "2026-11-30", "--to", "2026-12-01"); code != 0 {
			t.Fatalf("analyze %s --from --to: exit %d\n%s\n%s", dir, code, stdout, stderr)
		}
	}
	differ, n := requestsDiff(t, whole, only, "true")
	if n < 1400 || differ != 0 {
		t.Errorf("%d of the window's %d requests differ from those of a store of the window alone", differ, n)
	}
	if differ, _ := requestsDiff(t, only, whole, "true"); differ != 0 {
		t.Errorf("%d requests of the store of the window alone differ from the window's", differ)
	}
}

// A weekly report of a store of two weeks opens with what changed between
// them, judged as compare judges two windows: nothing, when the second week
// is the same stack run with another seed (its burst queues more or less by
// chance); the application time, when half of the second week's requests
// take a gateway auth path 300 ms slower.
func TestWeeklySummaryOpensWithWhatChanged(t *testing.T) {
	t.Parallel()
	first := simulateDir(t, "--requests", "3000", "--seed", "51", "--start", "2026-11-23T10:00:00Z")
	for name, c := range map[string]struct {
		flags []string
		want  string
	}{
		"same stack": {nil, "No significant change"},
		"slow auth":  {[]string{"--slow-auth-rate", "0.5", "--slow-auth-delay", "300ms"}, "Application time rose"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			second := simulateDir(t, append([]string{"--requests", "3000", "--seed", "52", "--start", "2026-11-30T10:00:00Z"}, c.flags...)...)
			out := filepath.Join(t.TempDir(), "store")
			ingestTiers(t, out, first, second)
			if code, stdout, stderr := runCLI(t, "report", "-q", "--threads", "1", "--weekly", out); code != 0 {
				t.Fatalf("report --weekly: exit %d\n%s\n%s", code, stdout, stderr)
			}
			md, err := os.ReadFile(filepath.Join(out, "report.md"))
			if err != nil {
				t.Fatal(err)
			}
			_, summary, _ := strings.Cut(string(md), "## Summary\n\n")
			first, _, _ := strings.Cut(summary, "\n")
			if !strings.HasPrefix(first, "**What changed since the previous period.** "+c.want) {
				t.Errorf("the Summary opens with %q, want what changed: %q", first, c.want)
			}
		})
	}
}
