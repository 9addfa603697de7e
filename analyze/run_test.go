package analyze

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/infertrace/infertrace/analyze/analyzetest"
	"github.com/infertrace/infertrace/internal/duck"
)

// runFixture writes f with the given clock offsets into a fresh directory,
// runs Run and returns the directory, the stats and requests.parquet as
// request_id -> column -> value. The fixtures several tests read (at the
// default offsets) are analyzed once and copied (runShared).
func runFixture(t *testing.T, f analyzetest.Fixture, off analyzetest.Offsets) (string, *RunStats, map[string]map[string]any) {
	t.Helper()
	if r := sharedFixture(f, off); r != nil {
		return runShared(t, r)
	}
	ctx := context.Background()
	dir := t.TempDir()
	if err := analyzetest.Write(ctx, dir, f, off); err != nil {
		t.Fatal(err)
	}
	st, err := RunWith(ctx, dir, duck.Resources{Threads: 1})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return dir, st, readRequests(t, st.Path)
}

func readRequests(t *testing.T, path string) map[string]map[string]any {
	t.Helper()
	db, err := sql.Open("duckdb", "?threads=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT * FROM read_parquet(" + duck.Quote(path) + ")")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	out := map[string]map[string]any{}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		m := map[string]any{}
		for i, c := range cols {
			m[c] = vals[i]
		}
		id := m["request_id"].(string)
		if _, dup := out[id]; dup {
			t.Errorf("request %s appears twice in requests.parquet", id)
		}
		out[id] = m
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// null marks an expected NULL.
var null = math.NaN()

func checkMs(t *testing.T, rows map[string]map[string]any, id string, want map[string]float64) {
	t.Helper()
	r, ok := rows[id]
	if !ok {
		t.Fatalf("request %s missing", id)
	}
	for col, w := range want {
		got := duck.Float(r[col])
		switch {
		case math.IsNaN(w) && got != nil:
			t.Errorf("%s %s = %v, want NULL", id, col, *got)
		case !math.IsNaN(w) && got == nil:
			t.Errorf("%s %s = NULL, want %v", id, col, w)
		case !math.IsNaN(w) && math.Abs(*got-w) > 1e-9:
			t.Errorf("%s %s = %v, want %v", id, col, *got, w)
		}
	}
}

func TestRunComponents(t *testing.T) {
	t.Parallel()
	_, st, rows := runFixture(t, analyzetest.Standard(), analyzetest.DefaultOffsets)

	// r1, all times in ms on each tier's own clock (offsets cancel):
	//   client 0 -> 1300, first token 300; gateway 10 -> 1290, upstream 15 -> 1285;
	//   server arrival 20, scheduled 70, first token 270, end 1280.
	//   client_e2e 1300, gateway_e2e 1280, server_e2e 1260
	//   network 1300-1280 = 20, application 1280-1260 = 20,
	//   queue 70-20 = 50, model 1280-70 = 1210: 20+20+50+1210 = 1300
	//   client_ttft 300, server_ttft 270-20 = 250,
	//   ttft_application (15-10) + ((1285-15) - 1260) = 5 + 10 = 15,
	//   ttft_network 300-250-15 = 35, ttft_model 270-70 = 200: 35+15+50+200 = 300
	//   tps_user: the 99 tokens after the first / (1300-300 ms) = 99/s
	checkMs(t, rows, "r1", map[string]float64{
		"client_e2e_ms": 1300, "gateway_e2e_ms": 1280, "server_e2e_ms": 1260,
		"network_ms": 20, "application_ms": 20, "queue_ms": 50, "model_ms": 1210,
		"client_ttft_ms": 300, "server_ttft_ms": 250, "ttft_network_ms": 35,
		"ttft_application_ms": 15, "ttft_queue_ms": 50, "ttft_model_ms": 200, "tps_user": 99,
		// every tier: nothing is left not split
		"upstream_ms": null, "network_application_ms": null, "unsplit_ms": null,
		"ttft_network_application_ms": null, "ttft_unsplit_ms": null,
	})
	// r2: client 1000 -> 3600 (first token 1600); gateway 1012 -> 3585,
	//   upstream 1020 -> 3580; server 1030, 1330, 1530, 3560.
	//   e2e 2600, 2573, 2530; network 27, application 43, queue 300, model 2230
	//   client_ttft 600, server_ttft 500, ttft_application 8 + (2560-2530) = 38,
	//   ttft_network 600-500-38 = 62, ttft_model 200
	//   tps_user uses the 280 output tokens the client received (the server
	//   counted 300): 279 after the first over 2 s = 139.5/s.
	checkMs(t, rows, "r2", map[string]float64{
		"client_e2e_ms": 2600, "gateway_e2e_ms": 2573, "server_e2e_ms": 2530,
		"network_ms": 27, "application_ms": 43, "queue_ms": 300, "model_ms": 2230,
		"client_ttft_ms": 600, "server_ttft_ms": 500, "ttft_network_ms": 62,
		"ttft_application_ms": 38, "ttft_queue_ms": 300, "ttft_model_ms": 200, "tps_user": 139.5,
	})
	// r3 (not streamed): e2e 500, 490, 465; network 10, application 25,
	//   queue 10, model 455; no client TTFT so no ttft_network and no tps_user;
	//   server_ttft 2100-2015 = 85, ttft_application 5 + (480-465) = 20.
	checkMs(t, rows, "r3", map[string]float64{
		"client_e2e_ms": 500, "gateway_e2e_ms": 490, "server_e2e_ms": 465,
		"network_ms": 10, "application_ms": 25, "queue_ms": 10, "model_ms": 455,
		"client_ttft_ms": null, "server_ttft_ms": 85, "ttft_network_ms": null,
		"ttft_application_ms": 20, "ttft_queue_ms": 10, "ttft_model_ms": 75, "tps_user": null,
	})
	// r4 has no server record: everything needing the server is NULL.
	//   network 1000-980 = 20; tps_user 59 tokens after the first / 0.6 s.
	//   The gateway's E2E, 980, is application + queue + model not split
	//   (upstream_ms): 20 + 980 = the client's 1000. TTFT network needs the
	//   server's TTFT: the whole client TTFT, 400, is not split.
	checkMs(t, rows, "r4", map[string]float64{
		"client_e2e_ms": 1000, "gateway_e2e_ms": 980, "server_e2e_ms": null,
		"network_ms": 20, "application_ms": null, "queue_ms": null, "model_ms": null,
		"client_ttft_ms": 400, "server_ttft_ms": null, "ttft_network_ms": null,
		"ttft_application_ms": null, "ttft_queue_ms": null, "ttft_model_ms": null, "tps_user": 59 / 0.6,
		"upstream_ms": 980, "network_application_ms": null, "unsplit_ms": null,
		"ttft_network_application_ms": null, "ttft_unsplit_ms": 400,
	})
	// r5 has no client record: 910 at the gateway, 890 at the server.
	checkMs(t, rows, "r5", map[string]float64{
		"client_e2e_ms": null, "gateway_e2e_ms": 910, "server_e2e_ms": 890,
		"network_ms": null, "application_ms": 20, "queue_ms": 100, "model_ms": 790,
		"client_ttft_ms": null, "server_ttft_ms": 200, "ttft_network_ms": null,
		"ttft_application_ms": 15, "ttft_queue_ms": 100, "ttft_model_ms": 100, "tps_user": null,
		// no client: network is unknown, and nothing stands in for it
		"upstream_ms": null, "network_application_ms": null, "unsplit_ms": null,
		"ttft_network_application_ms": null, "ttft_unsplit_ms": null,
	})
	// r7 was retried at the gateway: the later attempt (6200 -> 6905,
	//   upstream 6205 -> 6900) is kept. e2e 1000, 705, 680;
	//   network 295, application 25, queue 50, model 630;
	//   ttft_application 5 + (695-680) = 20, ttft_network 500-190-20 = 290;
	//   tps_user 49 tokens after the first / (7000-6500 ms) = 98/s.
	checkMs(t, rows, "r7", map[string]float64{
		"client_e2e_ms": 1000, "gateway_e2e_ms": 705, "server_e2e_ms": 680,
		"network_ms": 295, "application_ms": 25, "queue_ms": 50, "model_ms": 630,
		"client_ttft_ms": 500, "server_ttft_ms": 190, "ttft_network_ms": 290,
		"ttft_application_ms": 20, "ttft_queue_ms": 50, "ttft_model_ms": 140, "tps_user": 98,
	})
	// r8: the client logged end (7900) before start (8000): the row is kept
	//   with its negative values and flagged.
	checkMs(t, rows, "r8", map[string]float64{
		"client_e2e_ms": -100, "network_ms": -180, "application_ms": 20, "tps_user": null,
	})

	if got := rows["r8"]["anomaly"]; got != "client end before start; client end before first_token; negative network_ms" {
		t.Errorf("r8 anomaly = %v", got)
	}
	for id, r := range rows {
		if id != "r8" && r["anomaly"] != nil {
			t.Errorf("%s anomaly = %v, want NULL", id, r["anomaly"])
		}
	}

	// Components sum to the totals wherever every tier is present.
	for id, r := range rows {
		if r["has_client"] != true || r["has_gateway"] != true || r["has_server"] != true {
			continue
		}
		sum := *duck.Float(r["network_ms"]) + *duck.Float(r["application_ms"]) + *duck.Float(r["queue_ms"]) + *duck.Float(r["model_ms"])
		if e2e := *duck.Float(r["client_e2e_ms"]); math.Abs(sum-e2e) > 1e-9 {
			t.Errorf("%s: E2E components sum to %v, client_e2e_ms is %v", id, sum, e2e)
		}
		if r["client_ttft_ms"] == nil {
			continue
		}
		tsum := *duck.Float(r["ttft_network_ms"]) + *duck.Float(r["ttft_application_ms"]) + *duck.Float(r["ttft_queue_ms"]) + *duck.Float(r["ttft_model_ms"])
		if ttft := *duck.Float(r["client_ttft_ms"]); math.Abs(tsum-ttft) > 1e-9 {
			t.Errorf("%s: TTFT components sum to %v, client_ttft_ms is %v", id, tsum, ttft)
		}
	}

	// Merged attributes: server model/tokens first, client use_case/status.
	if r := rows["r2"]; duck.Int(r["output_tokens"]) != 300 {
		t.Errorf("r2 output_tokens = %v, want the server's 300", r["output_tokens"])
	}
	if r := rows["r4"]; r["model"] != "m1" || r["replica"] != nil || r["gateway"] != "gw1" {
		t.Errorf("r4 model/replica/gateway = %v/%v/%v", r["model"], r["replica"], r["gateway"])
	}
	if r := rows["r5"]; r["use_case"] != nil || r["streamed"] != nil || duck.Int(r["status"]) != 200 {
		t.Errorf("r5 use_case/streamed/status = %v/%v/%v", r["use_case"], r["streamed"], r["status"])
	}
	if r := rows["r7"]; duck.Int(r["status"]) != 200 {
		t.Errorf("r7 status = %v, want the client's 200", r["status"])
	}

	// start is the first tier on the path, on its own clock: r1's client
	// start; r5 (no client) the gateway's, which runs 2.5 s ahead.
	if got := rows["r1"]["start"].(time.Time); !got.Equal(analyzetest.Base) {
		t.Errorf("r1 start = %v", got)
	}
	if got, want := rows["r5"]["start"].(time.Time), analyzetest.Base.Add(6500*time.Millisecond); !got.Equal(want) {
		t.Errorf("r5 start = %v, want %v", got, want)
	}

	// Duplicates and retries.
	if len(rows) != 8 {
		t.Errorf("requests.parquet has %d rows, want 8", len(rows))
	}
	if r := rows["r6"]; duck.Int(r["client_records"]) != 1 || r["client_source"] != "logs/client.jsonl:5" {
		t.Errorf("r6 client_records/source = %v/%v, want 1/logs/client.jsonl:5", r["client_records"], r["client_source"])
	}
	if r := rows["r7"]; duck.Int(r["gateway_records"]) != 2 || duck.Int(r["client_records"]) != 1 || r["gateway_source"] != "logs/gateway.log:8" {
		t.Errorf("r7 records/source = %v/%v/%v", r["gateway_records"], r["client_records"], r["gateway_source"])
	}
	if r := rows["r4"]; duck.Int(r["server_records"]) != 0 || r["server_source"] != nil || r["has_server"] != false {
		t.Errorf("r4 server_records/source/has_server = %v/%v/%v", r["server_records"], r["server_source"], r["has_server"])
	}

	want := RunStats{
		Path:      st.Path,
		Coverage:  Coverage{Requests: 8, Client: 7, Gateway: 8, Server: 7, ClientGateway: 7, GatewayServer: 7, ClientServer: 6, AllTiers: 6},
		Anomalous: 1,
		Retried:   1,
	}
	if !reflect.DeepEqual(*st, want) {
		t.Errorf("stats = %+v, want %+v", *st, want)
	}
	if got, want := st.String(), "8 requests (client 7, gateway 8, server 7, all three 6), 1 anomalous, 1 retried: "+st.Path; got != want {
		t.Errorf("stats.String() = %q, want %q", got, want)
	}
}

// Shifting any tier's clock by a constant must not change any duration.
func TestRunClockOffsetsCancel(t *testing.T) {
	t.Parallel()
	_, _, a := runFixture(t, analyzetest.Standard(), analyzetest.DefaultOffsets)
	_, _, b := runFixture(t, analyzetest.Standard(), analyzetest.Offsets{
		Client:  time.Hour + 7,
		Gateway: -7*time.Second + 123,
		Server:  11300*time.Millisecond + 999,
	})
	cols := []string{"client_e2e_ms", "gateway_e2e_ms", "server_e2e_ms", "network_ms", "application_ms",
		"queue_ms", "model_ms", "client_ttft_ms", "server_ttft_ms", "ttft_network_ms",
		"ttft_application_ms", "ttft_queue_ms", "ttft_model_ms", "tps_user"}
	if len(a) != len(b) {
		t.Fatalf("%d vs %d requests", len(a), len(b))
	}
	for id, ra := range a {
		rb := b[id]
		for _, c := range cols {
			x, y := duck.Float(ra[c]), duck.Float(rb[c])
			if (x == nil) != (y == nil) || (x != nil && math.Abs(*x-*y) > 1e-9) {
				t.Errorf("%s %s changed with clock offsets: %v vs %v", id, c, ra[c], rb[c])
			}
		}
		if ra["anomaly"] != rb["anomaly"] {
			t.Errorf("%s anomaly changed with clock offsets: %v vs %v", id, ra["anomaly"], rb["anomaly"])
		}
	}
}

// A tier without any Parquet parts is an empty table, not an error.
func TestRunMissingTier(t *testing.T) {
	t.Parallel()
	f := analyzetest.Standard()
	f.Servers = nil
	dir, st, rows := runFixture(t, f, analyzetest.DefaultOffsets)
	if st.Coverage.Server != 0 || st.Coverage.Requests != 8 {
		t.Errorf("coverage = %+v", st.Coverage)
	}
	checkMs(t, rows, "r1", map[string]float64{
		"client_e2e_ms": 1300, "network_ms": 20, "server_e2e_ms": null,
		"application_ms": null, "queue_ms": null, "model_ms": null,
	})
	if got := rows["r1"]["model"]; got != "m1" {
		t.Errorf("r1 model = %v, want the client's m1", got)
	}
	if _, err := Summarize(context.Background(), dir, SummaryOptions{}); err != nil {
		t.Errorf("Summarize without a server tier: %v", err)
	}
}

// A directory that holds no ingest output is an error, and nothing is
// written there; an ingest that gave no rows is an empty analysis.
func TestRunEmptyDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, d := range []string{dir, filepath.Join(dir, "nosuch")} {
		_, err := Run(context.Background(), d)
		if !errors.Is(err, ErrNoIngest) || !strings.Contains(err.Error(), d+" holds no ingest output") {
			t.Errorf("Run(%s): got %v", d, err)
		}
		if _, err := Summarize(context.Background(), d, SummaryOptions{}); !errors.Is(err, ErrNoIngest) {
			t.Errorf("Summarize(%s): got %v", d, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("Run wrote into a directory without ingest output: %v", entries)
	}
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"version":1,"files":[]}`), 0o644)
	st, err := Run(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Coverage.Requests != 0 || st.Path != filepath.Join(dir, RequestsFile) {
		t.Errorf("stats = %+v", st)
	}
	res, err := summarize1(context.Background(), dir, SummaryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Slices) != 0 || len(said(res).Findings) != 1 {
		t.Errorf("empty summary: %d slices, findings %q", len(res.Slices), said(res).Findings)
	}
}

// Parts whose times DuckDB reads as TIMESTAMP WITH TIME ZONE give the same
// durations as TIMESTAMP_NS parts.
func TestRunTimestampTZ(t *testing.T) {
	t.Parallel()
	_, _, a := runFixture(t, analyzetest.Standard(), analyzetest.DefaultOffsets)
	f := analyzetest.Standard()
	f.TimestampTZ = true
	_, _, b := runFixture(t, f, analyzetest.DefaultOffsets)
	for id, ra := range a {
		for _, c := range []string{"client_e2e_ms", "network_ms", "application_ms", "queue_ms", "model_ms", "ttft_network_ms", "ttft_application_ms", "tps_user"} {
			x, y := duck.Float(ra[c]), duck.Float(b[id][c])
			if (x == nil) != (y == nil) || (x != nil && math.Abs(*x-*y) > 1e-9) {
				t.Errorf("%s %s: %v from TIMESTAMP_NS, %v from TIMESTAMPTZ", id, c, ra[c], b[id][c])
			}
		}
		if !ra["start"].(time.Time).Equal(b[id]["start"].(time.Time)) {
			t.Errorf("%s start: %v vs %v", id, ra["start"], b[id]["start"])
		}
	}
}

// Parts written before a column existed, and parts carrying columns this
// version does not know, still read: missing columns are NULL.
func TestRunSchemaDrift(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := sql.Open("duckdb", "?threads=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		// An old client part: no first_token_time, streamed, tokens, source.
		`COPY (SELECT 'a' AS request_id, '2026-03-01 12:00:00'::TIMESTAMP_NS AS start_time,
		       '2026-03-01 12:00:01.5'::TIMESTAMP_NS AS end_time, 200::INTEGER AS status)
		 TO '` + dir + `/client/part-0.parquet' (FORMAT parquet)`,
		// A newer client part with everything.
		`COPY (SELECT 'b' AS request_id, '2026-03-01 12:00:02'::TIMESTAMP_NS AS start_time,
		       '2026-03-01 12:00:02.25'::TIMESTAMP_NS AS first_token_time,
		       '2026-03-01 12:00:03.25'::TIMESTAMP_NS AS end_time, true AS streamed,
		       40::INTEGER AS output_tokens, 'c.jsonl' AS source_file, 3::BIGINT AS source_line)
		 TO '` + dir + `/client/part-1.parquet' (FORMAT parquet)`,
		// A server part from a later version with an extra column.
		`COPY (SELECT 'a' AS request_id, '2026-03-01 11:00:00'::TIMESTAMP_NS AS arrival_time,
		       '2026-03-01 11:00:00.1'::TIMESTAMP_NS AS scheduled_time,
		       '2026-03-01 11:00:01'::TIMESTAMP_NS AS end_time, 12.5::DOUBLE AS prefill_ms)
		 TO '` + dir + `/server/part-0.parquet' (FORMAT parquet)`,
	} {
		for _, sub := range []string{"client", "server"} {
			os.MkdirAll(filepath.Join(dir, sub), 0o755)
		}
		os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"version":1,"files":[]}`), 0o644)
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	st, err := RunWith(ctx, dir, duck.Resources{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	rows := readRequests(t, st.Path)
	// a: client 1500 ms; server 1000 ms = queue 100 + model 900; no gateway.
	checkMs(t, rows, "a", map[string]float64{
		"client_e2e_ms": 1500, "server_e2e_ms": 1000, "queue_ms": 100, "model_ms": 900,
		"network_ms": null, "application_ms": null, "client_ttft_ms": null, "tps_user": null,
	})
	// b: 40 tokens, the 39 after the first over the 1 s after it.
	checkMs(t, rows, "b", map[string]float64{"client_e2e_ms": 1250, "client_ttft_ms": 250, "tps_user": 39})
	if rows["b"]["client_source"] != "c.jsonl:3" || rows["a"]["client_source"] != nil {
		t.Errorf("sources: a %v, b %v", rows["a"]["client_source"], rows["b"]["client_source"])
	}
}

// requests.parquet's rows are in order of start (NULLS LAST), then
// request_id, as written: the positional assembly and the write keep it.
func TestRequestsInStartOrder(t *testing.T) {
	t.Parallel()
	f, _, _ := phaseFixture()
	std := analyzetest.Standard()
	f.Clients = append(f.Clients, std.Clients...)
	f.Gateways = append(f.Gateways, std.Gateways...)
	f.Servers = append(f.Servers, std.Servers...)
	// requests without a start: a server record without an arrival, alone
	f.Servers = append(f.Servers, analyzetest.Server{ID: "b-no-start", End: analyzetest.At(500), Model: "m"},
		analyzetest.Server{ID: "a-no-start", End: analyzetest.At(600), Model: "m"})
	_, st, rows := runFixture(t, f, analyzetest.DefaultOffsets)
	db, err := sql.Open("duckdb", "?threads=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n, nulls, out int64
	err = db.QueryRow(`SELECT count(*), count(*) FILTER (WHERE start IS NULL),
	        count(*) FILTER (WHERE prev_start > start
	                         OR (prev_start IS NULL AND prev_id IS NOT NULL AND start IS NOT NULL)
	                         OR (prev_start IS NOT DISTINCT FROM start AND prev_id >= request_id))
	    FROM (SELECT start, request_id, lag(start) OVER w AS prev_start, lag(request_id) OVER w AS prev_id
	          FROM (SELECT start, request_id, row_number() OVER () AS pos FROM read_parquet(`+duck.Quote(st.Path)+`))
	          WINDOW w AS (ORDER BY pos))`).Scan(&n, &nulls, &out)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(len(rows)) || n < 150 || nulls != 2 {
		t.Fatalf("%d rows (%d without a start), want all %d, at least 150, 2 without a start", n, nulls, len(rows))
	}
	if out != 0 {
		t.Errorf("%d of %d rows out of (start NULLS LAST, request_id) order", out, n)
	}
}
