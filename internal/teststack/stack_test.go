package teststack

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	// The DuckDB driver, registered as "duckdb".
	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/ingest"
	// Every reader, registered with ingest's format registry.
	_ "github.com/infertrace/infertrace/ingest/formats"
	"github.com/infertrace/infertrace/report"
)

// The stack tests run the real serving stack of this package (Debian's
// NGINX in front of a streaming inference server, a load generator) once
// per scenario, each with one fault injected, then the real pipeline on
// the files the parts wrote, as they wrote them (formats sniffed): ingest,
// analyze, summarize. They check that infertrace joins the tiers, names
// the injected cause in its findings and recovers the injected amount in
// each request's attribution, against the truth the parts recorded.
//
// Every part runs on this one host, so the truth is on one clock. The
// tolerances are the formats' units plus the stack's own noise: NGINX logs
// times to the millisecond ($msec, $request_time, upstream times, each a
// truncated reading), so a component that holds a gateway duration is off
// by up to 2 ms from what the client or server measured; the scheduler of
// two shared cores adds a little more. tol is that bound.
const tol = 4.0 // ms

// Stack timing of every scenario: the model's time per request is
// prefill + (tokens − 1) × perToken, a few tens of ms.
const (
	prefill  = 15 * time.Millisecond
	perToken = 4 * time.Millisecond
)

// attempt is one run of a scenario: its hard failures go to T; a median
// beyond its tolerance goes to noisy, as the shared cores' noise (another
// package's tests, a busy machine) can put it there for one run.
type attempt struct {
	*testing.T
	noisy []string
}

func (a *attempt) noise(format string, args ...any) {
	a.noisy = append(a.noisy, fmt.Sprintf(format, args...))
}

// attempts bounds how often a scenario runs when its medians are noisy.
const attempts = 3

// scenario runs body, again (up to attempts runs in all) while only its
// medians miss their tolerance and nothing else failed; they fail the test
// when the last run misses them too. Each run is a new stack and new logs.
func scenario(t *testing.T, body func(a *attempt)) {
	for i := 1; ; i++ {
		a := &attempt{T: t}
		body(a)
		if len(a.noisy) == 0 || t.Failed() {
			for _, m := range a.noisy {
				t.Error(m)
			}
			return
		}
		if i == attempts {
			for _, m := range a.noisy {
				t.Errorf("%s (in each of %d runs)", m, attempts)
			}
			return
		}
		t.Logf("run %d of at most %d: a median missed its tolerance, running the scenario again:\n%s", i, attempts, strings.Join(a.noisy, "\n"))
	}
}

// runStack runs sc, or skips the test when nginx is not installed (failing
// it under CI, INFERTRACE_CI set).
func runStack(t *testing.T, sc Scenario) *Run {
	t.Helper()
	if _, err := NginxBinary(); err != nil && os.Getenv("INFERTRACE_CI") != "" {
		t.Fatalf("nginx not found, and INFERTRACE_CI is set: CI must run the real-NGINX stack: %v", err)
	} else if err != nil {
		t.Skipf("skipping the real-NGINX stack: %v", err)
	}
	if testing.Short() {
		t.Skip("skipping the real-NGINX stack in -short mode")
	}
	if sc.Server.Prefill == 0 {
		sc.Server.Prefill, sc.Server.PerToken = prefill, perToken
	}
	run, err := RunScenario(context.Background(), filepath.Join(t.TempDir(), "stack"), sc)
	if err != nil {
		if run != nil {
			b, _ := os.ReadFile(run.ErrorLog)
			t.Logf("nginx error.log:\n%s", lastLines(b, 20))
		}
		t.Fatal(err)
	}
	return run
}

// row is the part of a requests.parquet row the tests check.
type row struct {
	ID                               string
	HasClient, HasGateway, HasServer bool
	Status                           sql.NullInt64
	ClientE2E, Network, Application  sql.NullFloat64
	Queue, Model                     sql.NullFloat64
	TTFTNetwork, TTFTApplication     sql.NullFloat64
	Aborted                          sql.NullBool
	Wasted                           sql.NullFloat64
	Anomaly                          sql.NullString
}

// pipeline ingests run's files (formats sniffed), analyzes them and
// summarizes all requests as one slice; it returns the summary and the
// rows of requests.parquet by request ID.
func pipeline(t *testing.T, run *Run) (*analyze.Result, map[string]row) {
	t.Helper()
	ctx := context.Background()
	out := filepath.Join(filepath.Dir(run.Client), "..", "out")
	var log strings.Builder
	m, err := ingest.Run(ctx, ingest.Options{Out: out, Workers: 1, Log: &log, Inputs: []ingest.Input{
		{Tier: ingest.Client, Pattern: run.Client},
		{Tier: ingest.Gateway, Pattern: run.Gateway},
		{Tier: ingest.Server, Pattern: run.Spans},
	}})
	if err != nil {
		t.Fatalf("ingest: %v\n%s", err, log.String())
	}
	for _, f := range m.Files {
		if f.Rejected > 0 || f.Error != "" {
			t.Errorf("ingest %s (%s): %d lines rejected, failed %q\n%s", f.Path, f.Format, f.Rejected, f.Error, log.String())
		}
	}
	if _, err := analyze.Run(ctx, out); err != nil {
		t.Fatalf("analyze: %v", err)
	}
	res, err := analyze.Summarize(ctx, out, analyze.SummaryOptions{By: []string{"model"}})
	if err != nil {
		t.Fatalf("summarize: %v", err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rs, err := db.QueryContext(ctx, `SELECT request_id, has_client, has_gateway, has_server, status,
		client_e2e_ms, network_ms, application_ms, queue_ms, model_ms, ttft_network_ms, ttft_application_ms,
		aborted, wasted_ms, anomaly
		FROM read_parquet(?)`, filepath.Join(out, analyze.RequestsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	rows := map[string]row{}
	for rs.Next() {
		var r row
		if err := rs.Scan(&r.ID, &r.HasClient, &r.HasGateway, &r.HasServer, &r.Status,
			&r.ClientE2E, &r.Network, &r.Application, &r.Queue, &r.Model, &r.TTFTNetwork, &r.TTFTApplication,
			&r.Aborted, &r.Wasted, &r.Anomaly); err != nil {
			t.Fatal(err)
		}
		rows[r.ID] = r
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return res, rows
}

// checkJoined requires at least 99% of the requests the server saw to
// have joined all three tiers into one row, and every other request its
// client and gateway records (a client that left before NGINX forwarded
// its request).
func checkJoined(t *testing.T, run *Run, rows map[string]row) {
	t.Helper()
	joined, n := 0, 0
	for _, c := range run.Clients {
		r, ok := rows[c.ID]
		if _, seen := run.Server[c.ID]; !seen {
			if !ok || !r.HasClient || !r.HasGateway {
				t.Errorf("%s: never reached the server; client and gateway records joined: %v", c.ID, ok && r.HasClient && r.HasGateway)
			}
			continue
		}
		n++
		if ok && r.HasClient && r.HasGateway && r.HasServer {
			joined++
		}
	}
	if float64(joined) < 0.99*float64(n) {
		t.Errorf("%d of %d requests joined all three tiers, want at least 99%%", joined, n)
	}
	// The combined server block's requests have server records only (its
	// log is not ingested with the others).
	if n := len(run.Clients) + len(run.CombinedClients); len(rows) != n {
		t.Errorf("requests.parquet has %d rows for %d requests sent", len(rows), n)
	}
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// checkExact holds each request's queue and model time against the
// server's truth: its span gives them as float seconds from one monotonic
// clock, so they agree to the µs.
func checkExact(t *testing.T, run *Run, rows map[string]row) {
	t.Helper()
	for _, c := range run.Clients {
		r, s := rows[c.ID], run.Server[c.ID]
		if s.ID == "" {
			continue // never reached the server (checkJoined)
		}
		for _, x := range []struct {
			what string
			got  sql.NullFloat64
			want float64
		}{{"queue_ms", r.Queue, ms(s.Scheduled.Sub(s.Arrival))}, {"model_ms", r.Model, ms(s.End.Sub(s.Scheduled))}} {
			if !x.got.Valid || math.Abs(x.got.Float64-x.want) > 0.01 {
				t.Errorf("%s: %s = %v, server truth %.3f ms", c.ID, x.what, x.got, x.want)
			}
		}
	}
}

// checkRecovered holds one component against the truth of what was
// injected, over the requests ids: each must have a value, none may fall
// more than tol below its truth (the stack's noise only adds time: a
// descheduled process, a new connection), and the median of value − truth
// must be within tol. It returns that median.
func checkRecovered(t *attempt, what string, rows map[string]row, ids []string, get func(row) sql.NullFloat64, truth func(id string) float64) float64 {
	return checkWithin(t, what, rows, ids, get, truth, tol)
}

// checkWithin is checkRecovered with the median's bound given.
func checkWithin(t *attempt, what string, rows map[string]row, ids []string, get func(row) sql.NullFloat64, truth func(id string) float64, within float64) float64 {
	return checkBounded(t, what, rows, ids, get, truth, within, 1)
}

// checkBounded is checkWithin for a measure that noise moves up (sign 1:
// none may fall more than tol below its truth) or down (sign −1: none may
// rise more than tol above it), or either way (sign 0: the median only).
func checkBounded(t *attempt, what string, rows map[string]row, ids []string, get func(row) sql.NullFloat64, truth func(id string) float64, within, sign float64) float64 {
	t.Helper()
	var diffs []float64
	for _, id := range ids {
		v := get(rows[id])
		if !v.Valid {
			t.Errorf("%s: %s is NULL, truth %.2f ms", id, what, truth(id))
			continue
		}
		d := v.Float64 - truth(id)
		if sign*d < -tol {
			t.Errorf("%s: %s = %.2f ms, truth %.2f ms: more than %.0f ms off, the wrong way for noise", id, what, v.Float64, truth(id), tol)
		}
		diffs = append(diffs, d)
	}
	if len(diffs) == 0 {
		t.Fatalf("%s: no values", what)
	}
	sort.Float64s(diffs)
	med := diffs[len(diffs)/2]
	if math.Abs(med) > within {
		t.noise("%s: median of value − truth is %+.2f ms over %d requests, want within ±%.0f ms", what, med, len(diffs), within)
	}
	t.Logf("%s: value − truth median %+.2f ms, min %+.2f, max %+.2f (n=%d)", what, med, diffs[0], diffs[len(diffs)-1], len(diffs))
	return med
}

// noAnomaly requires no request among ids to be marked anomalous, but
// for a negative ttft_network_ms: the TTFT split counts all of the
// gateway's own time (gateway E2E − server E2E) before the first token,
// so when NGINX is slow after it (a worker descheduled on busy cores
// before its last write) the TTFT's network part goes negative by as
// much. That is a limit of what the logs tell, which docs/real-nginx.md
// names;
// such requests are logged here, not failed.
func noAnomaly(t *testing.T, rows map[string]row, ids []string) {
	t.Helper()
	for _, id := range ids {
		if a := rows[id].Anomaly; a.Valid {
			if a.String == "negative ttft_network_ms" {
				t.Logf("%s: anomaly %q (ttft_network_ms %.2f, application_ms %.2f)", id, a.String, rows[id].TTFTNetwork.Float64, rows[id].Application.Float64)
				continue
			}
			t.Errorf("%s: anomaly %q", id, a.String)
		}
	}
}

// dominantIs requires the findings to say that the slowest 5% spend the
// most time in component.
func dominantIs(a *attempt, res *analyze.Result, component string) {
	a.Helper()
	want := "spend the most time in " + component + ":"
	for _, f := range report.Say(res, nil).Findings {
		if strings.Contains(f, "slowest 5%") && strings.Contains(f, want) {
			a.Logf("finding: %s", f)
			return
		}
	}
	// The slowest 5% of a few dozen requests on a loaded machine (the race
	// detector, other tests) can be a scheduler's stall on the loopback
	// rather than the fault: noise, which the scenario runs again for.
	a.noise("no finding says the slowest 5%% %s; findings:\n%s", want, strings.Join(report.Say(res, nil).Findings, "\n"))
}

func zero(string) float64 { return 0 }

func ids(cs []ClientTruth, keep func(ClientTruth) bool) []string {
	var out []string
	for _, c := range cs {
		if keep == nil || keep(c) {
			out = append(out, c.ID)
		}
	}
	return out
}

func network(r row) sql.NullFloat64     { return r.Network }
func application(r row) sql.NullFloat64 { return r.Application }
func ttftNetwork(r row) sql.NullFloat64 { return r.TTFTNetwork }
func ttftApp(r row) sql.NullFloat64     { return r.TTFTApplication }
func queue(r row) sql.NullFloat64       { return r.Queue }

// steady is n requests, one every gap, alternately streamed and not, of
// 2 to 5 tokens (model time 19 to 31 ms, more when the shared cores are
// busy: each sleep of the server can overshoot).
func steady(prefix string, n int, gap time.Duration) []Request {
	reqs := make([]Request, n)
	for i := range reqs {
		reqs[i] = Request{ID: fmt.Sprintf("%s-%03d", prefix, i), At: time.Duration(i) * gap, Stream: i%2 == 0, Tokens: 2 + i%4}
	}
	return reqs
}

// TestStackHappyPath: no fault. Every request joins; queue and model are
// the server's own; network and application are the loopback's and
// NGINX's fraction of a ms, which NGINX's ms resolution can make slightly
// negative and which is no anomaly; the model is where the time goes.
// The second server block's combined log is read line for line: it has no
// request ID, so its lines are kept as rows that join nothing.
func TestStackHappyPath(t *testing.T) {
	t.Parallel()
	scenario(t, func(a *attempt) {
		t := a.T
		run := runStack(t, Scenario{Server: ServerConfig{Slots: 8}, Requests: steady("ok", 60, 10*time.Millisecond),
			Combined: steady("comb", 5, 10*time.Millisecond)})
		res, rows := pipeline(t, run)
		checkJoined(t, run, rows)
		checkExact(t, run, rows)
		all := ids(run.Clients, nil)
		checkRecovered(a, "network_ms", rows, all, network, zero)
		checkRecovered(a, "application_ms", rows, all, application, zero)
		streamed := ids(run.Clients, func(c ClientTruth) bool { return c.Stream })
		checkBounded(a, "ttft_network_ms", rows, streamed, ttftNetwork, zero, tol, 0)
		checkBounded(a, "ttft_application_ms", rows, streamed, ttftApp, zero, tol, 0)
		noAnomaly(t, rows, all)
		dominantIs(a, res, "model")

		out := filepath.Join(t.TempDir(), "combined")
		var log strings.Builder
		m, err := ingest.Run(context.Background(), ingest.Options{Out: out, Workers: 1, Log: &log, Inputs: []ingest.Input{{Tier: ingest.Gateway, Pattern: run.Combined}}})
		if err != nil {
			t.Fatal(err)
		}
		// Two requests in one second with the same status and size give the
		// same combined line, which ingest takes for a log shipper's duplicate.
		// The others are kept as rows with no request ID, which join nothing.
		if f := m.Files[0]; f.Format != "nginx" || f.Lines != 5 || f.Rows == 0 || f.Rows+f.Duplicates != 5 || f.Rejected != 0 {
			t.Errorf("combined log: format %s, %d lines, %d rows, %d rejected, %d duplicates; want nginx, 5 lines kept as rows or duplicates, none rejected:\n%s",
				f.Format, f.Lines, f.Rows, f.Rejected, f.Duplicates, log.String())
		}
	})
}

// TestStackQueueBurst: a burst of 30 requests at once on 2 slots, after a
// steady trickle. The queue is the server's own measure, exact; network
// and application stay small beside it (no queueing leaks into them), and
// the findings name queueing.
func TestStackQueueBurst(t *testing.T) {
	t.Parallel()
	scenario(t, func(a *attempt) {
		t := a.T
		reqs := steady("trickle", 10, 60*time.Millisecond)
		for i := range 30 {
			reqs = append(reqs, Request{ID: fmt.Sprintf("burst-%03d", i), At: 700 * time.Millisecond, Stream: i%2 == 0, Tokens: 6})
		}
		run := runStack(t, Scenario{Server: ServerConfig{Slots: 2}, Requests: reqs})
		res, rows := pipeline(t, run)
		checkJoined(t, run, rows)
		checkExact(t, run, rows)
		burst := ids(run.Clients, func(c ClientTruth) bool { return strings.HasPrefix(c.ID, "burst-") })
		checkRecovered(a, "queue_ms", rows, burst, queue, func(id string) float64 {
			s := run.Server[id]
			return ms(s.Scheduled.Sub(s.Arrival))
		})
		var maxQ float64
		for _, id := range burst {
			maxQ = math.Max(maxQ, rows[id].Queue.Float64)
		}
		// 30 requests of 35 ms on 2 slots: the last waits about 14 × 35 ms.
		if maxQ < 14*35-tol {
			t.Errorf("longest queue %.1f ms, want about %d ms: the burst did not queue", maxQ, 14*35)
		}
		// Thirty connections opened at once cost NGINX and the server's HTTP
		// layer a few ms each (application: the hop before the server's
		// arrival): not queueing, and far below it.
		checkWithin(a, "network_ms", rows, burst, network, zero, 15)
		checkWithin(a, "application_ms", rows, burst, application, zero, 15)
		dominantIs(a, res, "queue")
	})
}

// TestStackNetworkDelay: every byte from the clients to NGINX held 200 ms
// by a delaying proxy. Network time recovers the 200 ms, in E2E and in
// TTFT; application and queue stay near zero; the findings name network.
func TestStackNetworkDelay(t *testing.T) {
	t.Parallel()
	scenario(t, func(a *attempt) {
		t := a.T
		const delay = 200 * time.Millisecond
		run := runStack(t, Scenario{Server: ServerConfig{Slots: 8}, NetDelay: delay, Requests: steady("net", 40, 15*time.Millisecond)})
		res, rows := pipeline(t, run)
		checkJoined(t, run, rows)
		checkExact(t, run, rows)
		all := ids(run.Clients, nil)
		d := func(string) float64 { return ms(delay) }
		checkRecovered(a, "network_ms", rows, all, network, d)
		// The TTFT split puts all of the gateway's own time before the first
		// token (see noAnomaly): noise moves ttft_network_ms either way.
		checkBounded(a, "ttft_network_ms", rows, ids(run.Clients, func(c ClientTruth) bool { return c.Stream }), ttftNetwork, d, tol, 0)
		checkRecovered(a, "application_ms", rows, all, application, zero)
		noAnomaly(t, rows, all)
		dominantIs(a, res, "network")
	})
}

// TestStackSlowAuth: NGINX asks a slow auth endpoint (auth_request) before
// it forwards each request. Application time recovers the auth step's
// own duration, per request, as the endpoint measured it; network stays
// near zero; the findings name application.
func TestStackSlowAuth(t *testing.T) {
	t.Parallel()
	scenario(t, func(a *attempt) {
		t := a.T
		run := runStack(t, Scenario{Server: ServerConfig{Slots: 8, AuthDelay: 200 * time.Millisecond}, Auth: true, Requests: steady("auth", 40, 15*time.Millisecond)})
		res, rows := pipeline(t, run)
		checkJoined(t, run, rows)
		checkExact(t, run, rows)
		all := ids(run.Clients, nil)
		if len(run.Auth) != len(all) {
			t.Fatalf("the auth endpoint was called for %d of %d requests", len(run.Auth), len(all))
		}
		authMs := func(id string) float64 {
			a := run.Auth[id]
			return ms(a.End.Sub(a.Start))
		}
		checkRecovered(a, "application_ms", rows, all, application, authMs)
		// The auth step comes before forwarding: all of it is before the first
		// token too.
		checkBounded(a, "ttft_application_ms", rows, ids(run.Clients, func(c ClientTruth) bool { return c.Stream }), ttftApp, authMs, tol, 0)
		checkRecovered(a, "network_ms", rows, all, network, zero)
		noAnomaly(t, rows, all)
		dominantIs(a, res, "application")
	})
}

// TestStackClientAbort: some clients leave mid-stream (after 3 of 30
// tokens), two before the response header (100 ms in, during a 300 ms
// prefill), and
// the server goes on generating for them. NGINX logs the first 200 with a
// partial body and the second 499. infertrace reports each as aborted,
// never with a negative network or application time, and the server's
// work after the client left as wasted_ms, recovered against the truth
// (server end − client leave, one clock here); the other requests keep
// their split.
func TestStackClientAbort(t *testing.T) {
	t.Parallel()
	scenario(t, func(a *attempt) {
		t := a.T
		reqs := steady("ok", 20, 20*time.Millisecond)
		for i := range 8 {
			reqs = append(reqs, Request{ID: fmt.Sprintf("abort-mid-%03d", i), At: time.Duration(i)*45*time.Millisecond + 5*time.Millisecond, Stream: true, Tokens: 30, AbortAfter: 3})
		}
		for i := range 2 {
			reqs = append(reqs, Request{ID: fmt.Sprintf("abort-early-%03d", i), At: time.Duration(i)*150*time.Millisecond + 7*time.Millisecond, Stream: true, Tokens: 10, Prefill: 300 * time.Millisecond, AbortAt: 100 * time.Millisecond})
		}
		run := runStack(t, Scenario{Server: ServerConfig{Slots: 8}, Requests: reqs})
		res, rows := pipeline(t, run)
		checkJoined(t, run, rows)
		checkExact(t, run, rows)

		// What NGINX logged for them.
		status := gatewayStatus(t, run.Gateway)
		left := ids(run.Clients, func(c ClientTruth) bool { return c.Aborted })
		if len(left) != 10 {
			t.Fatalf("%d clients left, want 10", len(left))
		}
		for _, id := range left {
			want := 200
			if strings.HasPrefix(id, "abort-early-") {
				want = 499
			}
			if status[id] != want {
				t.Errorf("%s: NGINX logged status %d, want %d", id, status[id], want)
			}
			r := rows[id]
			if !r.Aborted.Valid || !r.Aborted.Bool {
				t.Errorf("%s: aborted = %v, want true", id, r.Aborted)
			}
			// Its client and gateway ended at different moments (the abort,
			// NGINX's noticing it): no network time, whichever way NGINX
			// logged it.
			if r.Network.Valid {
				t.Errorf("%s: network_ms = %.2f ms, want NULL for an aborted request", id, r.Network.Float64)
			}
			for _, c := range []struct {
				what string
				v    sql.NullFloat64
			}{{"application_ms", r.Application}, {"ttft_network_ms", r.TTFTNetwork}, {"ttft_application_ms", r.TTFTApplication}} {
				if c.v.Valid && c.v.Float64 < -1 {
					t.Errorf("%s: %s = %.2f ms: an aborted request's time is never negative", id, c.what, c.v.Float64)
				}
			}
		}
		// wasted_ms places the client's leave on the gateway's timeline, so it
		// is short by the request's way from the client to NGINX and on to the
		// server: noise moves it down.
		// A client that left before NGINX forwarded its request cost the
		// server nothing: no wasted_ms.
		var served []string
		for _, id := range left {
			if _, ok := run.Server[id]; ok {
				served = append(served, id)
			} else if w := rows[id].Wasted; w.Valid {
				t.Errorf("%s: never reached the server, wasted_ms = %.2f ms, want NULL", id, w.Float64)
			}
		}
		checkBounded(a, "wasted_ms", rows, served, func(r row) sql.NullFloat64 { return r.Wasted }, func(id string) float64 {
			return ms(run.Server[id].End.Sub(clientOf(run, id).End))
		}, tol, -1)
		kept := ids(run.Clients, func(c ClientTruth) bool { return !c.Aborted })
		for _, id := range kept {
			if r := rows[id]; !r.Aborted.Valid || r.Aborted.Bool || r.Wasted.Valid {
				t.Errorf("%s: aborted = %v, wasted_ms = %v; want false and NULL", id, r.Aborted, r.Wasted)
			}
		}
		checkRecovered(a, "network_ms", rows, kept, network, zero)
		checkRecovered(a, "application_ms", rows, kept, application, zero)
		noAnomaly(t, rows, kept)
		found := false
		for _, f := range report.Say(res, nil).Findings {
			if strings.HasPrefix(f, "10 requests were aborted") && strings.Contains(f, "wasted_ms") {
				t.Logf("finding: %s", f)
				found = true
			}
		}
		if !found {
			t.Errorf("no finding reports the 10 aborted requests and their wasted work:\n%s", strings.Join(report.Say(res, nil).Findings, "\n"))
		}
	})
}

func clientOf(run *Run, id string) ClientTruth {
	for _, c := range run.Clients {
		if c.ID == id {
			return c
		}
	}
	return ClientTruth{}
}

// gatewayStatus reads $status by $http_x_request_id from the llm log.
func gatewayStatus(t *testing.T, path string) map[string]int {
	out := map[string]int{}
	for id, l := range gatewayLines(t, path) {
		out[id] = l.Status
	}
	return out
}

// gatewayLine is the part of an llm log line the tests read.
type gatewayLine struct {
	ID             string `json:"x_request_id"`
	Status         int    `json:"status"`
	UpstreamStatus string `json:"upstream_status"`
}

// gatewayLines reads the llm log by $http_x_request_id.
func gatewayLines(t *testing.T, path string) map[string]gatewayLine {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]gatewayLine{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var v gatewayLine
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out[v.ID] = v
	}
	return out
}

// TestStackRetry: NGINX's upstream group holds a failing replica before
// the good one; round robin sends it every other request, which it answers
// 502 after 200 ms, and NGINX passes the request on (proxy_next_upstream).
// The log lists both attempts ("a, b", "502, 200"); infertrace takes the
// last attempt's times, so the failed attempt is the gateway's time before
// forwarding: application time, recovered per request against the failing
// replica's own record, and named in the findings. The other requests
// keep an application time near zero.
func TestStackRetry(t *testing.T) {
	t.Parallel()
	scenario(t, func(a *attempt) {
		t := a.T
		run := runStack(t, Scenario{Server: ServerConfig{Slots: 8, FailDelay: 200 * time.Millisecond}, Requests: steady("retry", 40, 15*time.Millisecond)})
		res, rows := pipeline(t, run)
		checkJoined(t, run, rows)
		checkExact(t, run, rows)
		retried := ids(run.Clients, func(c ClientTruth) bool { _, ok := run.Fails[c.ID]; return ok })
		direct := ids(run.Clients, func(c ClientTruth) bool { _, ok := run.Fails[c.ID]; return !ok })
		if len(retried) < 10 || len(direct) < 10 {
			t.Fatalf("%d requests went to the failing replica first, %d straight to the good one: want about half each", len(retried), len(direct))
		}
		lines := gatewayLines(t, run.Gateway)
		for _, id := range retried {
			if l := lines[id]; l.Status != 200 || l.UpstreamStatus != "502, 200" {
				t.Errorf("%s: NGINX logged status %d, upstream_status %q; want 200, \"502, 200\"", id, l.Status, l.UpstreamStatus)
			}
		}
		checkRecovered(a, "application_ms", rows, retried, application, func(id string) float64 {
			a := run.Fails[id]
			return ms(a.End.Sub(a.Start))
		})
		checkRecovered(a, "application_ms", rows, direct, application, zero)
		checkRecovered(a, "network_ms", rows, ids(run.Clients, nil), network, zero)
		noAnomaly(t, rows, ids(run.Clients, nil))
		dominantIs(a, res, "application")
	})
}
