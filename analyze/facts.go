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
// first and last per tier, host and Unix minute; the first and last of its
// server records per replica (server_replica) and Unix minute; and those
// records, with the columns the yardsticks read (srv_a's but its rq and
// sid).
func factsFiles(dir string, i, n int) (arrivals, minutes, replicas, servers string) {
	base := filepath.Join(dir, FactsDir, fmt.Sprintf("%%s-%d-of-%d.parquet", i, n))
	return fmt.Sprintf(base, "arrivals"), fmt.Sprintf(base, "minutes"), fmt.Sprintf(base, "replicas"),
		fmt.Sprintf(base, "servers")
}

// serverColumns are the columns of srv_a that a window's servers file
// holds: all but its rq (the window's own number) and sid (the window's
// first pass does not know the whole store's sessions).
const serverColumns = "request_id, replica, model, a_ns, q_ns, ld_ns, tpot_ns, pf_ns, work_ns, concurrency"

// yardFiles are the files of the yardsticks of a plan of n windows
// (WriteYardsticks): each replica lifetime's srv_usual row and warmup
// (warm: whether it has one), each model, session and concurrency bucket's
// P50 TPOT (srv_q's kind 2), and the store's replicas and models (names:
// what, 'replica' or 'model', and name).
func yardFiles(dir string, n int) (lifetimes, buckets, names string) {
	base := filepath.Join(dir, FactsDir, fmt.Sprintf("%%s-of-%d.parquet", n))
	return fmt.Sprintf(base, "lifetimes"), fmt.Sprintf(base, "buckets"), fmt.Sprintf(base, "names")
}

// planKey is the key of the yardsticks' key-value metadata that holds the
// plan they were computed for (encodePlan).
const planKey = "infertrace_plan"

// encodePlan is the windows of ws, each as Window.encode, in order.
func encodePlan(ws []Window) string {
	var b strings.Builder
	for i, w := range ws {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w.encode())
	}
	return b.String()
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
// their arrivals and server records (srv_a), and writes those (with the
// minutes of each host and of each replica) to DIR/facts/, for
// WriteYardsticks and RunWindowFacts of the other windows to read. Each
// window's is written alone; together they hold every kept arrival and
// server record of the store once, as the whole pass has them.
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
	k, err := stepIndex(steps, "srv_a")
	if err != nil {
		return err
	}
	upTo := append(steps[:k+1:k+1], queries.Step{File: "facts", Reads: []string{"arrivals"}, Writes: "facts",
		Kind: queries.Output, Query: "SELECT tier, host, t, request_id, pref, replica FROM arrivals"})
	duck.Step(ctx, "the arrivals of window "+w.String())
	own := ownMacro(w)
	keep := func(ctx context.Context, db *sql.DB, wrote string) error {
		if wrote == "srv_a" {
			// the window's own server records, as the arrivals keep them
			if _, err := db.ExecContext(ctx, "CREATE TEMP TABLE fact_srv AS SELECT "+serverColumns+" FROM srv_a WHERE arr_owned(rq)"); err != nil {
				return err
			}
		}
		return own(ctx, db, wrote)
	}
	if err := execStepsThen(ctx, db, upTo, func(q string) string { return "CREATE TEMP TABLE fact_out AS " + q }, keep); err != nil {
		return fmt.Errorf("facts: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, FactsDir), 0o755); err != nil {
		return fmt.Errorf("facts: %w", err)
	}
	arr, mins, reps, srvs := factsFiles(dir, i, len(ws))
	kv := " (FORMAT parquet, KV_METADATA {" + manifestKey + ": " + duck.Quote(sum) + w.kvMetadata() + "})"
	for _, f := range []struct{ path, q string }{
		{arr, "SELECT tier, host, t, request_id, pref FROM fact_out ORDER BY t"},
		{mins, `SELECT tier, host, epoch_ns(t) // 60000000000 AS m, count(*)::BIGINT AS n,
       epoch_ns(min(t)) AS first_ns, epoch_ns(max(t)) AS last_ns
FROM fact_out GROUP BY tier, host, m ORDER BY m`},
		{reps, `SELECT replica, epoch_ns(t) // 60000000000 AS m, epoch_ns(min(t)) AS first_ns, epoch_ns(max(t)) AS last_ns
FROM fact_out WHERE replica IS NOT NULL GROUP BY replica, m ORDER BY m`},
		{srvs, "SELECT * FROM fact_srv"},
	} {
		if err := copyFile(ctx, db, f.q, f.path, kv); err != nil {
			return err
		}
	}
	return nil
}

// copyFile writes the rows of q to path, with kv as its COPY options:
// beside it, then renamed into place (under a name of its own: the parts'
// jobs may write the same yardsticks at once).
func copyFile(ctx context.Context, db *sql.DB, q, path, kv string) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("facts: %w", err)
	}
	tmp := f.Name()
	f.Close()
	if _, err := db.ExecContext(ctx, "COPY ("+q+") TO "+duck.Quote(tmp)+kv); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("facts: write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("facts: %w", err)
	}
	return nil
}

// stepIndex is the index of the step of steps that writes name.
func stepIndex(steps []queries.Step, name string) (int, error) {
	for k, st := range steps {
		if st.Writes == name {
			return k, nil
		}
	}
	return 0, fmt.Errorf("facts: queries/requests has no step that writes %s", name)
}

// WriteYardsticks computes the yardsticks of the replicas' warm-up for the
// whole store from the facts of every window of the plan ws (WriteFacts,
// which must have run for each: ErrNoFacts otherwise), and writes them to
// DIR/facts/ for RunWindowFacts to read: it runs the steps srv_p ... warmup
// of queries/requests over every window's server records, each in the
// whole store's session (the step sess over every window's minutes), so
// that each lifetime's yardsticks and warm-up, and each model, session and
// concurrency bucket's P50 TPOT, are the whole pass's, whatever the cuts.
// Run it once, after the first pass and before the windows; a
// RunWindowFacts that finds none computes them itself.
func WriteYardsticks(ctx context.Context, dir string, res duck.Resources, ws []Window) error {
	if err := checkPlan(ws, 0); err != nil {
		return err
	}
	sum, err := manifestSum(dir)
	if err != nil {
		return err
	}
	steps, err := requestSteps()
	if err != nil {
		return err
	}
	sess, err := stepIndex(steps, "sess")
	if err != nil {
		return err
	}
	from, err := stepIndex(steps, "srv_p")
	if err != nil {
		return err
	}
	to, err := stepIndex(steps, "warmup")
	if err != nil {
		return err
	}
	db, closeDB, err := duck.Open(ctx, dir, res)
	if err != nil {
		return err
	}
	defer closeDB()
	var mins, srvs []string
	for j, w := range ws {
		_, m, _, s := factsFiles(dir, j, len(ws))
		for _, f := range []string{m, s} {
			if err := checkFacts(ctx, db, f, sum, windowKey, w.encode(), "window "+w.String()); err != nil {
				return err
			}
		}
		mins, srvs = append(mins, duck.Quote(m)), append(srvs, duck.Quote(s))
	}
	// The store's sessions from every window's minutes, and its server
	// records in them (srv_a: a record's session is its arrival's minute's).
	for _, q := range []string{
		"CREATE OR REPLACE MACRO fact_min() AS TABLE SELECT tier, host, m, n, first_ns, last_ns FROM read_parquet([" +
			strings.Join(mins, ", ") + "])",
		"CREATE TEMP VIEW arrivals AS SELECT NULL::TIMESTAMP_NS AS t WHERE false",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("yardsticks: %w", err)
		}
	}
	srvA := `SELECT NULL::BIGINT AS rq, ` + serverColumns + `, s.sid
FROM read_parquet([` + strings.Join(srvs, ", ") + `]) AS p
JOIN sess AS s ON s.m = p.a_ns // 60000000000`
	lives, buckets, names := yardFiles(dir, len(ws))
	run := []queries.Step{steps[sess], {File: "yardsticks", Reads: []string{"sess"}, Writes: "srv_a", Kind: queries.Table,
		SQL: "CREATE TEMP TABLE srv_a AS " + srvA, Query: srvA}}
	run = append(run, steps[from:to+1]...)
	run = append(run, queries.Step{File: "yardsticks", Reads: []string{"srv_usual", "warmup"}, Writes: "yardsticks",
		Kind: queries.Output, Query: `SELECT u.*, w.rl IS NOT NULL AS warm, w.first_slow, w.warm_from
FROM srv_usual AS u LEFT JOIN warmup AS w USING (rl)`})
	kv := " (FORMAT parquet, KV_METADATA {" + manifestKey + ": " + duck.Quote(sum) + ", " + planKey + ": " +
		duck.Quote(encodePlan(ws)) + "})"
	// Each file is written beside its place (under a name of this
	// process's: the parts' jobs may write the same yardsticks at once); all
	// are put in place once every one is written.
	tmp := fmt.Sprintf(".%d-%d.tmp", os.Getpid(), time.Now().UnixNano())
	var written []string
	defer func() {
		for _, f := range written {
			os.Remove(f + tmp)
		}
	}()
	write := func(ctx context.Context, db *sql.DB, q, path string) error {
		written = append(written, path)
		if _, err := db.ExecContext(ctx, "COPY ("+q+") TO "+duck.Quote(path+tmp)+kv); err != nil {
			return fmt.Errorf("yardsticks: write %s: %w", path, err)
		}
		return nil
	}
	duck.Step(ctx, "the yardsticks of the replicas")
	err = execStepsThen(ctx, db, run, func(q string) string { return "COPY (" + q + ") TO " + duck.Quote(lives+tmp) + kv },
		func(ctx context.Context, db *sql.DB, wrote string) error {
			switch wrote {
			case "srv_a":
				return write(ctx, db, `SELECT DISTINCT 'replica' AS what, replica AS name FROM srv_a WHERE replica IS NOT NULL
UNION ALL SELECT DISTINCT 'model', model FROM srv_a WHERE model IS NOT NULL`, names)
			case "srv_q":
				return write(ctx, db, "SELECT grp AS msc, tpot FROM srv_q WHERE kind = 2", buckets)
			}
			return nil
		})
	written = append(written, lives)
	if err != nil {
		return fmt.Errorf("yardsticks: %w", err)
	}
	for _, f := range written {
		if err := os.Rename(f+tmp, f); err != nil {
			return fmt.Errorf("yardsticks: %w", err)
		}
	}
	return nil
}

// RunWindowFacts is RunWindow for window i of the plan ws, whose arrival
// steps (sessions, each host's sessions, arrival rates, usual rates and
// bursts) and replica lifetimes read the other windows' facts (WriteFacts,
// which must have run for every window, this one too), and whose replicas'
// yardsticks and warm-up are the whole store's (WriteYardsticks, which it
// runs first when they are missing or stale): its requests' bursts are then
// judged against the whole store's arrivals, and its server records placed
// in the whole store's lifetimes and judged against their yardsticks, as
// the whole pass does, wherever the cuts lie, inside a session too
// (docs/partitions.md says what else a cut inside a session changes). A
// window whose judged hours reach beyond FactsMargin, or a run of high
// arrivals beyond them, fails saying so.
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
	return runFactsTo(ctx, dir, res, ws, i, filepath.Join(dir, RequestsFile), ws[i].kvMetadata(), supersedeWhole(dir), then)
}

// runFactsTo is runWindowFacts that writes to out, as runTo does.
func runFactsTo(ctx context.Context, dir string, res duck.Resources, ws []Window, i int, out, kv string,
	clear func() ([]string, error), then func(ctx context.Context, db *sql.DB, wrote string) error) (*RunStats, error) {
	w := ws[i]
	sum, err := manifestSum(dir)
	if err != nil {
		return nil, err
	}
	if err := ensureYardsticks(ctx, dir, res, ws, sum); err != nil {
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
		a, m, r, _ := factsFiles(dir, j, len(ws))
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
			if err := checkFacts(ctx, db, f.path, sum, windowKey, f.w.encode(), "window "+f.w.String()); err != nil {
				return err
			}
		}
		// The whole store's yardsticks, keyed as srv_p keys them.
		lives, buckets, names := yardFiles(dir, len(ws))
		for _, q := range []string{
			"CREATE OR REPLACE MACRO fact_replica() AS TABLE SELECT name AS replica FROM read_parquet(" + duck.Quote(names) +
				") WHERE what = 'replica'",
			"CREATE OR REPLACE MACRO fact_model() AS TABLE SELECT name AS model FROM read_parquet(" + duck.Quote(names) +
				") WHERE what = 'model'",
			"CREATE OR REPLACE MACRO fact_tpot() AS TABLE SELECT msc, tpot FROM read_parquet(" + duck.Quote(buckets) + ")",
			"CREATE OR REPLACE MACRO fact_usual() AS TABLE SELECT rl, n, tpot_p25, pf_p90, work_p50, ld_p50 FROM read_parquet(" +
				duck.Quote(lives) + ")",
			"CREATE OR REPLACE MACRO fact_warm() AS TABLE SELECT rl, first_slow, warm_from FROM read_parquet(" +
				duck.Quote(lives) + ") WHERE warm",
		} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("facts: %w", err)
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
	return runWith(ctx, dir, res, w, false, out, kv, clear, prepare)
}

// ensureYardsticks writes the yardsticks of the plan ws (WriteYardsticks)
// unless they were written for it from the manifest whose SHA-256 is sum.
func ensureYardsticks(ctx context.Context, dir string, res duck.Resources, ws []Window, sum string) error {
	db, err := duck.OpenMemory(ctx)
	if err != nil {
		return err
	}
	lives, buckets, names := yardFiles(dir, len(ws))
	for _, f := range []string{lives, buckets, names} {
		if err = checkFacts(ctx, db, f, sum, planKey, encodePlan(ws), "the plan's yardsticks"); err != nil {
			break
		}
	}
	db.Close()
	if errors.Is(err, ErrNoFacts) {
		return WriteYardsticks(ctx, dir, res, ws)
	}
	return err
}

// ErrNoFacts is wrapped by the error of RunWindowFacts when another
// window's facts are missing, stale (of another manifest) or of another
// window.
var ErrNoFacts = errors.New("no facts")

// checkFacts fails with ErrNoFacts unless the facts file at path was
// written from the manifest whose SHA-256 is sum, with value under key of
// its metadata (the window's for a window's facts, windowKey; the plan's
// for the yardsticks, planKey); of names it in the error.
func checkFacts(ctx context.Context, db *sql.DB, path, sum, key, value, of string) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w of %s: %s is missing", ErrNoFacts, of, path)
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
	if kv[manifestKey] != sum || kv[key] != value {
		return fmt.Errorf("%w of %s: %s was written for %q from another manifest or plan", ErrNoFacts, of, path, kv[key])
	}
	return nil
}
