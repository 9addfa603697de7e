package e2e

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPartitionInsideSession: traffic that never pauses across midnight is
// one session, which the partitions by day cut at midnight. Each part then
// needs the other's facts: analyze --partition refuses, saying to run
// --facts first; after analyze --facts of both parts, the two parts (both
// holding requests) give the whole pass's report.
func TestPartitionInsideSession(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	sim := filepath.Join(tmp, "sim")
	// 400 requests at 0.1 a second from 23:10: 67 minutes, across midnight.
	if code, _, stderr := runCLI(t, "simulate", "--out", sim, "--requests", "400", "--seed", "3", "--rate", "0.1",
		"--start", "2026-11-30T23:10:00Z"); code != 0 {
		t.Fatalf("simulate: exit %d\n%s", code, stderr)
	}
	parts := filepath.Join(tmp, "s")
	args := []string{"ingest", "--quiet", "--out", parts}
	for _, tier := range []string{"client", "gateway", "server"} {
		args = append(args, "--"+tier, filepath.Join(sim, tier, "*"))
	}
	if code, _, stderr := runCLI(t, args...); code != 0 {
		t.Fatalf("ingest: exit %d\n%s", code, stderr)
	}
	whole := parts + "-whole"
	cpR(t, parts, whole)
	if code, _, stderr := runCLI(t, "analyze", "--quiet", "--threads", "1", whole); code != 0 {
		t.Fatalf("analyze: exit %d\n%s", code, stderr)
	}

	code, _, stderr := runCLI(t, "analyze", "--quiet", "--threads", "1", parts, "--partition", "1/2")
	if code == 0 || !strings.Contains(stderr, "--facts") || !strings.Contains(stderr, "inside a session") {
		t.Fatalf("analyze --partition 1/2 before the facts: exit %d, want a failure saying to run --facts first\n%s", code, stderr)
	}
	for _, i := range []string{"0/2", "1/2"} {
		code, stdout, stderr := runCLI(t, "analyze", "--quiet", "--threads", "1", parts, "--facts", "--partition", i)
		if code != 0 || !strings.Contains(stdout, "wrote the facts of part") {
			t.Fatalf("analyze --facts --partition %s: exit %d\n%s%s", i, code, stdout, stderr)
		}
	}
	// The two parts at once: each makes the store's yardsticks from the
	// facts, side by side.
	analyzeParts(t, parts, 2, 0, 1)
	db, err := sql.Open("duckdb", duckOneThread)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	total := 0
	for i := range 2 {
		var n int
		part := filepath.Join(parts, "requests", fmt.Sprintf("part-%d-of-2.parquet", i))
		if err := db.QueryRow("SELECT count(*) FROM read_parquet('" + part + "')").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Errorf("part %d holds no request: the session was not cut", i)
		}
		total += n
	}
	if total != 400 {
		t.Errorf("the parts hold %d requests, want 400", total)
	}
	for _, dir := range []string{whole, parts} {
		if code, _, stderr := runCLI(t, "report", "--quiet", "--threads", "1", dir, "--format", "md"); code != 0 {
			t.Fatalf("report %s: exit %d\n%s", dir, code, stderr)
		}
	}
	md, err := os.ReadFile(filepath.Join(whole, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(parts, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != strings.ReplaceAll(string(md), whole, parts) {
		t.Errorf("report.md of the parts differs from the whole pass's:\n%s\n---\n%s", got, md)
	}
}
