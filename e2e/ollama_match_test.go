package e2e

import (
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ollamaStack writes the logs of one Ollama server behind an Envoy gateway
// that logs the client's X-Request-Id (Envoy's default text format: start
// and duration in whole ms, no upstream times), with native client logs,
// and runs the CLI on them. Ollama logs no request ID: its final
// /api/generate objects, one per line as a proxy saved them, in Ollama's
// own shape (ingest/ollama.go), must be matched to the gateway records by
// time.
//
// The true timeline, in ms from 2026-11-30T10:00:00Z: request k (1..24)
// reaches the gateway at 3000 k, which spends pre_k = 2 + k mod 4 ms before
// forwarding and post_k = 1 + k mod 3 ms after the response; the client
// sends 10 ms before the gateway receives and has the last byte 10 ms
// after the gateway is done. Ollama's handler starts when the gateway
// forwards; it measures load, prompt eval and eval, and total_duration,
// ending 2 ms after the eval. Request 1 loads the model (load 1.8 s, a
// cold start), the others find it resident (load 5 ms). Clocks: the
// gateway runs 2.5 s ahead of the client, the Ollama host 0.2 s ahead.
//
// Besides: a request sent to Ollama directly (line 25, at 40.5 s), which no
// gateway logged, and a gateway record (line 25, at 90.5 s) that Ollama
// never saw (the gateway answered 429 itself). Neither may be matched.
// Ollama's GIN access log (gin.log, a line per request with its latency)
// is given too: its lines log no instant, so none may join.
func ollamaStack(t *testing.T) (*sql.DB, string) {
	t.Helper()
	in, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	const gwSkew, olSkew = 2500 * time.Millisecond, 200 * time.Millisecond
	ms := func(v int64) time.Duration { return time.Duration(v) * time.Millisecond }
	var gwLines, olLines, clLines, ginLines []string
	olLine := func(end time.Time, total, load, prompt, eval time.Duration, promptN, evalN int) string {
		return fmt.Sprintf(`{"model":"llama3.2","created_at":"%s","response":"","done":true,"done_reason":"stop","context":[128006,882,128007],`+
			`"total_duration":%d,"load_duration":%d,"prompt_eval_count":%d,"prompt_eval_duration":%d,"eval_count":%d,"eval_duration":%d}`,
			end.Format(time.RFC3339Nano), int64(total), int64(load), promptN, int64(prompt), evalN, int64(eval))
	}
	for k := int64(1); k <= 24; k++ {
		id := fmt.Sprintf("o%02d", k)
		at := ms(3000 * k)
		pre, post := ms(2+k%4), ms(1+k%3)
		load := 5 * time.Millisecond
		if k == 1 {
			load = 1800 * time.Millisecond
		}
		prompt := ms(120+k%5) + 250*time.Microsecond
		evalN := 50 + int(k)
		eval := time.Duration(evalN)*20*time.Millisecond - 333*time.Nanosecond
		// total: load + prompt + eval + 2 ms, up to a whole ms (so that
		// Envoy's whole-ms start and duration are exact).
		total := (load + prompt + eval + 2*time.Millisecond + time.Millisecond - 1).Truncate(time.Millisecond)
		gwE2E := pre + total + post
		olEnd := t0.Add(at + pre + total + olSkew)
		olLines = append(olLines, olLine(olEnd, total, load, prompt, eval, 512, evalN))
		ginLines = append(ginLines, fmt.Sprintf(`[GIN] %s | 200 | %13v |       10.1.4.1 | POST     "/api/generate"`,
			olEnd.Format("2006/01/02 - 15:04:05"), total))
		gwStart := t0.Add(at + gwSkew)
		gwLines = append(gwLines, fmt.Sprintf(`[%s] "POST /api/generate HTTP/1.1" 200 - 1843 61440 %d %d "10.0.0.15" "python-requests/2.32.3" "%s" "llm-gw.example.internal" "10.1.4.23:11434"`,
			gwStart.Format("2006-01-02T15:04:05.000Z"), gwE2E.Milliseconds(), (pre+total).Milliseconds(), id))
		clLines = append(clLines, fmt.Sprintf(`{"request_id":"%s","start":"%s","end":"%s","status":200,"streamed":false,"model":"llama3.2","use_case":"chat","client":"web-1","region":"eu-west"}`,
			id, t0.Add(at-ms(10)).Format(time.RFC3339Nano), t0.Add(at+gwE2E+ms(10)).Format(time.RFC3339Nano)))
	}
	// The direct request: 40.5 s, total 700 ms.
	olLines = append(olLines, olLine(t0.Add(ms(40500+700)+olSkew), ms(700), ms(5), ms(100), ms(590), 26, 30))
	// The 429: 90.5 s, 1 ms at the gateway, no upstream.
	gwLines = append(gwLines, fmt.Sprintf(`[%s] "POST /api/generate HTTP/1.1" 429 - 1843 18 1 - "10.0.0.15" "python-requests/2.32.3" "r429" "llm-gw.example.internal" "-"`,
		t0.Add(ms(90500)+gwSkew).Format("2006-01-02T15:04:05.000Z")))
	for name, lines := range map[string][]string{"gateway.log": gwLines, "ollama.jsonl": olLines, "client.jsonl": clLines, "gin.log": ginLines} {
		if err := os.WriteFile(filepath.Join(in, name), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := runCLI(t, "run", "--client", filepath.Join(in, "client.jsonl"),
		"--gateway", filepath.Join(in, "gateway.log"), "--server", filepath.Join(in, "ollama.jsonl"), "--server", filepath.Join(in, "gin.log"), "--out", out)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	report, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", duckOneThread)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec("CREATE VIEW requests AS SELECT * FROM read_parquet('" + filepath.Join(out, "requests.parquet") + "')"); err != nil {
		t.Fatal(err)
	}
	return db, string(report)
}

// ollamaRows reads the named columns of every request, by request ID.
func ollamaRows(t *testing.T, db *sql.DB, cols ...string) map[string]map[string]any {
	t.Helper()
	rows, err := db.Query("SELECT request_id, " + strings.Join(cols, ", ") + " FROM requests")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]map[string]any{}
	for rows.Next() {
		var id string
		vals := make([]any, len(cols))
		ptrs := []any{&id}
		for i := range vals {
			ptrs = append(ptrs, &vals[i])
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		m := map[string]any{}
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

// TestOllamaMatchedByTime: every Ollama final object is matched to its own
// gateway record by time (the offset between the two hosts estimated from
// the data, as for TGI), the direct request and the gateway's 429 are left
// alone, and the components of two requests are as computed by hand.
func TestOllamaMatchedByTime(t *testing.T) {
	t.Parallel()
	db, report := ollamaStack(t)
	// Data quality: 24 of the 25 distinct final objects matched (the
	// direct request is the 25th), none ambiguous; the 24 GIN lines join
	// nothing, and the report says why.
	for _, want := range []string{
		"24 of 25 ollama-json records (96.0%) were matched to a gateway record by time",
		"0 of the matches were ambiguous",
		"Only 0 of 24 ollama-gin server records (0.0%) joined a gateway or client record: Ollama's GIN access lines log no request ID, and their own time has no zone",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report.md does not say %q", want)
		}
	}
	// What each server format gave: 25 ollama-json rows, none with an ID or
	// a queue, all with prefill, decode and tokens; 24 requests joined, all
	// matched by time, of 25 matchable. The GIN lines give nothing.
	for _, want := range []string{
		"| ollama-json | 25 | 0 | 0 | 25 | 25 | 0 | 0 | 25 | 24 | 0 | 24 | 25 | 0 | 0 |",
		"| ollama-gin | 24 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 |",
	} {
		if !strings.Contains(report, want+"\n") {
			t.Errorf("report.md has no server format row %q", want)
		}
	}
	got := ollamaRows(t, db, "server_join", "server_source", "server_format", "has_server",
		"client_e2e_ms", "gateway_e2e_ms", "network_ms", "application_ms", "queue_ms", "model_ms",
		"prefill_ms", "decode_ms", "server_e2e_ms", "server_overhead_ms")
	for k := 1; k <= 24; k++ {
		id := fmt.Sprintf("o%02d", k)
		r := got[id]
		if r == nil {
			t.Errorf("%s: no request", id)
			continue
		}
		src, _ := r["server_source"].(string)
		if r["server_join"] != "time" || !strings.HasSuffix(src, fmt.Sprintf("ollama.jsonl:%d", k)) || r["server_format"] != "ollama-json" {
			t.Errorf("%s: server_join %v, source %v, format %v; want time, ollama.jsonl:%d, ollama-json", id, r["server_join"], r["server_source"], r["server_format"], k)
		}
	}
	if r := got["r429"]; r == nil || r["has_server"] != false {
		t.Errorf("the gateway's 429 got a server record: %v", r)
	}
	for id, r := range got {
		if src, _ := r["server_source"].(string); strings.HasSuffix(src, "ollama.jsonl:25") {
			t.Errorf("the direct request (ollama.jsonl:25) was matched to %s", id)
		}
	}
	// o02: pre 2 + 2 mod 4 = 4 ms, post 1 + 2 mod 3 = 3 ms; load 5 ms,
	// prompt eval 120 + 2 mod 5 = 122.25 ms, eval 52 tokens x 20 ms - 333 ns
	// = 1039.999667 ms; total 5 + 122.25 + 1039.999667 + 2 = 1169.249667,
	// up to the ms: 1170. Gateway 4 + 1170 + 3 = 1177, client 1197, network
	// 20. Server overhead 1170 - 5 - 122.25 - 1039.999667 = 2.750333;
	// application 1177 - 1170 + 2.750333 + load 5 = 14.750333 (the model
	// load is the server's non-model time, never queue or prefill); model
	// = prefill + decode = 1162.249667; queue: Ollama logs none (NULL).
	// Check: 20 + 14.750333 + 1162.249667 = 1197.
	// o01: pre 3, post 2; load 1800, prompt 121.25, eval 51 x 20 ms - 333
	// ns = 1019.999667; total 2943.249667 up to 2944; gateway 3 + 2944 + 2
	// = 2949, client 2969; overhead 2944 - 1800 - 121.25 - 1019.999667 =
	// 2.750333; application 2949 - 2944 + 2.750333 + 1800 = 1807.750333;
	// model 1141.249667.
	nan := math.NaN()
	for id, want := range map[string]map[string]float64{
		"o02": {"client_e2e_ms": 1197, "gateway_e2e_ms": 1177, "network_ms": 20, "server_e2e_ms": 1170,
			"server_overhead_ms": 2.750333, "application_ms": 14.750333, "queue_ms": nan, "model_ms": 1162.249667,
			"prefill_ms": 122.25, "decode_ms": 1039.999667},
		"o01": {"client_e2e_ms": 2969, "gateway_e2e_ms": 2949, "network_ms": 20, "server_e2e_ms": 2944,
			"server_overhead_ms": 2.750333, "application_ms": 1807.750333, "queue_ms": nan, "model_ms": 1141.249667,
			"prefill_ms": 121.25, "decode_ms": 1019.999667},
	} {
		for col, w := range want {
			v, ok := got[id][col].(float64)
			switch {
			case math.IsNaN(w) && got[id][col] != nil:
				t.Errorf("%s %s = %v, want NULL", id, col, got[id][col])
			case !math.IsNaN(w) && (!ok || math.Abs(v-w) > 1e-6):
				t.Errorf("%s %s = %v, want %v", id, col, got[id][col], w)
			}
		}
	}
}

// TestOllamaColdLoad: Ollama's load_duration is its own column, load_ms,
// never prefill or queue, and a large one is a cold start. Request 1 of
// ollamaStack loads the model for 1.8 s, the other 23 find it resident (5
// ms): the host's usual load is 5 ms, and 1.8 s is at least 2.5 times that
// and at least 100 ms, so the first request is slow on load alone (its
// prefill, 121.25 ms, and its decode per token are as usual) and opens the
// host's warm-up; request 2 is not slow and ends it. So o01 is cold and
// every other request steady; o01's prefill is its prompt eval alone.
func TestOllamaColdLoad(t *testing.T) {
	t.Parallel()
	db, _ := ollamaStack(t)
	got := ollamaRows(t, db, "phase", "load_ms", "prefill_ms", "queue_ms")
	for k := 1; k <= 24; k++ {
		id := fmt.Sprintf("o%02d", k)
		want, load := "steady", 5.0
		if k == 1 {
			want, load = "cold", 1800
		}
		r := got[id]
		if r == nil {
			t.Fatalf("%s: no request", id)
		}
		if r["phase"] != want {
			t.Errorf("%s: phase %v, want %s", id, r["phase"], want)
		}
		if v, ok := r["load_ms"].(float64); !ok || math.Abs(v-load) > 1e-9 {
			t.Errorf("%s: load_ms %v, want %v", id, r["load_ms"], load)
		}
		if r["queue_ms"] != nil {
			t.Errorf("%s: queue_ms %v, want NULL (Ollama logs no queue apart from its load)", id, r["queue_ms"])
		}
	}
	if v, _ := got["o01"]["prefill_ms"].(float64); math.Abs(v-121.25) > 1e-9 {
		t.Errorf("o01: prefill_ms %v, want 121.25 (the prompt eval; the load is not prefill)", got["o01"]["prefill_ms"])
	}
}
