package analyze

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/infertrace/infertrace/internal/duck"
)

// SessionGapMinutes is the gap that cuts the store's sessions (queries/requests
// 510_sess.sql): two minutes that hold an arrival are in one session when they
// are at most this many minutes apart, that is when fewer than 11 whole minutes
// between them hold none.
const SessionGapMinutes = 11

// Partitions plans the windows by which dir's store can be analyzed piece by
// piece, each giving the requests that start in it exactly as the analysis of
// the whole store gives them (docs/partitions.md). A first pass reads the
// minutes in which some tier logged a start (a set, each day's computable
// alone and merged by union), cuts them into the sessions of 510_sess.sql,
// gives each session to the period of length every (from the first start's
// UTC midnight) in which it begins, and cuts at the first minute of each run
// of sessions of one period. Every rule computed over a run of requests (a
// replica's warm-up, a host's usual rate, the model's yardsticks) is taken
// within one session, and no session straddles a cut, so each window judges
// its requests against the same requests as the whole pass.
//
// A cut is left out where something joins or reaches across it whatever the
// sessions: a server record that arrived before it and ended or left its
// queue at or after it (concurrency, queue busy periods); records on both
// sides that share a request ID (a retry after a pause; a client's response
// ID counts as the request ID vLLM built it from), a trace ID, or a source
// line where one has no request ID or has a trace ID (a log appended again
// under its name). A store is not cut at all where its records are matched by
// time (TGI and Ollama JSON rows, gateway records without a request ID: the
// clock offsets are estimated from all of a host's rows), or where a row
// without a start (a Triton trace, a format that logs durations only) shares
// a key with a row that has one (every window reads it, and all but one would
// hold it as a request of its own). A session longer than every (traffic that
// never pauses for 11 minutes) is not cut either: its window spans it all.
//
// The first window is open at its start and the last at its end, and keeps
// the requests without a start (Window.Unstarted); a store that is not cut is
// one window, the zero one. every must be positive.
func Partitions(ctx context.Context, dir string, res duck.Resources, every time.Duration) ([]Window, error) {
	p, err := plan(ctx, dir, res, every, false)
	return p.Windows, err
}

// Plan is a plan of windows that together give the whole analysis.
type Plan struct {
	Windows []Window
	// Facts: some cut lies inside a session, so each window must be
	// analyzed with the others' facts (WriteFacts, then RunWindowFacts).
	Facts bool
}

// PlanInside is Partitions that also cuts a session longer than every at
// the periods' starts within it, where no record reaches across the cut
// beyond WindowMargin (insideCutOK); such a plan needs the windows' facts
// (Plan.Facts). Where a period's start is not such a cut, the first minute
// that is within the next InsideCutSearch is taken, else none.
func PlanInside(ctx context.Context, dir string, res duck.Resources, every time.Duration) (Plan, error) {
	return plan(ctx, dir, res, every, true)
}

// InsideCutSearch is how far after a period's start PlanInside looks for a
// cut inside a session, at InsideCutStep apart.
const (
	InsideCutSearch = time.Hour
	InsideCutStep   = 5 * time.Minute
)

func plan(ctx context.Context, dir string, res duck.Resources, every time.Duration, inside bool) (Plan, error) {
	none := Plan{Windows: []Window{{}}}
	if every <= 0 {
		return Plan{}, fmt.Errorf("partitions: the period must be positive, not %v", every)
	}
	db, closeDB, err := duck.Open(ctx, dir, res)
	if err != nil {
		return Plan{}, err
	}
	defer closeDB()
	if err := registerTiers(ctx, db, dir); err != nil {
		return Plan{}, err
	}
	// The rows match.go matches by time (tgi_rows.sql, noid_gateways.sql).
	var matched bool
	if err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM server_logged
    WHERE format IN ('tgi', 'ollama-json') AND request_id IS NULL AND end_time IS NOT NULL)
 OR EXISTS (SELECT 1 FROM gateway
    WHERE nullif(request_id, '') IS NULL AND nullif(trace_id, '') IS NULL AND start_time IS NOT NULL)`).Scan(&matched); err != nil {
		return Plan{}, fmt.Errorf("partitions: the rows matched by time: %w", err)
	}
	if matched {
		return none, nil
	}
	minutes, err := int64s(ctx, db, `SELECT DISTINCT epoch_ns(t::TIMESTAMP_NS) // 60000000000 AS m
FROM (SELECT start_time AS t FROM client UNION ALL SELECT start_time FROM gateway
      UNION ALL SELECT arrival_time FROM server_logged)
WHERE t IS NOT NULL ORDER BY m`)
	if err != nil {
		return Plan{}, fmt.Errorf("partitions: the minutes of the store: %w", err)
	}
	cands := sessionCuts(minutes, every, inside)
	if len(cands) == 0 {
		return none, nil
	}
	// Rows without a start are read by every window; where one joins a row
	// with a start, the windows that do not read that row would hold it as
	// a request of its own without a start, which the last window keeps.
	var joined bool
	if err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM (`+keyedRows+`) AS a
    WHERE a.t IS NOT NULL AND a.h IN (SELECT h FROM (`+keyedRows+`) WHERE t IS NULL))`).Scan(&joined); err != nil {
		return Plan{}, fmt.Errorf("partitions: the rows without a start: %w", err)
	}
	if joined {
		return none, nil
	}
	var vals []string
	for _, c := range cands {
		for _, m := range c.try {
			vals = append(vals, fmt.Sprintf("(%d)", m))
		}
	}
	bad, err := int64s(ctx, db, fmt.Sprintf(spannedCuts, strings.Join(vals, ", "), int64(WindowMargin)))
	if err != nil {
		return Plan{}, fmt.Errorf("partitions: the records across a cut: %w", err)
	}
	spanned := make(map[int64]bool, len(bad))
	for _, m := range bad {
		spanned[m] = true
	}
	var p Plan
	var cuts []int64
	for _, c := range cands {
		for _, m := range c.try {
			if !spanned[m] {
				cuts = append(cuts, m)
				p.Facts = p.Facts || c.inside
				break
			}
		}
	}
	p.Windows = windows(cuts)
	return p, nil
}

// spannedCuts are the cuts (Unix minutes, %[1]s: VALUES) across which a
// record reaches beyond the margin (%[2]d ns) that the windows on either
// side read: a window [.., c) reads the rows that start before c + margin,
// a window [c, ..) those that start at or after c - margin.
var spannedCuts = `WITH
cuts AS (SELECT m, m * 60000000000 AS ns FROM (VALUES %[1]s) AS c(m)),
-- What joins records whatever their times: a request ID, a trace ID, a
-- source shared by several records (the rank n of an ID-less record's key,
-- of a trace's records), hashed (a collision only leaves a cut out). A key
-- whose records span less than the margin lies within both windows' rows
-- whatever the cut; at a cut between sessions (a gap of 11 minutes without
-- a row) a key on both sides spans more.
keyed AS (` + keyedRows + `),
spans AS (SELECT h, min(t) AS lo, max(t) AS hi FROM keyed WHERE t IS NOT NULL GROUP BY h
          HAVING max(t) - min(t) >= %[2]d),
srv AS (SELECT coalesce(replica, 'file ' || source_file) AS rep, epoch_ns(arrival_time::TIMESTAMP_NS) AS a,
               greatest(epoch_ns(end_time::TIMESTAMP_NS), epoch_ns(scheduled_time::TIMESTAMP_NS),
                        epoch_ns(arrival_time::TIMESTAMP_NS) + queue_ns) AS e,
               coalesce(epoch_ns(scheduled_time::TIMESTAMP_NS) - epoch_ns(arrival_time::TIMESTAMP_NS), queue_ns) AS q
        FROM server_logged WHERE arrival_time IS NOT NULL),
-- A replica's queue waits (arrival to leaving the queue) clipped to the
-- margin before a cut; where they cover all of it, a busy period runs
-- from before the later window's rows into it.
waits AS (SELECT c.m, s.rep, greatest(s.a, c.ns - %[2]d) AS lo, least(s.a + s.q, c.ns) AS hi, c.ns
          FROM cuts AS c JOIN srv AS s ON s.a < c.ns AND s.a + s.q > c.ns - %[2]d AND s.q > 0),
runs AS (SELECT m, rep, lo, hi, ns,
                max(hi) OVER (PARTITION BY m, rep ORDER BY lo, hi ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before
         FROM waits)
SELECT c.m FROM cuts AS c
-- A server record that arrived before the later window's rows and is in
-- flight or queued at the cut: its concurrency and busy period reach the
-- records after the cut.
WHERE EXISTS (SELECT 1 FROM srv AS s WHERE s.a < c.ns - %[2]d AND s.e >= c.ns)
   OR EXISTS (SELECT 1 FROM spans WHERE lo < c.ns AND hi >= c.ns AND (lo < c.ns - %[2]d OR hi >= c.ns + %[2]d))
   OR c.m IN (SELECT m FROM runs GROUP BY m, rep, ns
              HAVING min(lo) <= any_value(ns) - %[2]d AND max(hi) >= any_value(ns)
                 AND bool_and(before IS NULL OR before >= lo))
ORDER BY c.m`

// keyedRows is every row's join keys (hashed, h) with its start (ns, t).
var keyedRows = func() string {
	var q []string
	for _, v := range [][3]string{{"client", "start_time", "client"}, {"gateway", "start_time", "gateway"}, {"server_logged", "arrival_time", "server"}} {
		t := "epoch_ns(" + v[1] + "::TIMESTAMP_NS)"
		q = append(q,
			"SELECT hash('id', request_id) AS h, "+t+" AS t FROM "+v[0]+" WHERE nullif(request_id, '') IS NOT NULL",
			"SELECT hash('trace', trace_id), "+t+" FROM "+v[0]+" WHERE nullif(trace_id, '') IS NOT NULL",
			"SELECT hash('source', "+v[2]+"_file(source_file, rid), source_line), "+t+" FROM "+v[0]+
				" WHERE nullif(request_id, '') IS NULL OR nullif(trace_id, '') IS NOT NULL")
	}
	// A client record joins by its response ID's request ID too
	// (360_client_miss.sql).
	q = append(q, "SELECT hash('id', response_request_id(response_id)), epoch_ns(start_time::TIMESTAMP_NS) FROM client"+
		" WHERE nullif(response_id, '') IS NOT NULL")
	return strings.Join(q, "\nUNION ALL ")
}()

// int64s runs q, which returns one BIGINT column, and returns its values.
func int64s(ctx context.Context, db *sql.DB, q string) ([]int64, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// cut is a cut Partitions may make, at the first of the minutes try
// (Unix minutes) that no record reaches across; inside: the cut lies inside
// a session.
type cut struct {
	try    []int64
	inside bool
}

// sessionCuts are Partitions' cuts from the sorted minutes that hold a
// start: the first minute of each session that begins in another period
// than the session before it; with inside, also the start of each period
// that begins inside a session, or one of the minutes InsideCutStep apart
// within InsideCutSearch after it.
func sessionCuts(minutes []int64, every time.Duration, inside bool) []cut {
	if len(minutes) == 0 {
		return nil
	}
	origin := minuteTime(minutes[0]).Truncate(24 * time.Hour)
	period := func(m int64) int64 { return int64(minuteTime(m).Sub(origin) / every) }
	var cuts []cut
	last := period(minutes[0])
	for i := 1; i < len(minutes); i++ {
		p := period(minutes[i])
		if p == last {
			continue
		}
		if minutes[i]-minutes[i-1] > SessionGapMinutes {
			cuts = append(cuts, cut{try: []int64{minutes[i]}})
			last = p
			continue
		}
		if !inside {
			continue // the same session
		}
		for q := last + 1; q <= p; q++ {
			from := origin.Add(time.Duration(q) * every)
			c := cut{inside: true}
			for d := time.Duration(0); d <= InsideCutSearch; d += InsideCutStep {
				if m := from.Add(d).Unix() / 60; m <= minutes[len(minutes)-1] && d < every {
					c.try = append(c.try, m)
				}
			}
			if len(c.try) > 0 {
				cuts = append(cuts, c)
			}
		}
		last = p
	}
	return cuts
}

func minuteTime(m int64) time.Time { return time.Unix(m*60, 0).UTC() }

// windows are the windows between cuts (Unix minutes), open at both ends,
// the last keeping the requests without a start; the zero Window alone
// without a cut.
func windows(cuts []int64) []Window {
	ws := make([]Window, 0, len(cuts)+1)
	var from time.Time
	for _, c := range cuts {
		ws = append(ws, Window{From: from, To: minuteTime(c)})
		from = minuteTime(c)
	}
	return append(ws, Window{From: from, Unstarted: len(cuts) > 0})
}

// Share is the i-th (from 0) of n contiguous shares of the windows ws of
// Partitions, as one window: from the start of its first window to the end of
// its last (a run of adjoining windows is cut only where they are, so it is
// as exact as they are), keeping the requests without a start when its last
// window does. Shares hold len(ws)/n windows or one more, the larger first;
// false when share i holds none (more shares than windows). It is what a job
// of n (a Kubernetes Indexed Job's completion index i) would analyze.
func Share(ws []Window, i, n int) (Window, bool, error) {
	if n < 1 || i < 0 || i >= n {
		return Window{}, false, fmt.Errorf("share %d of %d: want 0 <= i < n", i, n)
	}
	q, r := len(ws)/n, len(ws)%n
	lo := i*q + min(i, r)
	hi := lo + q
	if i < r {
		hi++
	}
	if lo == hi {
		return Window{}, false, nil
	}
	last := ws[hi-1]
	return Window{From: ws[lo].From, To: last.To, Unstarted: last.Unstarted}, true, nil
}
