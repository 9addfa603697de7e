package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// partStore simulates two batches (one across midnight, one a day and a
// half later: two windows of analyze.Partitions) and ingests them into
// DIR/s, the second with --append; it returns DIR/s and the third batch's
// simulated directory, for a later ingest.
func partStore(t *testing.T) (store, third string) {
	t.Helper()
	tmp := t.TempDir()
	for k, start := range []string{"2026-11-30T23:40:00Z", "2026-12-02T10:00:00Z", "2026-12-04T10:00:00Z"} {
		out := filepath.Join(tmp, fmt.Sprint(k))
		if code, _, stderr := runCLI(t, "simulate", "--out", out, "--requests", "300", "--seed", fmt.Sprint(k+1), "--start", start); code != 0 {
			t.Fatalf("simulate: exit %d\n%s", code, stderr)
		}
	}
	store = filepath.Join(tmp, "s")
	for k := range 2 {
		args := []string{"ingest", "--quiet", "--out", store}
		if k > 0 {
			args = append(args, "--append")
		}
		for _, tier := range []string{"client", "gateway", "server"} {
			args = append(args, "--"+tier, filepath.Join(tmp, fmt.Sprint(k), tier, "*"))
		}
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Fatalf("ingest: exit %d\n%s", code, stderr)
		}
	}
	return store, filepath.Join(tmp, "2")
}

// analyzeParts runs analyze --partition i/n for each i, as processes of
// their own at the same time.
func analyzeParts(t *testing.T, dir string, n int, is ...int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]string, len(is))
	for k, i := range is {
		wg.Go(func() {
			var stderr bytes.Buffer
			cmd := exec.Command(bin, "analyze", "--quiet", "--threads", "1", dir, "--partition", fmt.Sprintf("%d/%d", i, n))
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				errs[k] = fmt.Sprintf("analyze --partition %d/%d: %v\n%s", i, n, err, stderr.String())
			}
		})
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Fatal(e)
		}
	}
}

func cpR(t *testing.T, from, to string) {
	t.Helper()
	if out, err := exec.Command("cp", "-r", from, to).CombinedOutput(); err != nil {
		t.Fatalf("cp -r %s %s: %v\n%s", from, to, err, out)
	}
}

// TestPartitionReportEqualsWholePass: the report of three parts analyzed
// side by side (one of them empty: the store has two windows) is the report
// of one whole analysis.
func TestPartitionReportEqualsWholePass(t *testing.T) {
	t.Parallel()
	parts, _ := partStore(t)
	whole := parts + "-whole"
	cpR(t, parts, whole)
	if code, _, stderr := runCLI(t, "analyze", "--quiet", "--threads", "1", whole); code != 0 {
		t.Fatalf("analyze: exit %d\n%s", code, stderr)
	}
	analyzeParts(t, parts, 3, 0, 1, 2)
	for i := range 3 {
		if _, err := os.Stat(filepath.Join(parts, "requests", fmt.Sprintf("part-%d-of-3.parquet", i))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(parts, "requests.parquet")); err == nil {
		t.Fatal("analyze --partition wrote requests.parquet")
	}
	for _, dir := range []string{whole, parts} {
		if code, _, stderr := runCLI(t, "report", "--quiet", "--threads", "1", dir, "--format", "md,json"); code != 0 {
			t.Fatalf("report %s: exit %d\n%s", dir, code, stderr)
		}
	}
	read := func(dir, name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	md := string(read(whole, "report.md"))
	if !strings.Contains(md, "600") {
		t.Errorf("the whole pass's report.md does not count the 600 requests:\n%s", md)
	}
	if got := string(read(parts, "report.md")); got != strings.ReplaceAll(md, whole, parts) {
		t.Errorf("report.md of the parts differs from the whole pass's:\n%s\n---\n%s", got, md)
	}
	// report.json equal but for the last bits of a mean: DuckDB sums
	// doubles in the order it reads them, which two files change.
	var a, b any
	if err := json.Unmarshal(read(whole, "report.json"), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(bytes.ReplaceAll(read(parts, "report.json"), []byte(parts), []byte(whole)), &b); err != nil {
		t.Fatal(err)
	}
	if path, ok := nearlyEqual(a, b, ""); !ok {
		t.Errorf("report.json of the parts differs from the whole pass's at %s", path)
	}
}

// nearlyEqual compares decoded JSON, numbers within a relative 1e-12.
func nearlyEqual(a, b any, path string) (string, bool) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return path, false
		}
		for k, v := range x {
			if p, ok := nearlyEqual(v, y[k], path+"."+k); !ok {
				return p, false
			}
		}
		return "", true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return path, false
		}
		for i := range x {
			if p, ok := nearlyEqual(x[i], y[i], fmt.Sprintf("%s[%d]", path, i)); !ok {
				return p, false
			}
		}
		return "", true
	case float64:
		y, ok := b.(float64)
		if !ok || math.Abs(x-y) > 1e-12*math.Max(math.Abs(x), math.Abs(y)) {
			return fmt.Sprintf("%s: %v != %v", path, a, b), false
		}
		return "", true
	}
	return path, reflect.DeepEqual(a, b)
}

// TestPartitionErrors: a report refuses parts that are missing, stale (an
// ingest ran since) or beside a whole requests.parquet, naming them; a bad
// --partition is a usage error.
func TestPartitionErrors(t *testing.T) {
	t.Parallel()
	dir, third := partStore(t)
	for _, args := range [][]string{
		{"--partition", "3/3"}, {"--partition", "-1/3"}, {"--partition", "1"}, {"--partition", "a/b"}, {"--partition", "0/0"},
		{"--partition", "0/2", "--partitions", "2"}, {"--partitions", "2"}, {"--partition", "0/2", "--from", "2026-12-01"},
	} {
		code, _, stderr := runCLI(t, append([]string{"analyze", dir}, args...)...)
		if code != 2 || !strings.Contains(stderr, "--partition") {
			t.Errorf("analyze %v: exit %d, want 2 (usage)\n%s", args, code, stderr)
		}
	}
	cmd := exec.Command(bin, "analyze", "--quiet", "--threads", "1", dir, "--partitions", "2")
	cmd.Env = append(os.Environ(), "JOB_COMPLETION_INDEX=5")
	if out, err := cmd.CombinedOutput(); cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "JOB_COMPLETION_INDEX") {
		t.Errorf("--partitions 2 with JOB_COMPLETION_INDEX=5: %v\n%s", err, out)
	}
	// Part 0 of 2 from JOB_COMPLETION_INDEX; part 1 missing.
	cmd = exec.Command(bin, "analyze", "--quiet", "--threads", "1", dir, "--partitions", "2")
	cmd.Env = append(os.Environ(), "JOB_COMPLETION_INDEX=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("--partitions 2 with JOB_COMPLETION_INDEX=0: %v\n%s", err, out)
	}
	part := func(i, n int) string {
		return filepath.Join(dir, "requests", fmt.Sprintf("part-%d-of-%d.parquet", i, n))
	}
	if _, err := os.Stat(part(0, 2)); err != nil {
		t.Fatal(err)
	}
	report := func(want ...string) {
		t.Helper()
		code, _, stderr := runCLI(t, "report", "--quiet", "--threads", "1", dir)
		if code == 0 {
			t.Fatalf("report: exit 0, want an error saying %q", want)
		}
		for _, w := range want {
			if !strings.Contains(stderr, w) {
				t.Errorf("report: stderr does not say %q:\n%s", w, stderr)
			}
		}
	}
	report("part-1-of-2.parquet", "missing", "--partition 1/2")
	// A part from before an ingest.
	analyzeParts(t, dir, 2, 1)
	if code, _, stderr := runCLI(t, "report", "--quiet", "--threads", "1", dir); code != 0 {
		t.Fatalf("report of 2 parts: exit %d\n%s", code, stderr)
	}
	// An --append removes the parts, as it removes requests.parquet; a
	// part that a job wrote before it (here: put back) is refused as stale.
	before, err := os.ReadFile(part(1, 2))
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"ingest", "--quiet", "--append", "--out", dir}
	for _, tier := range []string{"client", "gateway", "server"} {
		args = append(args, "--"+tier, filepath.Join(third, tier, "*"))
	}
	if code, _, stderr := runCLI(t, args...); code != 0 {
		t.Fatalf("ingest --append: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "requests")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ingest --append left %s: %v", filepath.Join(dir, "requests"), err)
	}
	analyzeParts(t, dir, 2, 0)
	report("part-1-of-2.parquet", "missing", "--partition 1/2")
	if err := os.WriteFile(part(1, 2), before, 0o644); err != nil {
		t.Fatal(err)
	}
	report(part(1, 2), "stale", "--partition 1/2")
	if _, err := os.Stat(part(0, 2)); err != nil {
		t.Fatal(err)
	}
	// Parts of another N are removed by a part; a whole requests.parquet
	// beside parts is refused.
	analyzeParts(t, dir, 3, 2)
	if _, err := os.Stat(part(0, 2)); err == nil {
		t.Error("analyze --partition 2/3 left part-0-of-2.parquet")
	}
	if err := os.WriteFile(filepath.Join(dir, "requests.parquet"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	report(filepath.Join(dir, "requests.parquet"), part(2, 3), "both")
	// A whole analysis removes the parts.
	if code, _, stderr := runCLI(t, "analyze", "--quiet", "--threads", "1", dir); code != 0 {
		t.Fatalf("analyze: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(part(2, 3)); err == nil {
		t.Error("analyze left part-2-of-3.parquet")
	}
	if code, _, stderr := runCLI(t, "report", "--quiet", "--threads", "1", dir); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
}
