package e2e

import (
	"context"
	"database/sql"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/infertrace/infertrace/analyze"
)

// TestServerFixturesByHand runs the analysis on the server rows of each
// server format's ingest fixture (testdata/ingest/*.txtar) and checks its
// queue, prefill, decode, server overhead and model time against the
// fixture's raw values, computed by hand below (ms). The rule: a duration
// the server measured beats one derived from its instants, and overhead =
// server E2E - queue - work (prefill + decode, else inference) rolls into
// application. Rows that log no request ID (TGI, TensorRT-LLM) are given
// one from their source line, so that every row becomes a request.
func TestServerFixturesByHand(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	type want struct{ e2e, queue, prefill, decode, overhead, model, ttftOverhead float64 }
	for _, c := range []struct {
		fixture string
		rows    map[string]want // by request ID, or file:line:engine ID
	}{
		{"sglang", map[string]want{
			// metrics line 1: e2e_latency 2.6398 s, queue_time 0.3512 s
			// (not forward_entry 0.3654 - received 0.0 = 365.4: tokenization
			// and dispatch are not queueing); prefill 0.5311 - 0.3654 = 165.7,
			// decode 2.6398 - 0.5311 = 2108.7; overhead 2639.8 - 351.2 -
			// 2274.4 = 14.2; TTFT overhead 531.1 - 351.2 - 165.7 = 14.2.
			"a1": {2639.8, 351.2, 165.7, 2108.7, 14.2, 2274.4, 14.2},
			// metrics line 4: queue_time 3.2e-05 s, no e2e_latency: e2e =
			// 1.5 - 1.0 s = 500; no work logged: no overhead, model = 500 -
			// 0.032.
			"a4": {500, 0.032, nan, nan, nan, 499.968, nan},
			// log line 2: e2e 0.5, queue 0.1, prefill 10.2 - 10.1 = 100,
			// decode 10.5 - 10.2 = 300: overhead 500 - 100 - 400 = 0.
			"b1": {500, 100, 100, 300, 0, 400, 0},
		}},
		{"tgi", map[string]want{
			// line 2: total 2639.712331, queue_time 351.2048 (not
			// validation 13.106171 + queue), inference 2275.403112:
			// overhead 2639.712331 - 351.2048 - 2275.403112 = 13.104419.
			"tgi.jsonl:2:": {2639.712331, 351.2048, nan, nan, 13.104419, 2275.403112, nan},
			// line 3: total 2.5, queue 812 ns, inference 2.1 µs: overhead
			// 2.5 - 0.000812 - 0.0021 = 2.497088 (validation 42.6 µs of it).
			"tgi.jsonl:3:": {2.5, 0.000812, nan, nan, 2.497088, 0.0021, nan},
			// line 4: total 1.000000001 s, queue 0, inference
			// 999.999999 ms: overhead 2 ns.
			"tgi.jsonl:4:": {1000.000001, 0, nan, nan, 0.000002, 999.999999, nan},
		}},
		{"vllm_otlp", map[string]want{
			// e2e 2.6398, time_in_queue 0.3512, prefill 0.1721, decode
			// 2.1033: overhead 2639.8 - 351.2 - 2275.4 = 13.2; TTFT 0.5304:
			// TTFT overhead 530.4 - 351.2 - 172.1 = 7.1.
			"4f1c2a9e-8b7d-4e21-9c3a-5d6e7f8a9b0c": {2639.8, 351.2, 172.1, 2103.3, 13.2, 2275.4, 7.1},
			// V0: e2e 2.876543211, queue 0.75, inference 1.75 (no prefill
			// or decode durations): overhead 2876.543211 - 750 - 1750 =
			// 376.543211; prefill and decode from the instants: first token
			// 02.023456789 - scheduled 01.873456789 = 150, end 04.0 - first
			// token = 1976.543211.
			"b5d0c7e2a1f34e6c9d8b7a6f5e4d3c2b": {2876.543211, 750, 150, 1976.543211, 376.543211, 1750, nan},
		}},
		{"triton", map[string]want{
			// req-1: e2e 510.005, QUEUE 10, COMPUTE 500: overhead 0.005.
			"req-1": {510.005, 10, nan, nan, 0.005, 500, nan},
		}},
		{"trtllm", map[string]want{
			// executor 7: last_token - arrival 1000, first_scheduled -
			// arrival 250, first_token - first_scheduled 250, last_token -
			// first_token 500: overhead 0; TTFT 500 - 250 - 250 = 0.
			"perf.json:5:7": {1000, 250, 250, 500, 0, 750, 0},
			// executor 3: 2626.6 - 351.2 - 172.1 - 2103.3 = 0.
			"perf.json:1:3": {2626.6, 351.2, 172.1, 2103.3, 0, 2275.4, 0},
		}},
	} {
		t.Run(c.fixture, func(t *testing.T) {
			got := analyzeServerFixture(t, filepath.Join("testdata", "ingest", c.fixture+".txtar"))
			for id, w := range c.rows {
				r, ok := got[id]
				if !ok {
					t.Errorf("%s: no request (have %d)", id, len(got))
					continue
				}
				for _, m := range []struct {
					col  string
					want float64
				}{
					{"server_e2e_ms", w.e2e}, {"queue_ms", w.queue}, {"prefill_ms", w.prefill}, {"decode_ms", w.decode},
					{"server_overhead_ms", w.overhead}, {"model_ms", w.model}, {"ttft_server_overhead_ms", w.ttftOverhead},
				} {
					v := r[m.col]
					switch {
					case math.IsNaN(m.want) && v.Valid:
						t.Errorf("%s %s = %v, want NULL", id, m.col, v.Float64)
					case !math.IsNaN(m.want) && !v.Valid:
						t.Errorf("%s %s = NULL, want %v", id, m.col, m.want)
					case !math.IsNaN(m.want) && math.Abs(v.Float64-m.want) > 1e-6:
						t.Errorf("%s %s = %v, want %v", id, m.col, v.Float64, m.want)
					}
				}
			}
		})
	}
}

// analyzeServerFixture ingests the inputs of a txtar case (its args
// section names tier and FORMAT:file), gives every server row without a
// request ID one from its source (file:line:engine ID), runs analyze and
// returns the requests' server measures by request ID.
func analyzeServerFixture(t *testing.T, path string) map[string]map[string]sql.NullFloat64 {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	in, out := t.TempDir(), t.TempDir()
	var args []string
	for _, f := range ar.Files {
		switch {
		case f.Name == "args":
			for _, l := range strings.Split(strings.TrimSpace(string(f.Data)), "\n") {
				tier, spec, ok := strings.Cut(strings.TrimSpace(l), " ")
				if !ok || (tier != "client" && tier != "gateway" && tier != "server") {
					t.Fatalf("%s: args line %q", path, l)
				}
				file := spec
				if i := strings.LastIndexByte(spec, ':'); i >= 0 {
					file = spec[i+1:]
				}
				args = append(args, "--"+tier, strings.TrimSuffix(spec, file)+filepath.Join(in, file))
			}
		case strings.HasPrefix(f.Name, "want/"):
		default:
			writeFile(t, in, f.Name, f.Data)
		}
	}
	ingested := filepath.Join(out, "ingested")
	if code, stdout, stderr := runCLI(t, append([]string{"ingest", "--out", ingested}, args...)...); code != 0 {
		t.Fatalf("ingest: exit %d\n%s\n%s", code, stdout, stderr)
	}
	dir := filepath.Join(out, "keyed")
	if err := os.MkdirAll(filepath.Join(dir, "server"), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", duckOneThread)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`COPY (SELECT * REPLACE (coalesce(nullif(request_id, ''),
	        regexp_replace(source_file, '^.*/', '') || ':' || source_line || ':' || coalesce(engine_request_id, '')) AS request_id)
	    FROM read_parquet('` + filepath.Join(ingested, "server", "*", "*.parquet") + `', hive_partitioning = false))
	    TO '` + filepath.Join(dir, "server", "part-0.parquet") + `' (FORMAT parquet)`); err != nil {
		t.Fatal(err)
	}
	// The rekeyed rows stand for the same ingest: analyze reads its manifest.
	manifest, err := os.ReadFile(filepath.Join(ingested, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := analyze.RunWith(context.Background(), dir, oneThread)
	if err != nil {
		t.Fatal(err)
	}
	cols := []string{"server_e2e_ms", "queue_ms", "prefill_ms", "decode_ms", "server_overhead_ms", "model_ms", "ttft_server_overhead_ms"}
	rows, err := db.Query(`SELECT request_id, ` + strings.Join(cols, ", ") + ` FROM read_parquet('` + st.Path + `')`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]map[string]sql.NullFloat64{}
	for rows.Next() {
		var id string
		vals := make([]sql.NullFloat64, len(cols))
		ptrs := []any{&id}
		for i := range vals {
			ptrs = append(ptrs, &vals[i])
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		m := map[string]sql.NullFloat64{}
		for i, c := range cols {
			m[c] = vals[i]
		}
		got[id] = m
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}
