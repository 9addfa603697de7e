package analyze

import (
	"context"
	"fmt"
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
// the whole store gives them (docs/partitions.md): it reads the minutes in
// which some tier logged a start (a set, each day's computable alone and
// merged by union: the first pass), cuts them into the sessions of
// 510_sess.sql, gives each session to the period of length every (from the
// first start's UTC midnight) in which it begins, and returns one window per
// run of sessions of one period, cut at the first minute of each run. Every
// rule computed over a run of requests (a replica's warm-up, a host's usual
// rate, the model's yardsticks) is taken within one session, and no session
// straddles a cut, so each window judges its requests against the same
// requests as the whole pass. A session longer than every (traffic that never
// pauses for 11 minutes) is not cut: its window spans it all.
//
// The first window is open at its start and the last at its end, and keeps
// the requests without a start (Window.Unstarted); a store without a start is
// one window, the zero one. every must be positive.
func Partitions(ctx context.Context, dir string, res duck.Resources, every time.Duration) ([]Window, error) {
	if every <= 0 {
		return nil, fmt.Errorf("partitions: the period must be positive, not %v", every)
	}
	db, closeDB, err := duck.Open(ctx, dir, res)
	if err != nil {
		return nil, err
	}
	defer closeDB()
	if err := registerTiers(ctx, db, dir); err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `SELECT DISTINCT epoch_ns(t::TIMESTAMP_NS) // 60000000000 AS m
FROM (SELECT start_time AS t FROM client UNION ALL SELECT start_time FROM gateway
      UNION ALL SELECT arrival_time FROM server_logged)
WHERE t IS NOT NULL ORDER BY m`)
	if err != nil {
		return nil, fmt.Errorf("partitions: the minutes of the store: %w", err)
	}
	defer rows.Close()
	var minutes []int64
	for rows.Next() {
		var m int64
		if err := rows.Scan(&m); err != nil {
			return nil, fmt.Errorf("partitions: %w", err)
		}
		minutes = append(minutes, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("partitions: %w", err)
	}
	return cutSessions(minutes, every), nil
}

// cutSessions is Partitions' plan from the sorted minutes (Unix minutes) that
// hold a start.
func cutSessions(minutes []int64, every time.Duration) []Window {
	if len(minutes) == 0 {
		return []Window{{}}
	}
	at := func(m int64) time.Time { return time.Unix(m*60, 0).UTC() }
	origin := at(minutes[0]).Truncate(24 * time.Hour)
	period := func(m int64) int64 { return int64(at(m).Sub(origin) / every) }
	var cuts []time.Time
	last := period(minutes[0])
	for i := 1; i < len(minutes); i++ {
		if minutes[i]-minutes[i-1] <= SessionGapMinutes {
			continue // the same session
		}
		if p := period(minutes[i]); p != last {
			cuts = append(cuts, at(minutes[i]))
			last = p
		}
	}
	ws := make([]Window, 0, len(cuts)+1)
	var from time.Time
	for _, c := range cuts {
		ws = append(ws, Window{From: from, To: c})
		from = c
	}
	return append(ws, Window{From: from, Unstarted: len(ws) > 0})
}
