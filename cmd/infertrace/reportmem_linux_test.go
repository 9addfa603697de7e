package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/internal/duck"
)

// procStatusKB reads a "Vm…:  N kB" line of /proc/self/status.
func procStatusKB(t *testing.T, key string) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, key+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("%s: %v", l, err)
			}
			return n
		}
	}
	t.Skipf("no %s in /proc/self/status", key)
	return 0
}

// TestReportWithinMemoryLimit: report keeps no sample set in memory (its
// percentiles come from pct_ci.sql's bucket counts and sorts, which spill),
// so at --memory-limit 64MB and one thread the report of 50,000 requests is
// the same report.md as with room, leaves no spill directory, and the peak
// RSS of the process rises during it by no more than the limit plus a fixed
// overhead (DuckDB's code and buffers outside its limit, the Parquet
// reader, Go's heap). At 1M requests the same command peaks at about 200
// MiB (bench/RESULTS.md).
func TestReportWithinMemoryLimit(t *testing.T) {
	out := bigRunCopy(t)
	roomy, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	debug.FreeOSMemory()
	// Writing 5 to clear_refs resets the peak RSS (VmHWM) to the current RSS.
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Skipf("cannot reset the peak RSS: %v", err)
	}
	before := procStatusKB(t, "VmRSS")
	code, stdout, stderr := runCLI(t, "report", "--memory-limit", "64MB", "--threads", "1", out)
	peak := procStatusKB(t, "VmHWM")
	if code != 0 {
		t.Fatalf("report --memory-limit 64MB: exit %d\n%s\n%s", code, stdout, stderr)
	}
	tight, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(tight, roomy) {
		t.Errorf("report.md at --memory-limit 64MB differs from the one with room")
	}
	if _, err := os.Stat(filepath.Join(out, duck.TempDirName)); !os.IsNotExist(err) {
		t.Errorf("%s left behind (%v)", duck.TempDirName, err)
	}
	const limitKB, overheadKB = 64e6 / 1024, 160 << 10
	rise := peak - before
	t.Logf("peak RSS %d MiB, %d MiB above the %d MiB before the report", peak>>10, rise>>10, before>>10)
	if rise > limitKB+overheadKB {
		t.Errorf("peak RSS rose by %d MiB during report --memory-limit 64MB: want at most the limit plus %d MiB", rise>>10, overheadKB>>10)
	}
}
