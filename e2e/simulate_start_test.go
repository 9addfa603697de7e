package e2e

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSimulateStart: --start moves the whole simulated traffic, so that one
// batch can follow another in an appended store; a time that is not RFC
// 3339 is a usage error.
func TestSimulateStart(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "sim")
	start := time.Date(2027, 1, 5, 6, 0, 0, 0, time.UTC)
	if code, _, stderr := runCLI(t, "simulate", "--out", out, "--requests", "200", "--start", start.Format(time.RFC3339)); code != 0 {
		t.Fatalf("simulate --start: exit %d\n%s", code, stderr)
	}
	db, err := sql.Open("duckdb", duckOneThread)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var first, last time.Time
	var n int
	if err := db.QueryRow(`SELECT min(client_start), max(client_start), count(*) FROM read_parquet(?)`,
		filepath.Join(out, "truth.parquet")).Scan(&first, &last, &n); err != nil {
		t.Fatal(err)
	}
	// 200 requests at the default 12 req/s (a 6× burst only from 40 s)
	// arrive within the first minute after the start.
	if n != 200 || first.Before(start) || !last.Before(start.Add(time.Minute)) {
		t.Errorf("%d requests from %s to %s; want 200 within a minute from %s", n, first, last, start)
	}

	code, _, stderr := runCLI(t, "simulate", "--out", out, "--start", "tomorrow")
	if code != 2 || !strings.Contains(stderr, `--start "tomorrow": want an RFC 3339 time`) {
		t.Errorf("--start tomorrow: exit %d, %q; want 2 and the RFC 3339 hint", code, stderr)
	}
}
