package analyze

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/infertrace/infertrace/analyze/analyzetest"
	"github.com/infertrace/infertrace/ingest"
	"github.com/infertrace/infertrace/internal/duck"
	"github.com/infertrace/infertrace/simulate"
)

// TestCutSessions: sessions are runs of minutes at most 11 apart; a session
// goes to the day it begins in, and a day's sessions form one window.
func TestCutSessions(t *testing.T) {
	t.Parallel()
	day := int64(24 * 60)
	base := int64(20_000) * day // 2024-10-04 00:00 UTC in Unix minutes
	at := func(m int64) time.Time { return time.Unix(m*60, 0).UTC() }
	var steady []int64 // a minute every 11 over three days
	for m := base; m <= base+2*day; m += 11 {
		steady = append(steady, m)
	}
	for _, c := range []struct {
		name    string
		minutes []int64
		want    []Window
		// inside: the windows when sessions are cut at a day's start
		// too (the first minute tried)
		inside []Window
	}{
		{"empty", nil, []Window{{}}, nil},
		{"one minute", []int64{base + 5}, []Window{{}}, nil},
		// 23:55 to 00:05 the next day, gaps of 11 minutes: one session
		// across midnight, then one at 10:00 of the second day (the same
		// day as the first's end, another than its start), then one on
		// the fourth day.
		{"across midnight",
			[]int64{base + day - 5, base + day + 6, base + day + 17, base + day + 600, base + day + 601, base + 3*day + 600},
			[]Window{{To: at(base + day + 600)}, {From: at(base + day + 600), To: at(base + 3*day + 600)},
				{From: at(base + 3*day + 600), Unstarted: true}},
			// cut at midnight inside the first session; the second
			// session begins on the day of that cut
			[]Window{{To: at(base + day)}, {From: at(base + day), To: at(base + 3*day + 600)},
				{From: at(base + 3*day + 600), Unstarted: true}}},
		// A gap of 12 minutes cuts the session, but the new one begins the
		// same day: no window of its own.
		{"same day", []int64{base + 60, base + 72, base + 85}, []Window{{}}, []Window{{}}},
		// Traffic that never pauses for 11 minutes over three days: one
		// window.
		{"never pauses", steady, []Window{{}},
			// cut at the second day's midnight; its last minute is
			// before the third's
			[]Window{{To: at(base + day)}, {From: at(base + day), Unstarted: true}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := windows(firstTries(sessionCuts(c.minutes, 24*time.Hour, false))); !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %v\nwant %v", got, c.want)
			}
			inside := c.inside
			if inside == nil {
				inside = c.want
			}
			if got := windows(firstTries(sessionCuts(c.minutes, 24*time.Hour, true))); !reflect.DeepEqual(got, inside) {
				t.Errorf("inside: got %v\nwant %v", got, inside)
			}
		})
	}
	// The minutes tried inside a session: the day's start, then every
	// InsideCutStep within InsideCutSearch, none beyond the last minute.
	cuts := sessionCuts(steady, 24*time.Hour, true)
	if len(cuts) != 1 || !cuts[0].inside || len(cuts[0].try) != 13 || cuts[0].try[0] != base+day || cuts[0].try[12] != base+day+60 {
		t.Errorf("never pauses, inside: %+v", cuts)
	}
	if cuts := sessionCuts([]int64{base + day - 5, base + day + 2}, 24*time.Hour, true); len(cuts) != 1 || !reflect.DeepEqual(cuts[0].try, []int64{base + day}) {
		t.Errorf("a session ending 2 minutes into the day: %+v", cuts)
	}
}

// firstTries are the first minute tried of each cut.
func firstTries(cuts []cut) []int64 {
	var ms []int64
	for _, c := range cuts {
		ms = append(ms, c.try[0])
	}
	return ms
}

// TestPartitionsEqualWholePass: a store of three simulated batches (one
// across midnight of 30 November, one at 10:00 on 1 December, one two days
// later) analyzed window by window as Partitions plans them gives, together,
// every row of requests.parquet exactly as the analysis of the whole store
// does, cold and burst phases included, and the requests without a start
// (in the last window): the cut of 1 December lies at the
// second batch's start, not at midnight, through the first. Cut at
// midnight instead, through the first batch's session, the windows
// analyzed with each other's facts (WriteFacts, RunWindowFacts) give those
// rows too.
func TestPartitionsEqualWholePass(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	starts := []time.Time{
		time.Date(2026, 11, 30, 23, 40, 0, 0, time.UTC),
		time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC),
		time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC),
	}
	var inputs []ingest.Input
	for i, s := range starts {
		cfg := simulate.DefaultConfig()
		cfg.Out, cfg.Requests, cfg.Seed, cfg.Epoch = filepath.Join(root, "sim", string(rune('a'+i))), 1500, int64(31+i), s
		if i == 0 {
			// 45 minutes across midnight, beyond WindowMargin on either
			// side, its burst and a replica's warm-up after midnight.
			cfg.Requests, cfg.RatePerSecond = 4000, 1.5
			cfg.BurstStart, cfg.ColdJoinAt = 25*time.Minute, 22*time.Minute
		}
		inputs = append(inputs, simulated(t, ctx, cfg)...)
	}
	// 50 Triton traces: server records without a start (their times are
	// the server's monotonic clock), requests of no window's start.
	triton := filepath.Join(root, "triton.json")
	var tj strings.Builder
	tj.WriteString("[")
	for i := range 50 {
		if i > 0 {
			tj.WriteString(",\n")
		}
		fmt.Fprintf(&tj, `{"id":%d,"model_name":"m","model_version":1,"request_id":"t%d"},`, i+1, i)
		fmt.Fprintf(&tj, `{"id":%d,"timestamps":[{"name":"REQUEST_START","ns":%d},{"name":"REQUEST_END","ns":%d}]}`, i+1, 1e9*i, 1e9*i+5e8)
	}
	tj.WriteString("]\n")
	if err := os.WriteFile(triton, []byte(tj.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	inputs = append(inputs, ingest.Input{Tier: ingest.Server, Format: "triton", Pattern: triton})
	dir := filepath.Join(root, "store")
	ingestStore(t, ctx, dir, inputs)
	res := duck.Resources{MemoryLimit: 512 << 20, Threads: 1}

	ws, err := Partitions(ctx, dir, res, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 3 || !ws[0].From.IsZero() || !ws[2].To.IsZero() {
		t.Fatalf("windows %v: want three, open at both ends", ws)
	}
	// The cuts lie at the later batches' first minute (hosts' clocks are
	// up to 3 s apart: 09:59 or 10:00).
	for i, w := range ws[1:] {
		s := starts[i+1]
		if w.From.Before(s.Add(-time.Minute)) || w.From.After(s) || !ws[i].To.Equal(w.From) {
			t.Errorf("window %d is %v: want it to start at %s's minute", i+1, w, s)
		}
	}

	// parts analyzes each window of ws with run and returns the
	// read_parquet of their rows together.
	parts := func(name string, ws []Window, run func(i int) error) string {
		var ps []string
		for i, w := range ws {
			if err := run(i); err != nil {
				t.Fatalf("window %v: %v", w, err)
			}
			p := filepath.Join(root, fmt.Sprintf("%s-%d.parquet", name, i))
			if err := os.Rename(filepath.Join(dir, RequestsFile), p); err != nil {
				t.Fatal(err)
			}
			ps = append(ps, duck.Quote(p))
		}
		return "read_parquet([" + strings.Join(ps, ", ") + "])"
	}
	split := parts("part", ws, func(i int) error { _, err := RunWindow(ctx, dir, res, ws[i]); return err })
	if _, err := RunWith(ctx, dir, res); err != nil {
		t.Fatal(err)
	}
	wholePath := filepath.Join(root, "whole.parquet")
	if err := os.Rename(filepath.Join(dir, RequestsFile), wholePath); err != nil {
		t.Fatal(err)
	}
	// The cuts at midnight, the first inside the first batch's session:
	// each window's bursts judged with the other windows' facts.
	day := func(d int) time.Time { return time.Date(2026, 12, d, 0, 0, 0, 0, time.UTC) }
	midnight := []Window{{To: day(1)}, {From: day(1), To: day(2)}, {From: day(2), Unstarted: true}}
	for i := range midnight {
		if err := WriteFacts(ctx, dir, res, midnight, i); err != nil {
			t.Fatal(err)
		}
	}
	cut := parts("midnight", midnight, func(i int) error { _, err := RunWindowFacts(ctx, dir, res, midnight, i); return err })
	db, done, err := duck.Open(ctx, root, res)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	whole := "read_parquet(" + duck.Quote(wholePath) + ")"
	var n, cold, burst, unstarted, extra, missing int64
	if err := db.QueryRowContext(ctx, "SELECT count(*), count(*) FILTER (phase = 'cold'), count(*) FILTER (phase = 'burst'), count(*) FILTER (start IS NULL) FROM "+whole).
		Scan(&n, &cold, &burst, &unstarted); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM (SELECT * FROM "+split+" EXCEPT ALL SELECT * FROM "+whole+
		")), (SELECT count(*) FROM (SELECT * FROM "+whole+" EXCEPT ALL SELECT * FROM "+split+"))").Scan(&extra, &missing); err != nil {
		t.Fatal(err)
	}
	if n < 6500 || cold == 0 || burst == 0 || unstarted != 50 {
		t.Errorf("the whole pass has %d requests, %d cold, %d burst and %d without a start: want > 6500, both phases and the 50 Triton traces",
			n, cold, burst, unstarted)
	}
	if extra != 0 || missing != 0 {
		t.Errorf("the windows give %d rows the whole pass does not, and miss %d of its %d", extra, missing, n)
	}
	if err := db.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM (SELECT * FROM "+cut+" EXCEPT ALL SELECT * FROM "+whole+
		")), (SELECT count(*) FROM (SELECT * FROM "+whole+" EXCEPT ALL SELECT * FROM "+cut+"))").Scan(&extra, &missing); err != nil {
		t.Fatal(err)
	}
	if extra != 0 || missing != 0 {
		t.Errorf("the windows cut at midnight give %d rows the whole pass does not, and miss %d of its %d", extra, missing, n)
	}
}

// TestPartitionsLeaveOutCuts: two sessions on two days are two windows,
// unless a server record spans the cut (it arrived on the first day and
// ended, or left its queue, on the second), records of both days share a
// request ID (or a client's response ID maps to one), a trace ID, or a
// source line where one has no request ID, a record without a start shares
// a request ID with one that has a start, or a gateway record without a
// request ID is matched by time (its host's offset is estimated from all its
// rows): then one.
func TestPartitionsLeaveOutCuts(t *testing.T) {
	t.Parallel()
	const day = 24 * 3600 * 1000 // ms
	at := analyzetest.At
	for _, c := range []struct {
		name  string
		end   int64 // the first request's server end, ms after its arrival
		queue int64 // and its queue, ms
		noID  bool  // a gateway record without a request ID
		// a client record on the second day with the first request's
		// request ID, trace ID, source line or response ID (chatcmpl-…)
		id, trace string
		line      int
		// a server record without a start, with this request ID
		unstarted string
		windows   int
	}{
		{"two days", 1000, 0, false, "", "", 0, "", 2},
		{"a record across the cut", day + 5*60_000, 0, false, "", "", 0, "", 1},
		{"a record up to the cut", day, 0, false, "", "", 0, "", 1},
		{"a record before the cut", day - 2*60_000, 0, false, "", "", 0, "", 2},
		{"a queue up to the cut", 1000, day, false, "", "", 0, "", 1},
		{"matched by time", 1000, 0, true, "", "", 0, "", 1},
		{"a retry on the next day", 1000, 0, false, "r0", "", 0, "", 1},
		{"another request ID", 1000, 0, false, "r99", "", 0, "", 2},
		{"a trace on both days", 1000, 0, false, "r99", "tr0", 0, "", 1},
		{"a line logged again without an ID", 1000, 0, false, "", "", 1, "", 1},
		{"a line logged again with an ID", 1000, 0, false, "r99", "", 1, "", 2},
		{"a response ID of the first day's request", 1000, 0, false, "chatcmpl-r0", "", 0, "", 1},
		{"a record without a start of the first day's request", 1000, 0, false, "", "", 0, "r0", 1},
		{"a record without a start of its own", 1000, 0, false, "", "", 0, "z1", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var f analyzetest.Fixture
			for i := range int64(20) {
				a := i * 1000
				if i >= 10 {
					a += day
				}
				end, queue := a+1000, int64(0)
				if i == 0 {
					end, queue = a+c.end, c.queue
				}
				id := fmt.Sprintf("r%d", i)
				trace := ""
				if i == 0 {
					trace = "tr0"
				}
				f.Clients = append(f.Clients, analyzetest.Client{ID: id, TraceID: trace, Start: at(a), End: at(end + 20), Line: int(i) + 1})
				f.Gateways = append(f.Gateways, analyzetest.Gateway{ID: id, Start: at(a + 5), End: at(end + 10), Line: int(i) + 1})
				s := analyzetest.Server{ID: id, Arrival: at(a + 8), End: at(end), Model: "m", Replica: "r1", Line: int(i) + 1}
				if queue > 0 {
					s.Queue = at(queue)
				}
				f.Servers = append(f.Servers, s)
			}
			if c.id != "" || c.line != 0 {
				line := c.line
				if line == 0 {
					line = 100
				}
				cl := analyzetest.Client{ID: c.id, TraceID: c.trace, Start: at(day + 30_000), End: at(day + 31_000), Line: line}
				if strings.HasPrefix(c.id, "chatcmpl-") {
					// a request ID no other record has, and a response ID
					cl.ID, cl.ResponseID = "x1", c.id
				}
				f.Clients = append(f.Clients, cl)
			}
			if c.unstarted != "" {
				f.Servers = append(f.Servers, analyzetest.Server{ID: c.unstarted, E2E: at(500), Model: "m", File: "logs/durations.jsonl", Line: 1})
			}
			if c.noID {
				f.Gateways = append(f.Gateways, analyzetest.Gateway{Start: at(day + 60_000), End: at(day + 61_000), Line: 21})
			}
			dir := t.TempDir()
			if err := analyzetest.Write(context.Background(), dir, f, analyzetest.Offsets{}); err != nil {
				t.Fatal(err)
			}
			ws, err := Partitions(context.Background(), dir, duck.Resources{MemoryLimit: 256 << 20, Threads: 1}, 24*time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			if len(ws) != c.windows {
				t.Fatalf("windows %v: want %d", ws, c.windows)
			}
			if cut := analyzetest.Base.Add(24 * time.Hour); c.windows == 2 && !ws[0].To.Equal(cut) {
				t.Errorf("windows %v: want the cut at %s", ws, cut)
			}
		})
	}
}

// TestShare: seven windows in three shares are 3, 2 and 2 of them; in nine
// shares, the last two are empty; one share is the whole store.
func TestShare(t *testing.T) {
	t.Parallel()
	var cuts []int64
	for k := range int64(6) {
		cuts = append(cuts, 29_000_000+k*1440)
	}
	ws := windows(cuts) // 7 windows
	m := func(k int) time.Time { return minuteTime(cuts[k]) }
	for _, c := range []struct {
		i, n int
		want Window
		ok   bool
	}{
		{0, 3, Window{To: m(2)}, true},
		{1, 3, Window{From: m(2), To: m(4)}, true},
		{2, 3, Window{From: m(4), Unstarted: true}, true},
		{6, 9, Window{From: m(5), Unstarted: true}, true},
		{7, 9, Window{}, false},
		{0, 1, Window{Unstarted: true}, true},
	} {
		got, ok, err := Share(ws, c.i, c.n)
		if err != nil || ok != c.ok || got != c.want {
			t.Errorf("Share(%d, %d) = %v, %v, %v; want %v, %v", c.i, c.n, got, ok, err, c.want, c.ok)
		}
	}
	for _, c := range [][2]int{{3, 3}, {-1, 3}, {0, 0}} {
		if _, _, err := Share(ws, c[0], c[1]); err == nil {
			t.Errorf("Share(%d, %d): no error", c[0], c[1])
		}
	}
	// The zero plan of a store that is not cut: share 0 of 2 is all of it.
	if got, ok, _ := Share([]Window{{}}, 0, 2); !ok || !got.IsZero() || got.Unstarted {
		t.Errorf("share 0 of 2 of one window: %v, %v", got, ok)
	}
}

// TestPlanInsideLeavesOutCuts: a request a minute from 23:00 to 01:30 is
// one session, which PlanInside cuts at midnight, unless a record reaches
// across the cut beyond WindowMargin (it arrived more than the margin before
// and ended after; a replica's queue is never empty over the margin before
// it; a key's records lie before the margin and after the cut): then at the
// first minute InsideCutStep apart after midnight where none does, or not
// at all. Partitions does not cut inside a session.
func TestPlanInsideLeavesOutCuts(t *testing.T) {
	t.Parallel()
	const minute = 60_000 // ms
	midnight := int64(12 * 60 * minute)
	at := analyzetest.At
	type extra struct {
		arrive, end, queue int64 // ms from midnight; queue: a duration
		id                 string
	}
	for _, c := range []struct {
		name   string
		extra  []extra
		client *extra // a client record of a request ID at arrive
		cut    int64  // minutes after midnight; -1: no cut
	}{
		{"steady", nil, nil, 0},
		{"a record across the cut", []extra{{arrive: -15 * minute, end: 2 * minute}}, nil, 5},
		{"a record across the cut within the margin", []extra{{arrive: -8 * minute, end: 3 * minute}}, nil, 0},
		{"a queue through the margin", []extra{
			{arrive: -10*minute - 1000, end: -5 * minute, queue: 4 * minute},
			{arrive: -7 * minute, end: -2 * minute, queue: 4 * minute},
			{arrive: -4 * minute, end: 2 * minute, queue: 4*minute + 30_000},
		}, nil, 5},
		{"a queue with a gap", []extra{
			{arrive: -10*minute - 1000, end: -5 * minute, queue: 2 * minute},
			{arrive: -7 * minute, end: -2 * minute, queue: 4 * minute},
			{arrive: -4 * minute, end: 2 * minute, queue: 4*minute + 30_000},
		}, nil, 0},
		{"a retry after the margin", []extra{{arrive: -15 * minute, end: -15*minute + 1000, id: "retried"}},
			&extra{arrive: 10 * minute, id: "retried"}, 15},
		{"a retry within the margin", []extra{{arrive: -5 * minute, end: -5*minute + 1000, id: "retried"}},
			&extra{arrive: 4 * minute, id: "retried"}, 0},
		{"busy beyond the search", []extra{{arrive: -15 * minute, end: 70 * minute}}, nil, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var f analyzetest.Fixture
			line := 0
			add := func(id string, a, end, queue int64, replica string) {
				line++
				f.Clients = append(f.Clients, analyzetest.Client{ID: id, Start: at(a), End: at(end + 20), Line: line})
				f.Gateways = append(f.Gateways, analyzetest.Gateway{ID: id, Start: at(a + 5), End: at(end + 10), Line: line})
				s := analyzetest.Server{ID: id, Arrival: at(a + 8), End: at(end), Model: "m", Replica: replica, Line: line}
				if queue > 0 {
					s.Queue = at(queue)
				}
				f.Servers = append(f.Servers, s)
			}
			for m := int64(-60); m <= 90; m++ {
				a := midnight + m*minute
				add(fmt.Sprintf("r%d", m), a, a+1000, 0, "r1")
			}
			for k, x := range c.extra {
				id := x.id
				if id == "" {
					id = fmt.Sprintf("x%d", k)
				}
				add(id, midnight+x.arrive, midnight+x.end, x.queue, "r2")
			}
			if x := c.client; x != nil {
				line++
				a := midnight + x.arrive
				f.Clients = append(f.Clients, analyzetest.Client{ID: x.id, Start: at(a), End: at(a + 1000), Line: line})
			}
			dir := t.TempDir()
			if err := analyzetest.Write(context.Background(), dir, f, analyzetest.Offsets{}); err != nil {
				t.Fatal(err)
			}
			res := duck.Resources{MemoryLimit: 256 << 20, Threads: 1}
			p, err := PlanInside(context.Background(), dir, res, 24*time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			if c.cut < 0 {
				if len(p.Windows) != 1 || p.Facts {
					t.Errorf("plan %+v: want one window", p)
				}
			} else {
				want := analyzetest.Base.Add(12*time.Hour + time.Duration(c.cut)*time.Minute)
				if len(p.Windows) != 2 || !p.Windows[0].To.Equal(want) || !p.Facts {
					t.Errorf("plan %+v: want two windows cut at %s, with facts", p, want)
				}
			}
			ws, err := Partitions(context.Background(), dir, res, 24*time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			if len(ws) != 1 {
				t.Errorf("Partitions %v: want one window", ws)
			}
		})
	}
}
