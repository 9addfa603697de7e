package analyze

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/infertrace/infertrace/internal/duck"
	"github.com/infertrace/infertrace/queries"
)

// FactsDir is the directory of DIR where WriteFacts writes each window's
// facts.
const FactsDir = "facts"

// FactsMargin is how far beyond its window RunWindowFacts reads the other
// windows' arrivals of each host at least: the hours of a host's usual rate
// that its judged arrivals need (two beyond the window's on the host's hour
// grid, which starts anywhere within an hour), and one more; then on to 16
// of the host's arrivals beyond those (docs/partitions.md).
const FactsMargin = 4 * time.Hour

// checkPlan refuses a plan ws that does not tile all time (the first
// window open at its start, the last at its end, each starting where the
// one before ends), or an i that is none of its windows.
func checkPlan(ws []Window, i int) error {
	n := len(ws)
	if i < 0 || i >= n {
		return fmt.Errorf("window %d of %d: no such window", i, n)
	}
	if !ws[0].From.IsZero() || !ws[n-1].To.IsZero() {
		return fmt.Errorf("the windows %v are not open at both ends", ws)
	}
	for k := 0; k+1 < n; k++ {
		if ws[k].To.IsZero() || !ws[k].To.Equal(ws[k+1].From) {
			return fmt.Errorf("window %d ends at %s, window %d starts at %s: the windows must adjoin", k, formatBound(ws[k].To), k+1, formatBound(ws[k+1].From))
		}
	}
	return nil
}

// factsFiles are the files of window i of n's facts: its requests' kept
// arrivals (tier, host, t, request_id, pref) in time order; their count,
// first and last per tier, host and Unix minute; and the first and last of
// its server records per replica (server_replica) and Unix minute.
func factsFiles(dir string, i, n int) (arrivals, minutes, replicas string) {
	base := filepath.Join(dir, FactsDir, fmt.Sprintf("%%s-%d-of-%d.parquet", i, n))
	return fmt.Sprintf(base, "arrivals"), fmt.Sprintf(base, "minutes"), fmt.Sprintf(base, "replicas")
}

// ownMacro returns what, called with what each step wrote, makes
// arr_owned (queries/macros.sql) hold the arrivals of the requests that
// start in w, as the output keeps them, once the step that writes req has
// run (a macro is bound when it is made); nothing for the zero window, all
// of whose arrivals are its own.
func ownMacro(w Window) func(ctx context.Context, db *sql.DB, wrote string) error {
	return func(ctx context.Context, db *sql.DB, wrote string) error {
		c := w.cond("coalesce(c_start::TIMESTAMP_NS, g_start::TIMESTAMP_NS, arrival_time::TIMESTAMP_NS)")
		if wrote != "req" || c == "" {
			return nil
		}
		if _, err := db.ExecContext(ctx, "CREATE OR REPLACE MACRO arr_owned(r) AS r IN (SELECT rq FROM req WHERE "+c+")"); err != nil {
			return fmt.Errorf("facts: %w", err)
		}
		return nil
	}
}

// WriteFacts is the first pass of the analysis of window i of the plan ws
// (windows that adjoin, open at both ends: Partitions' or any cut, inside
// sessions too): it joins the window's requests as RunWindow does, up to
// their arrivals, and writes those (with the minutes of each host and of
// each replica) to DIR/facts/, for RunWindowFacts of the other windows to
// read. Each window's is written alone; together they hold every kept
// arrival of the store once, as the whole pass has them.
func WriteFacts(ctx context.Context, dir string, res duck.Resources, ws []Window, i int) error {
	if err := checkPlan(ws, i); err != nil {
		return err
	}
	w := ws[i]
	sum, err := manifestSum(dir)
	if err != nil {
		return err
	}
	db, closeDB, err := openForSteps(ctx, dir, res, w, false)
	if err != nil {
		return err
	}
	defer closeDB()
	steps, err := requestSteps()
	if err != nil {
		return err
	}
	k := 0
	for k < len(steps) && steps[k].Writes != "arrivals" {
		k++
	}
	if k == len(steps) {
		return errors.New("facts: queries/requests has no step that writes arrivals")
	}
	upTo := append(steps[:k+1:k+1], queries.Step{File: "facts", Reads: []string{"arrivals"}, Writes: "facts",
		Kind: queries.Output, Query: "SELECT tier, host, t, request_id, pref, replica FROM arrivals"})
	duck.Step(ctx, "the arrivals of window "+w.String())
	if err := execStepsThen(ctx, db, upTo, func(q string) string { return "CREATE TEMP TABLE fact_out AS " + q }, ownMacro(w)); err != nil {
		return fmt.Errorf("facts: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, FactsDir), 0o755); err != nil {
		return fmt.Errorf("facts: %w", err)
	}
	arr, mins, reps := factsFiles(dir, i, len(ws))
	kv := " (FORMAT parquet, KV_METADATA {" + manifestKey + ": " + duck.Quote(sum) + w.kvMetadata() + "})"
	for _, f := range []struct{ path, q string }{
		{arr, "SELECT tier, host, t, request_id, pref FROM fact_out ORDER BY t"},
		{mins, `SELECT tier, host, epoch_ns(t) // 60000000000 AS m, count(*)::BIGINT AS n,
       epoch_ns(min(t)) AS first_ns, epoch_ns(max(t)) AS last_ns
FROM fact_out GROUP BY tier, host, m ORDER BY m`},
		{reps, `SELECT replica, epoch_ns(t) // 60000000000 AS m, epoch_ns(min(t)) AS first_ns, epoch_ns(max(t)) AS last_ns
FROM fact_out WHERE replica IS NOT NULL GROUP BY replica, m ORDER BY m`},
	} {
		tmp := f.path + ".tmp"
		if _, err := db.ExecContext(ctx, "COPY ("+f.q+") TO "+duck.Quote(tmp)+kv); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("facts: write %s: %w", f.path, err)
		}
		if err := os.Rename(tmp, f.path); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("facts: %w", err)
		}
	}
	return nil
}

// RunWindowFacts is RunWindow for window i of the plan ws, whose arrival
// steps (sessions, each host's sessions, arrival rates, usual rates and
// bursts) and replica lifetimes read the other windows' facts (WriteFacts,
// which must have run for each of them): its requests' bursts are then
// judged against the whole store's arrivals, and its server records placed
// in the whole store's lifetimes, as the whole pass does, wherever the cuts lie,
// inside a session too (docs/partitions.md says what else a cut inside a
// session changes). A window whose judged hours reach beyond FactsMargin,
// or a run of high arrivals beyond them, fails saying so.
func RunWindowFacts(ctx context.Context, dir string, res duck.Resources, ws []Window, i int) (*RunStats, error) {
	return runWindowFacts(ctx, dir, res, ws, i, nil)
}

// runWindowFacts is RunWindowFacts that calls then, when given, with what
// each step wrote once it is written.
func runWindowFacts(ctx context.Context, dir string, res duck.Resources, ws []Window, i int,
	then func(ctx context.Context, db *sql.DB, wrote string) error) (*RunStats, error) {
	if err := checkPlan(ws, i); err != nil {
		return nil, err
	}
	w := ws[i]
	sum, err := manifestSum(dir)
	if err != nil {
		return nil, err
	}
	// The other windows' files, and each with the window it was written for.
	var arrs, mins, reps []string
	type written struct {
		path string
		w    Window
	}
	var files []written
	for j := range ws {
		if j == i {
			continue
		}
		a, m, r := factsFiles(dir, j, len(ws))
		arrs, mins, reps = append(arrs, duck.Quote(a)), append(mins, duck.Quote(m)), append(reps, duck.Quote(r))
		files = append(files, written{a, ws[j]}, written{m, ws[j]}, written{r, ws[j]})
	}
	own := ownMacro(w)
	prepare := func(ctx context.Context, db *sql.DB, wrote string) error {
		if wrote != "" {
			if then != nil {
				if err := then(ctx, db, wrote); err != nil {
					return err
				}
			}
			return own(ctx, db, wrote)
		}
		for _, f := range files {
			if err := checkFacts(ctx, db, f.path, sum, f.w); err != nil {
				return err
			}
		}
		if len(arrs) == 0 {
			return nil
		}
		// The minutes read of each host: FactsMargin beyond the window,
		// and on to 16 of the host's arrivals beyond that.
		lo, hi := int64(-1<<62), int64(1<<62)
		if load := w.widen(FactsMargin); !load.IsZero() {
			if !load.From.IsZero() {
				lo = load.From.Unix() / 60
			}
			if !load.To.IsZero() {
				hi = (load.To.Unix() + 59) / 60
			}
		}
		bound := fmt.Sprintf(`CREATE TEMP TABLE fact_bound_t AS
WITH c AS (
    SELECT tier, host, m,
           sum(CASE WHEN m < %[1]d THEN n ELSE 0 END) OVER (PARTITION BY tier, host ORDER BY m DESC ROWS UNBOUNDED PRECEDING) AS back,
           sum(CASE WHEN m >= %[2]d THEN n ELSE 0 END) OVER (PARTITION BY tier, host ORDER BY m ROWS UNBOUNDED PRECEDING) AS fwd
    FROM (SELECT tier, host, m, sum(n) AS n FROM fact_min() GROUP BY ALL)
)
SELECT tier, host,
       least(%[1]d, coalesce(max(m) FILTER (WHERE m < %[1]d AND back >= 16), min(m)))::BIGINT AS lo_m,
       greatest(%[2]d, coalesce(min(m) FILTER (WHERE m >= %[2]d AND fwd >= 16), max(m)) + 1)::BIGINT AS hi_m
FROM c GROUP BY tier, host`, lo, hi)
		for _, q := range []string{
			"CREATE OR REPLACE MACRO fact_min() AS TABLE SELECT tier, host, m, n, first_ns, last_ns FROM read_parquet([" +
				strings.Join(mins, ", ") + "])",
			"CREATE OR REPLACE MACRO fact_rep() AS TABLE SELECT replica, m, first_ns, last_ns FROM read_parquet([" +
				strings.Join(reps, ", ") + "])",
			bound,
			"CREATE OR REPLACE MACRO fact_bound() AS TABLE SELECT tier, host, lo_m, hi_m FROM fact_bound_t",
		} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("facts: %w", err)
			}
		}
		// The arrival files are in time order: a condition on t alone
		// skips their row groups outside every host's minutes.
		var first, last sql.NullInt64
		if err := db.QueryRowContext(ctx, "SELECT min(lo_m), max(hi_m) FROM fact_bound_t").Scan(&first, &last); err != nil {
			return fmt.Errorf("facts: %w", err)
		}
		span := Window{}
		if first.Valid && first.Int64 > -1<<62 {
			span.From = minuteTime(first.Int64)
		}
		if last.Valid && last.Int64 < 1<<62 {
			span.To = minuteTime(last.Int64)
		}
		where := "epoch_ns(a.t) // 60000000000 >= b.lo_m AND epoch_ns(a.t) // 60000000000 < b.hi_m"
		if c := span.cond("a.t"); c != "" {
			where = c + " AND " + where
		}
		if _, err := db.ExecContext(ctx, `CREATE OR REPLACE MACRO fact_arr() AS TABLE
SELECT -1 - (hash(a.request_id) >> 2)::BIGINT AS rq, a.request_id, a.pref, a.tier, a.host, a.t
FROM read_parquet([`+strings.Join(arrs, ", ")+`]) AS a
JOIN fact_bound_t AS b ON b.tier = a.tier AND b.host IS NOT DISTINCT FROM a.host
WHERE `+where); err != nil {
			return fmt.Errorf("facts: %w", err)
		}
		return nil
	}
	return runWith(ctx, dir, res, w, false, filepath.Join(dir, RequestsFile), w.kvMetadata(), supersedeWhole(dir), prepare)
}

// ErrNoFacts is wrapped by the error of RunWindowFacts when another
// window's facts are missing, stale (of another manifest) or of another
// window.
var ErrNoFacts = errors.New("no facts")

// checkFacts fails with ErrNoFacts unless the facts file at path was
// written for window w from the manifest whose SHA-256 is sum.
func checkFacts(ctx context.Context, db *sql.DB, path, sum string, w Window) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w of window %s: %s is missing (WriteFacts writes it)", ErrNoFacts, w, path)
	}
	rows, err := db.QueryContext(ctx, "SELECT decode(key), decode(value) FROM parquet_kv_metadata("+duck.Quote(path)+")")
	if err != nil {
		return fmt.Errorf("facts: %s: %w", path, err)
	}
	defer rows.Close()
	kv := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return err
		}
		kv[k] = v
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if kv[manifestKey] != sum || kv[windowKey] != w.encode() {
		return fmt.Errorf("%w of window %s: %s was written for window %q from another manifest or plan", ErrNoFacts, w, path, kv[windowKey])
	}
	return nil
}
