package e2e

import (
	"database/sql"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// TestNginxRealByHand runs the whole pipeline on the recording of a real
// NGINX (testdata/ingest/nginx_real.txtar: Debian's nginx 1.22.1 with
// proxy_buffering off, native client and server records, one host's
// clock) and checks its attribution by hand (ms).
//
// req-abort-1: the client left mid-stream. NGINX logged 200 with a partial
// body, request_time 0.401 (start 47.773, end 48.174), the last upstream
// attempt 0.400 (start 47.774); the server went on to 48.243136495.
//
//	client_e2e = 48.174164871 − 47.773314715 = 400.850156
//	server_e2e = 48.243136495 − 47.774183213 = 468.953282
//	the server outlived the gateway's upstream span (468.953282 − 400 > 5):
//	network, application and their TTFT parts are NULL, not −68
//	wasted_ms  = server_e2e + (upstream start − start) − client_e2e
//	           = 468.953282 + 1 − 400.850156 = 69.103126
//	           (one clock: server end − client end = 68.971624; the
//	           gateway's ms resolution is the difference)
//	queue      = 47.814775296 − 47.774183213 = 40.592083
//	model      = 48.243136495 − 47.814775296 = 428.361199
//
// req-stream-1 and req-retry-1 (its second attempt served it) keep their
// split: network = client_e2e − gateway_e2e, application = gateway_e2e −
// server_e2e.
//
//	stream-1: 553.396068 − 552 = 1.396068;  552 − 550.851674 = 1.148326
//	retry-1:  347.457516 − 347 = 0.457516;  347 − 345.546257 = 1.453743
func TestNginxRealByHand(t *testing.T) {
	t.Parallel()
	ar, err := txtar.ParseFile("testdata/ingest/nginx_real.txtar")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range ar.Files {
		if f.Name == "args" || strings.HasPrefix(f.Name, "want/") {
			continue
		}
		writeFile(t, dir, f.Name, f.Data)
	}
	out := filepath.Join(dir, "out")
	// The combined log's lines carry no request ID: kept as rows in no
	// request, and the report says why they join nothing.
	code, stdout, stderr := runCLI(t, "run", "--client", filepath.Join(dir, "client"), "--gateway", filepath.Join(dir, "gateway"),
		"--server", filepath.Join(dir, "server"), "--out", out)
	if code != 0 || !strings.Contains(stdout, "analyzed 5 requests (client 5, gateway 5, server 5, all three 5)") {
		t.Fatalf("exit %d, want 0 and the 5 requests of the JSON log only\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	report, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "5 gateway records of format nginx carry no request ID and no duration"; !strings.Contains(string(report), want) {
		t.Errorf("report.md does not say %q", want)
	}
	if want := "1 request was aborted"; !strings.Contains(string(report), want) {
		t.Errorf("report.md does not say %q", want)
	}

	// explain says so for the one request.
	if code, stdout, stderr := runCLI(t, "explain", out, "req-abort-1"); code != 0 ||
		!strings.Contains(stdout, "Aborted: the client left before the response ended, and the server worked 69.1 ms after it left (wasted).") {
		t.Errorf("explain req-abort-1: exit %d, no aborted line:\n%s%s", code, stdout, stderr)
	}

	db, err := sql.Open("duckdb", duckOneThread)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	type row struct {
		aborted                                    bool
		network, application, ttftNetwork, ttftApp sql.NullFloat64
		queue, model, wasted                       sql.NullFloat64
		anomaly                                    sql.NullString
	}
	rows := map[string]row{}
	rs, err := db.Query(`SELECT request_id, aborted, network_ms, application_ms, ttft_network_ms, ttft_application_ms,
		queue_ms, model_ms, wasted_ms, anomaly FROM read_parquet(?)`, filepath.Join(out, "requests.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	for rs.Next() {
		var id string
		var r row
		if err := rs.Scan(&id, &r.aborted, &r.network, &r.application, &r.ttftNetwork, &r.ttftApp, &r.queue, &r.model, &r.wasted, &r.anomaly); err != nil {
			t.Fatal(err)
		}
		rows[id] = r
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	null := math.NaN()
	check := func(id, what string, got sql.NullFloat64, want float64) {
		t.Helper()
		switch {
		case math.IsNaN(want) && got.Valid:
			t.Errorf("%s %s = %.6f, want NULL", id, what, got.Float64)
		case !math.IsNaN(want) && (!got.Valid || math.Abs(got.Float64-want) > 1e-6):
			t.Errorf("%s %s = %v, want %.6f", id, what, got, want)
		}
	}
	a := rows["req-abort-1"]
	if !a.aborted || a.anomaly.Valid {
		t.Errorf("req-abort-1: aborted %v, anomaly %v; want true, none", a.aborted, a.anomaly)
	}
	for _, c := range []struct {
		what string
		got  sql.NullFloat64
		want float64
	}{{"network_ms", a.network, null}, {"application_ms", a.application, null}, {"ttft_network_ms", a.ttftNetwork, null},
		{"ttft_application_ms", a.ttftApp, null}, {"wasted_ms", a.wasted, 69.103126}, {"queue_ms", a.queue, 40.592083},
		{"model_ms", a.model, 428.361199}} {
		check("req-abort-1", c.what, c.got, c.want)
	}
	for id, w := range map[string][2]float64{"req-stream-1": {1.396068, 1.148326}, "req-retry-1": {0.457516, 1.453743}} {
		r := rows[id]
		if r.aborted || r.anomaly.Valid {
			t.Errorf("%s: aborted %v, anomaly %v; want false, none", id, r.aborted, r.anomaly)
		}
		check(id, "network_ms", r.network, w[0])
		check(id, "application_ms", r.application, w[1])
		check(id, "wasted_ms", r.wasted, null)
	}
}

// TestAbortedBeforeTheServer: a client that left before the gateway
// forwarded its request (both log 499; no server record) is aborted, and
// cost the server nothing it logged: wasted_ms NULL, not 0, and no network
// time (the gateway's record ends when it noticed).
func TestAbortedBeforeTheServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	client := filepath.Join(dir, "client.jsonl")
	gateway := filepath.Join(dir, "gateway.jsonl")
	if err := os.WriteFile(client, []byte(`{"request_id":"r1","start":"2026-12-01T10:00:00.000Z","end":"2026-12-01T10:00:00.005Z","status":499,"error":"client aborted","streamed":true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gateway, []byte(`{"request_id":"r1","start":"2026-12-01T10:00:00.001Z","end":"2026-12-01T10:00:00.007Z","status":499}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if code, stdout, stderr := runCLI(t, "ingest", "--client", "native:"+client, "--gateway", "native:"+gateway, "--out", out); code != 0 {
		t.Fatalf("ingest: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if code, stdout, stderr := runCLI(t, "analyze", out); code != 0 {
		t.Fatalf("analyze: exit %d\n%s\n%s", code, stdout, stderr)
	}
	db, err := sql.Open("duckdb", duckOneThread)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var aborted bool
	var wasted, network sql.NullFloat64
	if err := db.QueryRow(`SELECT aborted, wasted_ms, network_ms FROM read_parquet(?) WHERE request_id = 'r1'`,
		filepath.Join(out, "requests.parquet")).Scan(&aborted, &wasted, &network); err != nil {
		t.Fatal(err)
	}
	if !aborted || wasted.Valid || network.Valid {
		t.Errorf("aborted %v, wasted_ms %v, network_ms %v; want true, NULL, NULL", aborted, wasted, network)
	}
}
