package e2e

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/infertrace/infertrace/simulate"
)

// TestReportPeriodSimulatedDays: three simulated days of the same stack
// (seeds 21, 22, 23, each starting at 10:00 UTC, steady: no burst, no
// cold replica), the third with half the
// requests on a gateway auth path 300 ms slower, ingested together into
// one DIR. report --period day lists the third day's rise of P95
// application time first, beyond the noise, and says the second day's
// P95 client E2E moved within the noise; --weekly puts all three days
// (Monday to Wednesday) in one week; without either flag the report has no
// trend.
func TestReportPeriodSimulatedDays(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	var flags []string
	for i, day := range []int{0, 1, 2} {
		cfg := simulate.DefaultConfig()
		cfg.Out = filepath.Join(root, "sim", string(rune('a'+i)))
		cfg.Requests = 2500
		cfg.Seed = int64(21 + i)
		cfg.ColdKinds, cfg.BurstMultiplier = nil, 1                    // no cold replica, no burst: one steady stack
		cfg.Epoch = time.Date(2026, 11, 30+day, 10, 0, 0, 0, time.UTC) // Monday 2026-11-30
		if day == 2 {
			cfg.SlowAuthRate, cfg.SlowAuthExtra = 0.5, 300*time.Millisecond
		}
		if _, err := simulate.Run(context.Background(), cfg, io.Discard); err != nil {
			t.Fatal(err)
		}
		for _, tier := range []string{"client", "gateway", "server"} {
			flags = append(flags, "--"+tier, "native:"+filepath.Join(cfg.Out, tier))
		}
	}
	out := filepath.Join(root, "out")
	args := append([]string{"run", "--quiet", "--threads", "1", "--format", "md", "--period", "day", "--out", out}, flags...)
	if code, _, stderr := runCLI(t, args...); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	md := readString(t, filepath.Join(out, "report.md"))
	sec := section(t, md, "## Trend by day")
	if os.Getenv("INFERTRACE_SHOW_TREND") != "" {
		t.Log(sec)
	}
	if !strings.Contains(sec, "(3: 2026-11-30 to 2026-12-02;") {
		t.Errorf("trend does not span the three days:\n%s", sec)
	}
	first := firstBullet(sec)
	if !strings.HasPrefix(first, "P95 application of all requests rose ") || !strings.Contains(first, " on 2026-12-02 against 2026-12-01 ") ||
		!strings.HasSuffix(first, "larger than the noise (worse).") {
		t.Errorf("first change = %q, want the third day's P95 application rise beyond the noise", first)
	}
	all := sec[strings.Index(sec, "### all requests"):]
	all = all[:strings.Index(all[1:], "\n### ")+1]
	for _, l := range strings.Split(all, "\n") {
		if strings.HasPrefix(l, "| 2026-12-01 |") && strings.Count(l, "**") != 0 {
			t.Errorf("the second day of all requests, the same stack, moved beyond the noise: %s", l)
		}
	}

	if code, _, stderr := runCLI(t, "report", "--quiet", "--threads", "1", "--format", "md", "--weekly", out); code != 0 {
		t.Fatalf("report --weekly: exit %d\n%s", code, stderr)
	}
	sec = section(t, readString(t, filepath.Join(out, "report.md")), "## Trend by week")
	if !strings.Contains(sec, "(1: week of 2026-11-30 to week of 2026-11-30;") || !strings.Contains(sec, "the data holds one week") ||
		!strings.Contains(sec, "| week of 2026-11-30 | 2026-11-30 ") {
		t.Errorf("--weekly: want one week from Monday 2026-11-30:\n%s", sec)
	}

	if code, _, stderr := runCLI(t, "report", "--quiet", "--threads", "1", "--format", "md", out); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	if md := readString(t, filepath.Join(out, "report.md")); strings.Contains(md, "Trend by") {
		t.Error("a report without --period has a trend")
	}
	for _, bad := range [][]string{{"--period", "month"}, {"--weekly", "--period", "day"}} {
		if code, _, stderr := runCLI(t, append([]string{"report", "--quiet"}, append(bad, out)...)...); code != 2 || !strings.Contains(stderr, "--") {
			t.Errorf("report %v: exit %d, stderr %q; want a usage error", bad, code, stderr)
		}
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// section returns the Markdown section under heading, to the next "## ".
func section(t *testing.T, md, heading string) string {
	t.Helper()
	i := strings.Index(md, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("no %q in the report", heading)
	}
	s := md[i+len(heading)+2:]
	if j := strings.Index(s, "\n## "); j >= 0 {
		s = s[:j]
	}
	return s
}

func firstBullet(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if b, ok := strings.CutPrefix(l, "- "); ok {
			return b
		}
	}
	return ""
}
