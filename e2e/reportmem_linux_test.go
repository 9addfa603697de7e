package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/infertrace/infertrace/internal/duck"
)

// TestReportWithinMemoryLimit: report keeps no sample set in memory (its
// percentiles come from pct_ci.sql's bucket counts and sorts, which spill),
// so at --memory-limit 64MB and one thread the report of 50,000 requests is
// the same report.md as with room, leaves no spill directory, and the peak
// RSS of the report's process rises above that of a process that does no
// work (infertrace version: the code loaded, DuckDB linked) by no more than
// the limit plus a fixed overhead (DuckDB's buffers outside its limit, the
// Parquet reader, Go's heap). At 1M requests the same command peaks at about 200
// MiB (bench/RESULTS.md).
func TestReportWithinMemoryLimit(t *testing.T) {
	t.Parallel()
	out := bigRunCopy(t)
	roomy, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	// peakRSS is the peak RSS of infertrace args (Linux counts Maxrss in
	// KiB).
	peakRSS := func(args ...string) (kb int64, code int, stdout, stderr string) {
		cmd := cliCommand(context.Background(), strings.NewReader(""), args...)
		code, stdout, stderr = runCmd(t, cmd)
		ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		if !ok {
			t.Skipf("no resource usage of the process: %T", cmd.ProcessState.SysUsage())
		}
		return ru.Maxrss, code, stdout, stderr
	}
	before, code, _, stderr := peakRSS("version")
	if code != 0 {
		t.Fatalf("version: exit %d\n%s", code, stderr)
	}
	peak, code, stdout, stderr := peakRSS("report", "--memory-limit", "64MB", "--threads", "1", out)
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
