package analyze

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/analyze/analyzetest"
	"github.com/infertrace/infertrace/internal/duck"
)

// Concurrency counts the requests of the same replica with
// arrival <= this arrival < end, this one included.
func TestConcurrency(t *testing.T) {
	t.Parallel()
	srv := func(id string, arrival, end int64, replica string) analyzetest.Server {
		return analyzetest.Server{ID: id, Arrival: analyzetest.At(arrival), Scheduled: analyzetest.At(arrival),
			FirstToken: analyzetest.At(arrival + 10), End: analyzetest.At(end), Model: "m", Replica: replica,
			Output: analyzetest.Int(5), Status: analyzetest.Int(200)}
	}
	f := analyzetest.Fixture{Servers: []analyzetest.Server{
		srv("a", 0, 1000, "z-0"),
		srv("b", 100, 300, "z-0"),
		srv("c", 200, 1200, "z-0"),
		srv("d", 300, 400, "z-0"),   // b ended at 300: not in flight
		srv("e", 1000, 1100, "z-0"), // a ended at 1000: not in flight
		srv("x", 150, 2000, "z-1"),  // another replica: never counted on z-0
	}}
	_, _, rows := runFixture(t, f, analyzetest.DefaultOffsets)
	for id, want := range map[string]int64{"a": 1, "b": 2, "c": 3, "d": 3, "e": 2, "x": 1} {
		if got := duck.Int(rows[id]["concurrency"]); got != want {
			t.Errorf("%s: concurrency %d, want %d", id, got, want)
		}
	}
	for id, want := range map[string]string{"a": "1", "b": "2-4", "d": "2-4"} {
		if got := duck.String(rows[id]["concurrency_bucket"]); got != want {
			t.Errorf("%s: concurrency_bucket %q, want %q", id, got, want)
		}
	}
}

// phaseFixture: one gateway host sees 60 arrivals 1 s apart, a burst of 40
// arrivals 50 ms apart, then 60 more 1 s apart. Two replicas serve model m
// in turn at 10 ms per output token; a third joins at 30 s and decodes its
// first 4 requests at 40 ms per token (cold), then at 10 ms.
func phaseFixture() (f analyzetest.Fixture, burst, cold map[string]bool) {
	burst, cold = map[string]bool{}, map[string]bool{}
	var at int64
	late := 0
	for i := 0; i < 160; i++ {
		switch {
		case i == 0:
		case i > 60 && i <= 100:
			at += 50
		default:
			at += 1000
		}
		id := fmt.Sprintf("q%03d", i)
		if i > 60 && i <= 100 {
			burst[id] = true
		}
		replica, tpot := fmt.Sprintf("m-%d", i%2), int64(10)
		if at >= 30000 && i%3 == 0 {
			replica = "m-late"
			if late < 4 {
				tpot = 40
				cold[id] = true
			}
			late++
		}
		f.Gateways = append(f.Gateways, analyzetest.Gateway{ID: id, Start: analyzetest.At(at), End: analyzetest.At(at + 500),
			UpstreamStart: analyzetest.At(at + 1), UpstreamEnd: analyzetest.At(at + 499), Status: analyzetest.Int(200), Gateway: "gw"})
		f.Servers = append(f.Servers, analyzetest.Server{ID: id, Arrival: analyzetest.At(at + 2), Scheduled: analyzetest.At(at + 2),
			FirstToken: analyzetest.At(at + 20), End: analyzetest.At(at + 20 + 10*tpot), Model: "m", Replica: replica,
			Output: analyzetest.Int(11), Status: analyzetest.Int(200)})
	}
	return f, burst, cold
}

func TestPhaseDetection(t *testing.T) {
	t.Parallel()
	f, burst, cold := phaseFixture()
	dir, _, rows := runFixture(t, f, analyzetest.DefaultOffsets)
	got := map[string]int{}
	for id, r := range rows {
		p := duck.String(r["phase"])
		got[p]++
		want := "steady"
		switch {
		case cold[id]:
			want = "cold"
		case burst[id]:
			want = "burst"
		}
		// The K-nearest rate blurs the burst's first and last few arrivals.
		var i int
		fmt.Sscanf(id, "q%d", &i)
		edge := (i >= 56 && i <= 66) || (i >= 95 && i <= 105)
		if p != want && !edge {
			t.Errorf("%s: phase %s, want %s", id, p, want)
		}
	}
	t.Logf("phases: %v", got)
	if got["cold"] != len(cold) {
		t.Errorf("%d cold requests, want %d", got["cold"], len(cold))
	}

	res, err := summarize1(context.Background(), dir, SummaryOptions{By: []string{"phase"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Phases) != 3 || res.Phases[0].Name != "cold" || res.Phases[1].Name != "burst" || res.Phases[2].Name != "steady" {
		t.Fatalf("phases %+v, want cold, burst, steady", res.Phases)
	}
	if res.Phases[0].Requests != 4 || res.Phases[0].ModelPerToken.N != 4 {
		t.Errorf("cold phase: %d requests, model per token n=%d", res.Phases[0].Requests, res.Phases[0].ModelPerToken.N)
	}
	var late *Replica
	for i := range res.Replicas {
		if res.Replicas[i].Replica == "m-late" {
			late = &res.Replicas[i]
		}
	}
	if late == nil || late.Cold != 4 || res.Replicas[len(res.Replicas)-1].Replica != "m-late" {
		t.Fatalf("replicas %+v: want m-late last (it joined last) with 4 cold requests", res.Replicas)
	}
	// Model time per output token is (18 + 10*tpot) / 11 ms: 118/11 warm,
	// 418/11 cold; 4 of the late replica's requests are cold.
	if late.ModelPerToken[1] == nil || *late.ModelPerToken[1] < 30 {
		t.Errorf("m-late P95 model ms per token %s, want the cold requests' 38", fmtp(late.ModelPerToken[1]))
	}
	if !containsText(said(res).Findings, "Replica m-late (m) served its first request at") {
		t.Errorf("no finding on the late, cold replica:\n%s", strings.Join(said(res).Findings, "\n"))
	}
	var slices []string
	for _, s := range res.Slices {
		slices = append(slices, s.Label)
	}
	if !strings.Contains(strings.Join(slices, ";"), "phase=burst") {
		t.Errorf("--by phase slices: %v", slices)
	}

	// The time series: 5 s windows would cut the 158 s span into at most
	// 40, but the burst's 2 s (20 arrivals/s) need 1 s windows to fill one,
	// so the series is the 40 windows of 1 s around the burst.
	var maxRate float64
	if len(res.TimeSeries) != 40 {
		t.Errorf("%d windows, want 40", len(res.TimeSeries))
	}
	for _, w := range res.TimeSeries {
		if w.WidthS != 1 || !w.AroundBurst {
			t.Fatalf("window width %v s around the burst %v, want 1 s around it", w.WidthS, w.AroundBurst)
		}
		maxRate = max(maxRate, w.ArrivalsPerS)
	}
	if maxRate < 15 {
		t.Errorf("max arrivals/s %v: the burst is not visible", maxRate)
	}
}

// backlogFixture: one gateway host sees arrivals 1 s apart, with a chance
// cluster of 20 arrivals 100 ms apart at 60 s (dense enough to double the
// local rate over 31 arrivals, too short to be a burst), and a burst of 60
// arrivals 50 ms apart at 120 s. One replica serves them all in 120 ms;
// each burst request waits 500 ms longer than the one before, and the
// requests after the burst that arrive while the queue still holds some
// wait behind them (its backlog) until one finds the queue empty.
func backlogFixture() (f analyzetest.Fixture, want map[string]string) {
	want = map[string]string{}
	var at, busyUntil int64
	drained := false
	for i := 0; i < 260; i++ {
		switch {
		case i == 0:
		case i > 60 && i <= 80:
			at += 100
		case i > 120 && i <= 180:
			at += 50
		default:
			at += 1000
		}
		id := fmt.Sprintf("q%03d", i)
		arrival, sched := at+2, at+2
		want[id] = "steady"
		switch {
		case i > 120 && i <= 180:
			sched = max(busyUntil, arrival) + 500
			busyUntil = sched
			want[id] = "burst"
		case i > 180 && !drained && arrival < busyUntil:
			sched = busyUntil + 500
			busyUntil = sched
			want[id] = "burst"
		case i > 180:
			drained = true
		}
		f.Gateways = append(f.Gateways, analyzetest.Gateway{ID: id, Start: analyzetest.At(at), End: analyzetest.At(sched + 200),
			UpstreamStart: analyzetest.At(at + 1), UpstreamEnd: analyzetest.At(sched + 199), Status: analyzetest.Int(200), Gateway: "gw"})
		f.Servers = append(f.Servers, analyzetest.Server{ID: id, Arrival: analyzetest.At(arrival), Scheduled: analyzetest.At(sched),
			FirstToken: analyzetest.At(sched + 20), End: analyzetest.At(sched + 120), Model: "m", Replica: "r-0",
			Output: analyzetest.Int(11), Status: analyzetest.Int(200)})
	}
	return f, want
}

// A chance cluster is not a burst, and the requests that wait in the queue
// a burst left behind belong to the burst.
func TestPhaseBacklog(t *testing.T) {
	t.Parallel()
	f, want := backlogFixture()
	_, _, rows := runFixture(t, f, analyzetest.DefaultOffsets)
	backlog := 0
	for id, r := range rows {
		var i int
		fmt.Sscanf(id, "q%d", &i)
		if i > 180 && want[id] == "burst" {
			backlog++
		}
		// The K-nearest rate blurs the burst's first few arrivals.
		if p := duck.String(r["phase"]); p != want[id] && !(i >= 110 && i <= 125) {
			t.Errorf("%s: phase %s, want %s", id, p, want[id])
		}
	}
	if backlog < 10 {
		t.Fatalf("the fixture has %d backlog requests, want a dozen or more", backlog)
	}
	t.Logf("%d requests of the backlog", backlog)
}

// A window's usual rate found from binned time sums (rate_mid, rate_near)
// is the one the full ranking of its rates gives (rate_full, which
// usual_rate uses only for a window where the bins fail): the query with
// every window sent to the full ranking, and the query with none sent
// there, give the same rows, on a fixture with a burst, a cold start and
// steady traffic.
func TestUsualRateBinsMatchFullRanking(t *testing.T) {
	t.Parallel()
	f, burst, _ := phaseFixture()
	db := fixtureDB(t, f)
	q := requestsQuery(t)
	const ok = "arg_min((coalesce(hi_below < lo, true) AND coalesce(lo_above > hi, true)), bin) AS ok"
	if n := strings.Count(q, ok); n != 1 {
		t.Fatalf("the requests steps hold %q %d times, want 1 (rate_mid)", ok, n)
	}
	ranked := strings.Replace(q, ok, "false AS ok", 1)
	binsOnly := strings.Replace(q, ok, "true AS ok", 1)
	for name, q := range map[string]string{"binned": q, "ranked": ranked, "bins_only": binsOnly} {
		if _, err := db.Exec("CREATE TABLE " + name + " AS " + duck.Strip(q)); err != nil {
			t.Fatal(name, err)
		}
	}
	var n, bursts, differ int64
	err := db.QueryRow(`SELECT (SELECT count(*) FROM binned), (SELECT count(*) FROM binned WHERE phase = 'burst'),
	    (SELECT count(*) FROM (SELECT * FROM binned EXCEPT ALL SELECT * FROM ranked))
	  + (SELECT count(*) FROM (SELECT * FROM ranked EXCEPT ALL SELECT * FROM binned))
	  + (SELECT count(*) FROM (SELECT * FROM bins_only EXCEPT ALL SELECT * FROM binned))
	  + (SELECT count(*) FROM (SELECT * FROM binned EXCEPT ALL SELECT * FROM bins_only))`).Scan(&n, &bursts, &differ)
	if err != nil {
		t.Fatal(err)
	}
	if differ != 0 {
		t.Errorf("%d row differences among the binned, fully ranked and bins-only queries (%d rows)", differ, n)
	}
	if bursts < int64(len(burst))/2 {
		t.Errorf("%d burst rows, want about %d: the fixture no longer tests a burst", bursts, len(burst))
	}
}

// TestLocalRateTiesFollowRequestID: the local-rate window orders a host's
// arrivals by (time, rq) and local_tie puts the tied arrivals back in
// request-ID order; the rows are those of the window ordered by (time,
// request ID) itself. The fixture is phaseFixture's traffic with every
// arrival twice at the same instant, the two servers' records
// logged in the reverse of their IDs' order (so rq orders them the other
// way); the same query without local_tie gives other rows, so the fixture
// does test it.
func TestLocalRateTiesFollowRequestID(t *testing.T) {
	t.Parallel()
	base, _, _ := phaseFixture()
	var f analyzetest.Fixture
	for i, g := range base.Gateways {
		for k := 1; k >= 0; k-- {
			g, s := g, base.Servers[i]
			g.ID = fmt.Sprintf("%s-%d", g.ID, k)
			s.ID = g.ID
			f.Gateways = append(f.Gateways, g)
			f.Servers = append(f.Servers, s)
		}
	}
	db := fixtureDB(t, f)
	q := requestsQuery(t)
	for _, s := range []string{"ORDER BY a.t, a.rq)", "coalesce(t.rq, l.rq) AS rq"} {
		if strings.Count(q, s) != 1 {
			t.Fatalf("the requests steps hold %q %d times, want 1", s, strings.Count(q, s))
		}
	}
	byID := strings.Replace(strings.Replace(q, "ORDER BY a.t, a.rq)", "ORDER BY a.t, a.request_id)", 1),
		"coalesce(t.rq, l.rq) AS rq", "l.rq AS rq", 1)
	noTie := strings.Replace(q, "coalesce(t.rq, l.rq) AS rq", "l.rq AS rq", 1)
	for name, q := range map[string]string{"tied": q, "by_id": byID, "no_tie": noTie} {
		if _, err := db.Exec("CREATE TABLE " + name + " AS " + duck.Strip(q)); err != nil {
			t.Fatal(name, err)
		}
	}
	diff := func(a, b string) (n int64) {
		err := db.QueryRow(`SELECT (SELECT count(*) FROM (SELECT * FROM ` + a + ` EXCEPT ALL SELECT * FROM ` + b + `))
		  + (SELECT count(*) FROM (SELECT * FROM ` + b + ` EXCEPT ALL SELECT * FROM ` + a + `))`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	var n, bursts int64
	if err := db.QueryRow("SELECT count(*), count(*) FILTER (WHERE phase = 'burst') FROM tied").Scan(&n, &bursts); err != nil {
		t.Fatal(err)
	}
	if n != 2*int64(len(base.Gateways)) || bursts < 40 {
		t.Fatalf("%d rows, %d of them burst: the fixture no longer tests a burst", n, bursts)
	}
	if d := diff("tied", "by_id"); d != 0 {
		t.Errorf("%d row differences between the window by (t, rq) with local_tie and the window by (t, request_id)", d)
	}
	if d := diff("no_tie", "by_id"); d == 0 {
		t.Error("without local_tie the rows are the same: the fixture's ties decide no burst flag")
	}
}

// TestServerUsualMatchesQuantileCont: the replicas' and models' quantiles
// of srv_usual (the warm-up's yardsticks), computed from bucket counts so
// that no sample set is held in memory, are bit for bit quantile_cont's:
// on a synthetic req of three replicas and two models, with samples that
// share buckets (sorted within them), buckets of one value, negative
// values, NULLs and a replica too small to judge, srv_usual as its step
// (queries/requests/) computes it equals the same rule written with quantile_cont.
func TestServerUsualMatchesQuantileCont(t *testing.T) {
	t.Parallel()
	db := fixtureDB(t, analyzetest.Fixture{})
	// server_h: the kept server records (none dropped, no key held twice),
	// with the columns srv_p reads. Times in ns; pseudo-random durations
	// from hash(i), some of them equal or within one bucket.
	_, err := db.Exec(`CREATE OR REPLACE TEMP TABLE server_h AS
	    SELECT i AS rid, 0::UBIGINT AS h, i % 5 AS fid, i AS line, 'q' || i AS request_id, NULL::VARCHAR AS trace_id,
	           make_timestamp_ns(a) AS arrival_time,
	           CASE WHEN i % 13 <> 0 THEN make_timestamp_ns(a + q) END AS scheduled_time,
	           make_timestamp_ns(a + q + pf) AS first_token_time,
	           make_timestamp_ns(a + q + pf + dec) AS end_time,
	           CASE WHEN i % 97 = 0 THEN NULL WHEN i % 3 = 0 THEN 'r0' WHEN i % 3 = 1 THEN 'r1' ELSE 'r2' END AS replica,
	           CASE WHEN i % 11 = 0 THEN NULL WHEN i % 3 = 2 AND i % 97 <> 0 THEN 'b' ELSE 'a' END AS model,
	           CASE WHEN i % 17 = 0 THEN 1 ELSE 2 + (h % 40)::BIGINT END AS output_tokens,
	           CASE WHEN i % 13 = 0 THEN q END AS queue_ns,
	           CASE WHEN i % 7 = 0 THEN pf - 3000000 END AS prefill_ns,
	           NULL::BIGINT AS decode_ns, NULL::BIGINT AS inference_ns,
	           CASE WHEN i % 4 = 0 THEN (h % 3)::BIGINT * 250000000 WHEN i % 4 = 1 THEN NULL ELSE 1000000 + (h % 5000)::BIGINT END AS load_ns
	    FROM (SELECT i, h,
	                 1796083200000000000 + i * 1000000000 AS a,
	                 (h % 20000000)::BIGINT AS q,
	                 10000000 + ((h >> 20) % 1000)::BIGINT * 1000 AS pf,
	                 50000000 + ((h >> 40) % 400000000)::BIGINT AS dec
	          FROM (SELECT i, hash(i) AS h FROM range(6000) AS t(i))
	          UNION ALL
	          SELECT 100000 + i, hash(i), 1796083200000000000 + i, 5, 7, 100 FROM range(10) AS t(i))`)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"CREATE OR REPLACE TEMP TABLE server_drop AS SELECT rid FROM server_h LIMIT 0",
		"CREATE OR REPLACE TEMP TABLE server_multi AS SELECT request_id FROM server_h LIMIT 0",
		"CREATE OR REPLACE TEMP TABLE server_win AS SELECT * EXCLUDE (h), 1::BIGINT AS n_records FROM server_h LIMIT 0",
		// The five files the rows' fid names, one path each.
		"CREATE OR REPLACE TEMP TABLE server_files AS SELECT 'f' || i AS file, 'f' || i AS path, 1 AS b, i AS fid FROM range(5) AS t(i)",
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	// The ten rows 100000.. arrive 1 ns apart: a replica of their own, too
	// small to judge. (Each replica serves one model: the rule takes the
	// model's quantile of any model the replica served.)
	if _, err := db.Exec(`UPDATE server_h SET replica = 'tiny', model = 'b' WHERE rid >= 100000`); err != nil {
		t.Fatal(err)
	}
	steps, err := requestSteps()
	if err != nil {
		t.Fatal(err)
	}
	// Every step up to srv_usual, in order, but those of the server
	// records made above.
	ran := 0
	for _, st := range steps {
		switch st.Writes {
		case "server_files", "server_h", "server_drop", "server_multi", "server_win":
			continue
		}
		if _, err := db.Exec(st.SQL); err != nil {
			t.Fatal(st.File, err)
		}
		if strings.HasPrefix(st.Writes, "srv_q") || st.Writes == "srv_rep" || st.Writes == "srv_usual" {
			ran++
		}
		if st.Writes == "srv_usual" {
			break
		}
	}
	if ran < 4 {
		t.Fatalf("%d srv_q* steps in queries/requests", ran)
	}
	got := "SELECT rl, n, tpot_p25, pf_p90, work_p50, ld_p50 FROM srv_usual"
	// The fixture's replicas have one lifetime each and the store one
	// session: the yardsticks per lifetime (rl) and per model and session
	// (ms) are those per replica and per model.
	want := `SELECT rl, count(*) AS n,
	       nullif(least(quantile_cont(tpot_ns, 0.25), any_value(m.tpot_p25)), 0) AS tpot_p25,
	       nullif(least(quantile_cont(pf_ns, 0.9), any_value(m.pf_p90)), 0) AS pf_p90,
	       CASE WHEN count(q_ns) > 0
	            THEN nullif(least(quantile_cont(work_ns, 0.5), any_value(m.work_p50)), 0) END AS work_p50,
	       nullif(least(quantile_cont(ld_ns, 0.5), any_value(m.ld_p50)), 0) AS ld_p50
	FROM srv_p
	LEFT JOIN (SELECT ms,
	                  quantile_cont(tpot_ns, 0.25) AS tpot_p25,
	                  quantile_cont(pf_ns, 0.9) AS pf_p90,
	                  quantile_cont(work_ns, 0.5) AS work_p50,
	                  quantile_cont(ld_ns, 0.5) AS ld_p50
	           FROM srv_p WHERE ms IS NOT NULL GROUP BY ms) AS m USING (ms)
	GROUP BY rl`
	var n, differ, sorted, oneValue int64
	var lives, sessions int64
	if err := db.QueryRow(`SELECT (SELECT count(DISTINCT rl) FROM srv_p), (SELECT count(DISTINCT sid) FROM srv_a)`).Scan(&lives, &sessions); err != nil {
		t.Fatal(err)
	}
	// r0, r1, r2, tiny and the five files of the rows without a replica
	if lives != 9 || sessions != 1 {
		t.Fatalf("%d replica lifetimes in %d sessions, want 9 in 1", lives, sessions)
	}
	err = db.QueryRow(`WITH got AS (`+got+`), want AS (`+want+`)
	    SELECT (SELECT count(*) FROM want),
	           (SELECT count(*) FROM (SELECT * FROM got EXCEPT ALL SELECT * FROM want))
	         + (SELECT count(*) FROM (SELECT * FROM want EXCEPT ALL SELECT * FROM got)),
	           (SELECT count(*) FROM srv_qs), (SELECT count(*) FROM srv_qn WHERE lo = hi)`).Scan(&n, &differ, &sorted, &oneValue)
	if err != nil {
		t.Fatal(err)
	}
	if differ != 0 || n < 5 {
		rows, _ := db.Query(`WITH got AS (` + got + `), want AS (` + want + `)
		    SELECT 'got', * FROM got UNION ALL SELECT 'want', * FROM want ORDER BY 2, 1`)
		defer rows.Close()
		for rows.Next() {
			var k, r, a, b, c, d any
			var nn any
			rows.Scan(&k, &r, &nn, &a, &b, &c, &d)
			t.Log(k, r, nn, a, b, c, d)
		}
		t.Errorf("%d differences in %d replicas between srv_usual and quantile_cont", differ, n)
	}
	if sorted == 0 || oneValue == 0 {
		t.Errorf("the fixture sorts %d samples and has %d ranks in buckets of one value: both paths must be tested", sorted, oneValue)
	}
}
