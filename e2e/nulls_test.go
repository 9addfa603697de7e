package e2e

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSparseFirstTokens: a client log of 1,024 requests in which only every
// 64th (lines i%64 == 1) is streamed and logs a first token. The other
// requests must have no first token: NULL client TTFT, no per-user tokens/s,
// no anomaly. A writer that stores a NULL time as 0 in a 64-row block gives
// 992 requests a first token at 1970-01-01 and a TTFT of about -1.8e12 ms.
func TestSparseFirstTokens(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	const t0 = 1796032800 // 2026-12-01T10:00:00Z
	for i := range 1024 {
		start := float64(t0) + float64(i)*0.5
		if i%64 == 1 {
			fmt.Fprintf(&b, `{"request_id":"r%d","start":%.3f,"first_token":%.3f,"end":%.3f,"streamed":true,"output_tokens":100,"status":200}`+"\n",
				i, start, start+0.25, start+2.25)
		} else {
			fmt.Fprintf(&b, `{"request_id":"r%d","start":%.3f,"end":%.3f,"streamed":false,"status":200}`+"\n", i, start, start+1)
		}
	}
	in := filepath.Join(dir, "client.jsonl")
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if code, stdout, stderr := runCLI(t, "ingest", "--client", in, "--out", out); code != 0 {
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
	var n, ttfts, tps, anomalous int
	var minTTFT, maxTTFT, minTPS, maxTPS sql.NullFloat64
	err = db.QueryRow(`SELECT count(*), count(client_ttft_ms), count(tps_user), count(anomaly),
		min(client_ttft_ms), max(client_ttft_ms), min(tps_user), max(tps_user)
		FROM read_parquet(?)`, filepath.Join(out, "requests.parquet")).
		Scan(&n, &ttfts, &tps, &anomalous, &minTTFT, &maxTTFT, &minTPS, &maxTPS)
	if err != nil {
		t.Fatal(err)
	}
	// 16 streamed requests: TTFT 250 ms; the 99 tokens after the first over
	// the 2 s after it: 49.5 tokens/s.
	if n != 1024 || ttfts != 16 || tps != 16 || anomalous != 0 {
		t.Errorf("%d requests, %d with a client TTFT, %d with tokens/s, %d anomalous; want 1024, 16, 16, 0", n, ttfts, tps, anomalous)
	}
	if minTTFT.Float64 != 250 || maxTTFT.Float64 != 250 || minTPS.Float64 != 49.5 || maxTPS.Float64 != 49.5 {
		t.Errorf("client TTFT %v–%v ms, tokens/s %v–%v; want 250 ms and 49.5/s", minTTFT, maxTTFT, minTPS, maxTPS)
	}
}
