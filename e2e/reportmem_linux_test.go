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
// RSS of the report's process, from its start, is no more than the limit
// plus a fixed overhead (DuckDB's code and buffers outside its limit, the Parquet
// reader, Go's heap). At 1M requests the same command peaks at about 200
// MiB (bench/RESULTS.md).
func TestReportWithinMemoryLimit(t *testing.T) {
	out := bigRunCopy(t)
	roomy, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := cliCommand(context.Background(), strings.NewReader(""), "report", "--memory-limit", "64MB", "--threads", "1", out)
	code, stdout, stderr := runCmd(t, cmd)
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Skipf("no resource usage of the process: %T", cmd.ProcessState.SysUsage())
	}
	// The process did not exist before the report: all its peak RSS
	// (Linux counts Maxrss in KiB) is the rise.
	peak, before := ru.Maxrss, int64(0)
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
