package e2e

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/internal/duck"
)

// dirBytes is the total size of the files under dir (0 when it is absent).
func dirBytes(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// bigRun is a simulation of 50,000 requests (seed 5) with the whole
// pipeline run on it, built once for the tests that need a store larger
// than a tight memory limit; each gets a copy of its own (bigRunCopy).
var bigRun struct {
	once sync.Once
	root string // removed by TestMain (removeBigRun)
	out  string
	err  string
}

// bigRunCopy returns a copy of bigRun's output directory in the test's
// own temporary directory.
func bigRunCopy(t *testing.T) string {
	t.Helper()
	bigRun.once.Do(func() {
		bigRun.err = "the test that simulated it stopped"
		root, err := os.MkdirTemp("", "infertrace-big-")
		if err != nil {
			bigRun.err = err.Error()
			return
		}
		bigRun.root = root
		sim, out := filepath.Join(root, "sim"), filepath.Join(root, "out")
		if code, stdout, stderr := runCLI(t, "simulate", "--out", sim, "--requests", "50000", "--seed", "5"); code != 0 {
			bigRun.err = fmt.Sprintf("simulate: exit %d\n%s\n%s", code, stdout, stderr)
			return
		}
		code, stdout, stderr := runCLI(t, "run",
			"--client", filepath.Join(sim, "client", "*"),
			"--gateway", filepath.Join(sim, "gateway", "*"),
			"--server", filepath.Join(sim, "server", "*"),
			"--out", out)
		if code != 0 {
			bigRun.err = fmt.Sprintf("run: exit %d\n%s\n%s", code, stdout, stderr)
			return
		}
		t.Logf("simulated 50000 requests with seed 5; %s", strings.TrimSpace(stdout))
		bigRun.out, bigRun.err = out, ""
	})
	if bigRun.err != "" {
		t.Fatal(bigRun.err)
	}
	out := filepath.Join(t.TempDir(), "out")
	if err := os.CopyFS(out, os.DirFS(bigRun.out)); err != nil {
		t.Fatal(err)
	}
	return out
}

// removeBigRun removes what bigRunCopy simulated; TestMain calls it.
func removeBigRun() {
	if bigRun.root != "" {
		os.RemoveAll(bigRun.root)
	}
}

// TestAnalyzeSpillsWithinMemoryLimit: with a memory limit far below what
// the analysis of 50,000 requests holds, analyze spills into DIR/.duckdb-tmp
// instead of failing, writes the same requests.parquet row for row as a run
// without a tight limit, and removes the spill directory when it is done.
func TestAnalyzeSpillsWithinMemoryLimit(t *testing.T) {
	t.Parallel()
	out := bigRunCopy(t)
	// The run that made the store analyzed it at the default limit
	// (duck.DefaultMemoryLimit, 1 GiB) and one thread per core: room
	// enough, so its requests.parquet is the analysis with room, and
	// analyzing the same store again would only repeat it.
	roomy := filepath.Join(t.TempDir(), "roomy.parquet")
	if err := os.Rename(filepath.Join(out, analyze.RequestsFile), roomy); err != nil {
		t.Fatal(err)
	}

	tmp := filepath.Join(out, duck.TempDirName)
	var peak atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			if n := dirBytes(tmp); n > peak.Load() {
				peak.Store(n)
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	code, stdout, stderr := runCLI(t, "analyze", "--memory-limit", "128MB", "--threads", "1", out)
	close(stop)
	wg.Wait()
	if code != 0 {
		t.Fatalf("analyze --memory-limit 128MB: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if peak.Load() == 0 {
		t.Errorf("analyze --memory-limit 128MB spilled nothing into %s", tmp)
	}
	t.Logf("spilled up to %d MB", peak.Load()>>20)
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("%s left behind (%v)", tmp, err)
	}

	db, err := sql.Open("duckdb", duckOneThread)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var rows, differ int64
	q := `WITH a AS (SELECT row_number() OVER () AS row, * FROM read_parquet(?)),
	           b AS (SELECT row_number() OVER () AS row, * FROM read_parquet(?))
	      SELECT (SELECT count(*) FROM a),
	             (SELECT count(*) FROM (SELECT * FROM a EXCEPT ALL SELECT * FROM b))
	           + (SELECT count(*) FROM (SELECT * FROM b EXCEPT ALL SELECT * FROM a))`
	if err := db.QueryRow(q, roomy, filepath.Join(out, analyze.RequestsFile)).Scan(&rows, &differ); err != nil {
		t.Fatal(err)
	}
	if rows < 49000 || differ != 0 {
		t.Errorf("spilling run: %d rows, %d differ from the run with room (row for row, in order)", rows, differ)
	}
}

// TestResourceFlags: analyze, report and run refuse a memory limit they
// cannot read, or one too small for DuckDB, and threads out of range, as
// usage errors.
func TestResourceFlags(t *testing.T) {
	t.Parallel()
	// Threads beyond the bound are refused at once, naming it (100000 ran
	// 87 s into an out-of-memory error).
	for _, args := range [][]string{
		{"analyze", "--threads", "100000", "x"},
		{"report", "--threads", fmt.Sprint(duck.MaxThreads + 1), "x"},
		{"run", "--threads", "100000", "--client", "x", "--out", "y"},
	} {
		code, _, stderr := runCLI(t, args...)
		if want := fmt.Sprintf("--threads %s: want 1 to %d", args[2], duck.MaxThreads); code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("%v: exit %d, stderr %q; want a usage error saying %q", args, code, stderr, want)
		}
	}
	for _, args := range [][]string{
		{"analyze", "--memory-limit", "lots", "x"},
		{"report", "--memory-limit", "1MB", "x"},
		{"analyze", "--threads", "-1", "x"},
		{"run", "--memory-limit", "2 parsecs", "--client", "x", "--out", "y"},
	} {
		code, _, stderr := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, "--") {
			t.Errorf("%v: exit %d, stderr %q; want a usage error", args, code, stderr)
		}
	}
	for in, want := range map[string]int64{"1GiB": 1 << 30, "1.5GB": 1500000000, "512 MiB": 512 << 20, "2147483648": 1 << 31, "100mb": 100e6} {
		if got, err := duck.ParseMemory(in); err != nil || got != want {
			t.Errorf("ParseMemory(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}

// TestOutOfMemory: a step that runs out of a tiny --memory-limit says so
// on one line with the first line of DuckDB's reason (which step runs out
// first depends on the machine: the ID-less gateway match or a step of
// requests.parquet), then what infertrace's
// flags can do about it: no DuckDB advice in SQL, no escaped line breaks.
func TestOutOfMemory(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	if code, stdout, stderr := runCLI(t, append(append([]string{"ingest"}, simulateInputs(t, 1, 3000)...), "--out", out)...); code != 0 {
		t.Fatalf("ingest: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, _, stderr := runCLI(t, "analyze", "--memory-limit", "16MiB", "--threads", "2", "-q", out)
	if code == 0 {
		t.Skip("analyze fitted in 16 MiB: no out-of-memory error to look at (TestOutOfMemoryMessage covers the text)")
	}
	lines := strings.Split(stderr, "\n")
	first := lines[len(lines)-1]
	for i, l := range lines {
		if strings.HasPrefix(l, "infertrace analyze: ") {
			first = strings.Join(lines[i:], "\n")
			break
		}
	}
	if code != 1 || !regexp.MustCompile(`^infertrace analyze: (write requests.parquet: step [\w/.]+|match gateway records without a request ID: \w+): out of memory: [^\n]+ used\)\n`).MatchString(first) {
		t.Errorf("exit %d, stderr:\n%s\nwant the step and DuckDB's reason on the first line", code, stderr)
	}
	for _, bad := range []string{`\x0a`, "SET ", "Possible solutions"} {
		if strings.Contains(stderr, bad) {
			t.Errorf("stderr has %q:\n%s", bad, stderr)
		}
	}
	for _, flag := range []string{"--memory-limit SIZE", "--threads N", "--from T --to T"} {
		if !strings.Contains(first, flag) {
			t.Errorf("stderr does not suggest %s:\n%s", flag, stderr)
		}
	}
}
