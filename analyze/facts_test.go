package analyze

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/infertrace/infertrace/analyze/analyzetest"
	"github.com/infertrace/infertrace/internal/duck"
	"github.com/infertrace/infertrace/simulate"
)

// TestFactsCutInsideSession: a session of six hours, with a burst of ten
// minutes three hours in, cut at two random times inside it (one inside
// the burst, two minutes or more from its ends, one 30 to 60 minutes more
// than FactsMargin after the session's start, so that the last window
// reads the other windows' arrivals from the middle of the session on). Each window, analyzed with the others' facts, has the whole
// pass's values of each fact its arrival steps read: the sessions (sess),
// each host-session's arrivals, first and last (arr_host), each of its own
// arrivals' position, hour, rate and weight (local_rate), the usual rates
// of its arrivals' hours (usual_rate) and its requests that are in a burst
// (burst), and its own server records' replica lifetimes and
// model-sessions (srv_p, as TestFactsReplicaLifetimes). The windows' values
// EXCEPT ALL the whole pass's, and the other way round, are empty.
func TestFactsCutInsideSession(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	start := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	cfg := simulate.DefaultConfig()
	cfg.Out, cfg.Requests, cfg.Seed, cfg.Epoch = filepath.Join(root, "sim"), 6480, 7, start
	cfg.RatePerSecond, cfg.BurstStart, cfg.BurstDuration = 0.3, 3*time.Hour, 10*time.Minute
	dir := filepath.Join(root, "store")
	ingestStore(t, ctx, dir, simulated(t, ctx, cfg))
	res := duck.Resources{MemoryLimit: 512 << 20, Threads: 1}

	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 0))
	at := func(lo, hi time.Duration) time.Time {
		return start.Add(lo + time.Duration(rng.Int64N(int64(hi-lo))))
	}
	// The first cut two minutes or more inside the burst: the runs of high
	// arrivals found start and end a little inside the simulated burst.
	ws := []Window{{To: at(3*time.Hour+2*time.Minute, 3*time.Hour+8*time.Minute)}}
	ws = append(ws, Window{From: ws[0].To, To: at(FactsMargin+30*time.Minute, FactsMargin+time.Hour)})
	ws = append(ws, Window{From: ws[1].To, Unstarted: true})
	t.Logf("seed %d: windows %v", seed, ws)

	// The facts each window's steps computed, as they wrote them: a file
	// per window and fact.
	facts := map[string]string{
		"sess":       "SELECT m, sid FROM sess",
		"arr_host":   "SELECT tier, host, sid, host_n, first_ns, last_ns, hid FROM arr_host",
		"local_rate": "SELECT hid, rn, bk, rate, gap_ns, host_n, pref, tie_t FROM local_rate WHERE rq >= 0",
		"usual_rate": `SELECT u.hid, u.wb, u.usual FROM usual_rate AS u
SEMI JOIN (SELECT DISTINCT hid, bk FROM local_rate WHERE rq >= 0) AS l ON l.hid = u.hid AND l.bk = u.wb`,
		"burst": "SELECT q.request_id FROM burst JOIN req AS q USING (rq)",
		"srv_p": `SELECT a.request_id, a.replica, p.rl % 4294967296 AS life, a.model, p.ms % 4294967296 AS sid, p.msc % 8 AS bucket
FROM srv_p AS p JOIN srv_a AS a USING (rq) WHERE arr_owned(p.rq)`,
	}
	file := func(run, fact string) string { return filepath.Join(root, run+"-"+fact+".parquet") }
	keep := func(run string) func(context.Context, *sql.DB, string) error {
		return func(ctx context.Context, db *sql.DB, wrote string) error {
			q, ok := facts[wrote]
			if !ok {
				return nil
			}
			_, err := db.ExecContext(ctx, "COPY ("+q+") TO "+duck.Quote(file(run, wrote)))
			return err
		}
	}
	wholeThenFacts(t, ctx, dir, res, ws, keep("whole"))
	for i, w := range ws {
		if _, err := runWindowFacts(ctx, dir, res, ws, i, keep(fmt.Sprint("window", i))); err != nil {
			t.Fatalf("window %v: %v", w, err)
		}
	}

	db, done, err := duck.Open(ctx, root, res)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	read := func(fact string, runs ...string) string {
		var q []string
		for _, r := range runs {
			q = append(q, duck.Quote(file(r, fact)))
		}
		return "read_parquet([" + strings.Join(q, ", ") + "])"
	}
	differ := func(fact, a, b, op string) {
		t.Helper()
		var extra, missing int64
		if err := db.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM (SELECT * FROM "+a+" "+op+" SELECT * FROM "+b+
			")), (SELECT count(*) FROM (SELECT * FROM "+b+" "+op+" SELECT * FROM "+a+"))").Scan(&extra, &missing); err != nil {
			t.Fatal(err)
		}
		if extra != 0 || missing != 0 {
			t.Errorf("%s: the windows have %d rows the whole pass has not, and miss %d of its", fact, extra, missing)
		}
	}
	// Each window numbers the whole store's sessions and host-sessions.
	for i := range ws {
		for _, f := range []string{"sess", "arr_host"} {
			differ(fmt.Sprintf("%s of window %d", f, i), read(f, fmt.Sprint("window", i)), read(f, "whole"), "EXCEPT ALL")
		}
	}
	// Each arrival and burst request is one window's own; an hour's usual
	// rate is that of every window with an arrival in it.
	windows := []string{"window0", "window1", "window2"}
	differ("local_rate", read("local_rate", windows...), read("local_rate", "whole"), "EXCEPT ALL")
	differ("burst", read("burst", windows...), read("burst", "whole"), "EXCEPT ALL")
	differ("srv_p", read("srv_p", windows...), read("srv_p", "whole"), "EXCEPT ALL")
	differ("usual_rate", read("usual_rate", windows...), read("usual_rate", "whole"), "EXCEPT")

	// The data holds what the facts are for: a burst through the first
	// cut, and arrivals of the last window's host-sessions before the
	// other windows' arrivals it reads (rn0 > 0: it reads from half an hour
	// or more into the session, and holds the session's last 27 minutes
	// or more: the burst uses up requests, and the last arrives at 13:27).
	var burst, across int64
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+read("burst", "whole")).Scan(&burst); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM "+read("burst", "window0")+") * (SELECT count(*) FROM "+
		read("burst", "window1")+")").Scan(&across); err != nil {
		t.Fatal(err)
	}
	var late int64
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+read("local_rate", "window2")+" WHERE rn > 800").Scan(&late); err != nil {
		t.Fatal(err)
	}
	if burst < 31 || across == 0 || late == 0 {
		t.Errorf("the whole pass has %d requests in a burst, the first two windows %d pairs of them, the last %d arrivals at rn > 800: want a burst through the first cut and a long session",
			burst, across, late)
	}
}

// TestFactsSparseHost: a client host that sends a request every 10
// minutes for ten hours (one session), and one a minute from 5:30 to 6:15,
// a burst, cut at 6:00. The last window reads the other windows' arrivals
// of that host back to the 16th before FactsMargin (12 lie within an hour
// of it), and the two windows give the whole pass's rows, the burst's on
// both sides of the cut included (analyzed without the facts, where the
// last window reads 25 of the burst's arrivals, 9 rows differ).
func TestFactsSparseHost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var f analyzetest.Fixture
	add := func(a int64) {
		i := len(f.Clients)
		f.Clients = append(f.Clients, analyzetest.Client{ID: fmt.Sprint("r", i), Client: "sparse",
			Start: analyzetest.At(a), End: analyzetest.At(a + 500), Line: i + 1})
	}
	const minute = 60_000 // ms
	for m := int64(0); m < 600; m += 10 {
		add(m*minute + 7)
	}
	for m := int64(330); m < 375; m++ {
		add(m*minute + 3)
	}
	root := t.TempDir()
	dir := filepath.Join(root, "store")
	if err := analyzetest.Write(ctx, dir, f, analyzetest.Offsets{}); err != nil {
		t.Fatal(err)
	}
	res := duck.Resources{MemoryLimit: 256 << 20, Threads: 1}
	if _, err := RunWith(ctx, dir, res); err != nil {
		t.Fatal(err)
	}
	whole := filepath.Join(root, "whole.parquet")
	if err := os.Rename(filepath.Join(dir, RequestsFile), whole); err != nil {
		t.Fatal(err)
	}
	cut := analyzetest.Base.Add(6 * time.Hour)
	ws := []Window{{To: cut}, {From: cut, Unstarted: true}}
	for i := range ws {
		if err := WriteFacts(ctx, dir, res, ws, i); err != nil {
			t.Fatal(err)
		}
	}
	var parts []string
	for i, w := range ws {
		if _, err := RunWindowFacts(ctx, dir, res, ws, i); err != nil {
			t.Fatalf("window %v: %v", w, err)
		}
		p := filepath.Join(root, fmt.Sprint("window", i, ".parquet"))
		if err := os.Rename(filepath.Join(dir, RequestsFile), p); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, duck.Quote(p))
	}
	db, done, err := duck.Open(ctx, root, res)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	w, split := "read_parquet("+duck.Quote(whole)+")", "read_parquet(["+strings.Join(parts, ", ")+"])"
	var before, after, extra, missing int64
	if err := db.QueryRowContext(ctx, "SELECT count(*) FILTER (start < "+tsLiteral(cut)+"), count(*) FILTER (start >= "+tsLiteral(cut)+
		") FROM "+w+" WHERE phase = 'burst'").Scan(&before, &after); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM (SELECT * FROM "+split+" EXCEPT ALL SELECT * FROM "+w+
		")), (SELECT count(*) FROM (SELECT * FROM "+w+" EXCEPT ALL SELECT * FROM "+split+"))").Scan(&extra, &missing); err != nil {
		t.Fatal(err)
	}
	if before == 0 || after == 0 {
		t.Errorf("the whole pass has %d requests in a burst before the cut and %d after: want a burst through it", before, after)
	}
	if extra != 0 || missing != 0 {
		t.Errorf("the windows give %d rows the whole pass does not, and miss %d of its", extra, missing)
	}
}

// TestFactsRefused: a plan whose windows do not adjoin or are not open at
// both ends is refused; so is a window whose other windows' facts are
// missing, or its own server records (the yardsticks read every window's),
// or were written for another plan or from another manifest (ErrNoFacts).
func TestFactsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	at := analyzetest.Base.Add
	for _, ws := range [][]Window{
		{{To: at(time.Hour)}, {From: at(2 * time.Hour)}},
		{{From: at(time.Hour)}},
		{{To: at(time.Hour)}},
	} {
		if err := WriteFacts(ctx, t.TempDir(), duck.Resources{}, ws, 0); err == nil {
			t.Errorf("plan %v: no error", ws)
		}
	}
	var f analyzetest.Fixture
	for i := range int64(4) {
		f.Clients = append(f.Clients, analyzetest.Client{ID: fmt.Sprint("r", i), Start: analyzetest.At(i * 3_600_000),
			End: analyzetest.At(i*3_600_000 + 500), Line: int(i) + 1})
	}
	dir := t.TempDir()
	if err := analyzetest.Write(ctx, dir, f, analyzetest.Offsets{}); err != nil {
		t.Fatal(err)
	}
	res := duck.Resources{MemoryLimit: 256 << 20, Threads: 1}
	ws := []Window{{To: at(90 * time.Minute)}, {From: at(90 * time.Minute), Unstarted: true}}
	if _, err := RunWindowFacts(ctx, dir, res, ws, 1); !errors.Is(err, ErrNoFacts) {
		t.Errorf("no facts written: %v; want ErrNoFacts", err)
	}
	if err := WriteFacts(ctx, dir, res, ws, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := RunWindowFacts(ctx, dir, res, ws, 1); !errors.Is(err, ErrNoFacts) {
		t.Errorf("window 0's facts alone: %v; want ErrNoFacts", err)
	}
	if err := WriteFacts(ctx, dir, res, ws, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := RunWindowFacts(ctx, dir, res, ws, 1); err != nil {
		t.Errorf("with every window's facts: %v", err)
	}
	other := []Window{{To: at(80 * time.Minute)}, {From: at(80 * time.Minute), Unstarted: true}}
	if _, err := RunWindowFacts(ctx, dir, res, other, 1); !errors.Is(err, ErrNoFacts) {
		t.Errorf("facts of another plan: %v; want ErrNoFacts", err)
	}
	// Another ingest's manifest.
	m := filepath.Join(dir, "manifest.json")
	b, err := os.ReadFile(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(m, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := RunWindowFacts(ctx, dir, res, ws, 1); !errors.Is(err, ErrNoFacts) {
		t.Errorf("facts of another manifest: %v; want ErrNoFacts", err)
	}
}

// TestFactsReplicaLifetimes: one session of three hours on four replicas of
// two models: a (labelled) serves every minute; b (labelled) pauses twice,
// for 20 and 30 minutes (three lifetimes); two replicas without a label
// are their logs, one that stops after 30 minutes and one that starts late
// and pauses for 20 (two lifetimes). Cut at two random times after the
// pauses began, the second and third windows read neither the early log nor
// the first lifetimes' arrivals (and number the paths they read otherwise
// than the whole pass). Each window, analyzed with the others' facts, puts
// each of its own server records in the whole pass's lifetime of the
// whole pass's replica (srv_p's rl: the replica's name and the lifetime's
// number) and model-session (ms and msc's bucket): the windows' records
// EXCEPT ALL the whole pass's, and the other way round, are empty.
func TestFactsReplicaLifetimes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var f analyzetest.Fixture
	lines := map[string]int{}
	add := func(replica, model, file string, from, to, every int64) {
		for m := from; m <= to; m += every {
			lines[file]++
			a := m*60_000 + 5_000 + int64(len(lines))*100
			f.Servers = append(f.Servers, analyzetest.Server{ID: fmt.Sprint(file, "-", m), Arrival: analyzetest.At(a),
				Scheduled: analyzetest.At(a + 10), FirstToken: analyzetest.At(a + 100), End: analyzetest.At(a + 500),
				Model: model, Replica: replica, PromptTokens: analyzetest.Int(20), Output: analyzetest.Int(50),
				FinishReason: "stop", Status: analyzetest.Int(200), Line: lines[file], File: file})
		}
	}
	add("a", "m1", "logs/a.jsonl", 0, 180, 1)
	add("b", "m1", "logs/b.jsonl", 0, 40, 2)
	add("b", "m1", "logs/b.jsonl", 60, 100, 2)
	add("b", "m1", "logs/b.jsonl", 130, 180, 2)
	add("", "m2", "logs/early.jsonl", 0, 30, 3)
	add("", "m2", "logs/late.jsonl", 50, 90, 2)
	add("", "m2", "logs/late.jsonl", 110, 180, 2)
	root := t.TempDir()
	dir := filepath.Join(root, "store")
	if err := analyzetest.Write(ctx, dir, f, analyzetest.Offsets{}); err != nil {
		t.Fatal(err)
	}
	res := duck.Resources{MemoryLimit: 256 << 20, Threads: 1}

	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 0))
	at := func(lo, hi time.Duration) time.Time {
		return analyzetest.Base.Add(lo + time.Duration(rng.Int64N(int64(hi-lo))))
	}
	ws := []Window{{To: at(105*time.Minute, 125*time.Minute)}}
	ws = append(ws, Window{From: ws[0].To, To: at(135*time.Minute, 170*time.Minute)})
	ws = append(ws, Window{From: ws[1].To, Unstarted: true})
	t.Logf("seed %d: windows %v", seed, ws)

	// Each run's own server records with their lifetime, by the replica's
	// name, and model-session.
	file := func(run string) string { return filepath.Join(root, run+"-srv_p.parquet") }
	keep := func(run string) func(context.Context, *sql.DB, string) error {
		return func(ctx context.Context, db *sql.DB, wrote string) error {
			if wrote != "srv_p" {
				return nil
			}
			_, err := db.ExecContext(ctx, `COPY (
SELECT a.request_id, a.replica, p.rl % 4294967296 AS life, a.model, p.ms % 4294967296 AS sid, p.msc % 8 AS bucket
FROM srv_p AS p JOIN srv_a AS a USING (rq) WHERE arr_owned(p.rq)) TO `+duck.Quote(file(run)))
			return err
		}
	}
	wholeThenFacts(t, ctx, dir, res, ws, keep("whole"))
	var windows []string
	for i, w := range ws {
		run := fmt.Sprint("window", i)
		if _, err := runWindowFacts(ctx, dir, res, ws, i, keep(run)); err != nil {
			t.Fatalf("window %v: %v", w, err)
		}
		windows = append(windows, duck.Quote(file(run)))
	}

	db, done, err := duck.Open(ctx, root, res)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	whole, split := "read_parquet("+duck.Quote(file("whole"))+")", "read_parquet(["+strings.Join(windows, ", ")+"])"
	var extra, missing, records, lifetimes int64
	if err := db.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM (SELECT * FROM "+split+" EXCEPT ALL SELECT * FROM "+whole+
		")), (SELECT count(*) FROM (SELECT * FROM "+whole+" EXCEPT ALL SELECT * FROM "+split+"))").Scan(&extra, &missing); err != nil {
		t.Fatal(err)
	}
	if extra != 0 || missing != 0 {
		t.Errorf("the windows' server records have %d lifetimes the whole pass has not, and miss %d of its", extra, missing)
	}
	// The data hold what the test is for: every record, and the seven
	// lifetimes (a's one, b's three, the early log's one, the late log's
	// two).
	if err := db.QueryRowContext(ctx, "SELECT count(*), count(DISTINCT (replica, life)) FROM "+whole).Scan(&records, &lifetimes); err != nil {
		t.Fatal(err)
	}
	if records != int64(len(f.Servers)) || lifetimes != 7 {
		t.Errorf("the whole pass has %d server records in %d lifetimes; want %d in 7", records, lifetimes, len(f.Servers))
	}
}

// wholeThenFacts analyzes dir whole, calling keep with what each step
// wrote, then writes the facts of each window of ws.
func wholeThenFacts(t *testing.T, ctx context.Context, dir string, res duck.Resources, ws []Window,
	keep func(ctx context.Context, db *sql.DB, wrote string) error) {
	t.Helper()
	if _, err := runWith(ctx, dir, res, Window{}, false, filepath.Join(dir, RequestsFile), Window{}.kvMetadata(),
		func() ([]string, error) { return nil, nil }, keep); err != nil {
		t.Fatal(err)
	}
	for i := range ws {
		if err := WriteFacts(ctx, dir, res, ws, i); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFactsYardsticks: a session of 90 minutes at 0.8 requests a second on
// five replicas of two models, the fifth joining after 30 minutes and warming
// up (its first 60 requests three times slower), cut at two random times:
// one between the first and the last request of the warm-up (the whole
// pass's cold ones, 40 minutes or so), one after it and two minutes or more
// before the session's end, inside every replica's lifetime and every
// model's session. Each window, analyzed with the
// whole store's yardsticks (WriteYardsticks), judges each of its own server
// records as the whole pass does: its lifetime's records (n), P25 TPOT,
// P90 prefill, P50 work and load (srv_usual), its model, session and
// concurrency bucket's P50 TPOT (srv_q), its lifetime's first judged record
// slow or not and its first judged record that is not (warmup), whether it
// is judged, slow and cold; the windows' records EXCEPT ALL the whole pass's,
// and the other way round, are empty, and so are their rows'.
func TestFactsYardsticks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	start := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	cfg := simulate.DefaultConfig()
	cfg.Out, cfg.Requests, cfg.Seed, cfg.Epoch = filepath.Join(root, "sim"), 4320, 11, start
	cfg.RatePerSecond, cfg.ColdJoinAt, cfg.BurstStart = 0.8, 30*time.Minute, 45*time.Minute
	dir := filepath.Join(root, "store")
	ingestStore(t, ctx, dir, simulated(t, ctx, cfg))
	res := duck.Resources{MemoryLimit: 512 << 20, Threads: 1}

	// Each run's own server records, by request ID, replica and lifetime,
	// with how they are judged.
	file := func(run string) string { return filepath.Join(root, run+"-judged.parquet") }
	keep := func(run string) func(context.Context, *sql.DB, string) error {
		return func(ctx context.Context, db *sql.DB, wrote string) error {
			var q string
			switch wrote {
			case "srv_p":
				q = `CREATE TEMP TABLE own_srv AS
SELECT p.rq, p.rl, p.msc, a.request_id, a.replica, p.rl % 4294967296 AS life
FROM srv_p AS p JOIN srv_a AS a USING (rq) WHERE arr_owned(p.rq)`
			case "cold":
				q = `COPY (
SELECT o.request_id, o.replica, o.life, u.n, u.tpot_p25, u.pf_p90, u.work_p50, u.ld_p50, c.tpot AS tpot_p50,
       w.first_slow, w.warm_from, s.judged, s.slow, o.rq IN (SELECT rq FROM cold) AS cold
FROM own_srv AS o
LEFT JOIN srv_usual AS u USING (rl)
LEFT JOIN (SELECT grp, tpot FROM srv_q WHERE kind = 2) AS c ON c.grp = o.msc
LEFT JOIN warmup AS w USING (rl)
LEFT JOIN srv_slow AS s ON s.rq = o.rq) TO ` + duck.Quote(file(run))
			default:
				return nil
			}
			_, err := db.ExecContext(ctx, q)
			return err
		}
	}
	if _, err := runWith(ctx, dir, res, Window{}, false, filepath.Join(dir, RequestsFile), Window{}.kvMetadata(),
		func() ([]string, error) { return nil, nil }, keep("whole")); err != nil {
		t.Fatal(err)
	}
	db, done, err := duck.Open(ctx, root, res)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	whole := filepath.Join(root, "whole.parquet")
	if err := os.Rename(filepath.Join(dir, RequestsFile), whole); err != nil {
		t.Fatal(err)
	}
	var first, last time.Time
	if err := db.QueryRowContext(ctx, "SELECT min(start)::TIMESTAMP, max(start)::TIMESTAMP FROM read_parquet("+duck.Quote(whole)+
		") WHERE phase = 'cold'").Scan(&first, &last); err != nil {
		t.Fatal(err)
	}
	if last.Sub(first) < time.Minute || last.After(start.Add(80*time.Minute)) {
		t.Fatalf("the warm-up's requests start from %s to %s: want a warm-up of minutes, over before the session's last 10", first, last)
	}

	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 0))
	at := func(lo time.Time, d time.Duration) time.Time {
		return lo.Add(1 + time.Duration(rng.Int64N(int64(d-1))))
	}
	ws := []Window{{To: at(first, last.Sub(first))}}
	ws = append(ws, Window{From: ws[0].To, To: at(ws[0].To, start.Add(88*time.Minute).Sub(ws[0].To))})
	ws = append(ws, Window{From: ws[1].To, Unstarted: true})
	t.Logf("seed %d: windows %v", seed, ws)
	for i := range ws {
		if err := WriteFacts(ctx, dir, res, ws, i); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteYardsticks(ctx, dir, res, ws); err != nil {
		t.Fatal(err)
	}
	var judged, rows []string
	for i, w := range ws {
		run := fmt.Sprint("window", i)
		if _, err := runWindowFacts(ctx, dir, res, ws, i, keep(run)); err != nil {
			t.Fatalf("window %v: %v", w, err)
		}
		p := filepath.Join(root, run+".parquet")
		if err := os.Rename(filepath.Join(dir, RequestsFile), p); err != nil {
			t.Fatal(err)
		}
		judged, rows = append(judged, duck.Quote(file(run))), append(rows, duck.Quote(p))
	}
	differ := func(what, split, whole string) {
		t.Helper()
		var extra, missing int64
		if err := db.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM (SELECT * FROM "+split+" EXCEPT ALL SELECT * FROM "+whole+
			")), (SELECT count(*) FROM (SELECT * FROM "+whole+" EXCEPT ALL SELECT * FROM "+split+"))").Scan(&extra, &missing); err != nil {
			t.Fatal(err)
		}
		if extra != 0 || missing != 0 {
			t.Errorf("%s: the windows have %d the whole pass has not, and miss %d of its", what, extra, missing)
		}
	}
	differ("the judged server records", "read_parquet(["+strings.Join(judged, ", ")+"])", "read_parquet("+duck.Quote(file("whole"))+")")
	differ("the rows", "read_parquet(["+strings.Join(rows, ", ")+"])", "read_parquet("+duck.Quote(whole)+")")

	// The data hold what the test is for: cold records on both sides of the
	// first cut, on one replica's lifetime.
	var before, after, lives int64
	if err := db.QueryRowContext(ctx, "SELECT count(*) FILTER (start < "+tsLiteral(ws[0].To)+"), count(*) FILTER (start >= "+
		tsLiteral(ws[0].To)+"), count(DISTINCT replica) FROM read_parquet("+duck.Quote(whole)+") WHERE phase = 'cold'").Scan(
		&before, &after, &lives); err != nil {
		t.Fatal(err)
	}
	if before == 0 || after == 0 || lives != 1 {
		t.Errorf("the whole pass has %d cold requests before the first cut and %d after, on %d replicas: want a warm-up through it",
			before, after, lives)
	}
}
