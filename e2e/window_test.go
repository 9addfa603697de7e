package e2e

import (
	"strings"
	"testing"
)

// Every --from and --to (report, explain, compare's sides, whatif,
// analyze) takes HH:MM[:SS] on the data's first day, a date or RFC 3339; a reversed or empty window is refused with the data's own
// window (testdata/native: requests start from 09:59:58.158496 to
// 10:00:47.887992 on 2026-11-30), before anything is rewritten.
func TestWindowSyntax(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	if code, _, stderr := runCLI(t, "run",
		"--client", "testdata/native/client/*.jsonl",
		"--gateway", "testdata/native/gateway/*.jsonl",
		"--server", "testdata/native/server/*",
		"--from", "2026-11-30", "--format", "md", "--quiet", "--out", out); code != 0 {
		t.Fatalf("run --from 2026-11-30: exit %d: %s", code, stderr)
	}
	for _, args := range [][]string{
		{"report", out, "--from", "10:00", "--to", "10:00:30", "--format", "md", "--quiet"},
		{"report", out, "--from", "2026-11-30", "--to", "2026-11-30T10:00:30Z", "--format", "md", "--quiet"},
		{"explain", out, "--from", "2026-11-30", "--to", "10:00:30", "--limit", "1", "--quiet"},
		{"compare", out, "--baseline", "2026-11-30/10:00:20", "--target", "10:00:20-10:01", "--quiet"},
		{"whatif", out, "--from", "10:00", "--to", "2026-11-30T10:00:40Z", "--quiet"},
	} {
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
	data := "the data's requests start from 2026-11-30T09:59:58.158496Z to 2026-11-30T10:00:47.887992Z\n"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"report", out, "--from", "10:05", "--to", "10:01"},
			"infertrace report: the window is empty: --from 2026-11-30T10:05:00Z is not before --to 2026-11-30T10:01:00Z; " + data},
		{[]string{"report", out, "--from", "2026-12-01"},
			"infertrace report: no request starts in the window [2026-12-01T00:00:00Z, …): " + data},
		{[]string{"explain", out, "--to", "09:00"},
			"infertrace explain: no request starts in the window […, 2026-11-30T09:00:00Z): " + data},
		{[]string{"compare", out, "--baseline", "10:00-10:00:20", "--target", "2026-12-01/2026-12-02"},
			"infertrace compare: --target 2026-12-01/2026-12-02: no request starts in the window [2026-12-01T00:00:00Z, 2026-12-02T00:00:00Z): " + data},
		{[]string{"whatif", out, "--from", "10:01", "--to", "10:00:10"},
			"infertrace whatif: the window is empty: --from 2026-11-30T10:01:00Z is not before --to 2026-11-30T10:00:10Z; " + data},
		{[]string{"whatif", out, "--from", "2026-12-01"},
			"infertrace whatif: no request starts in the window [2026-12-01T00:00:00Z, …): " + data},
		{[]string{"analyze", out, "--from", "11:00"},
			"infertrace analyze: no request starts in the window [2026-11-30T11:00:00Z, …): the data's records start from 2026-11-30T09:59:58.066347Z to 2026-11-30T10:00:49.698722Z\n"},
		{[]string{"analyze", out, "--from", "tomorrow"},
			"infertrace analyze: --from \"tomorrow\" is no time: want HH:MM[:SS] (UTC, on the data's first day), a date (2026-11-30) or RFC 3339 (2026-11-30T10:00:00Z)\n"},
	} {
		code, _, stderr := runCLI(t, append(tc.args, "--quiet")...)
		if code != 2 || !strings.HasPrefix(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr\n%s\nwant 2,\n%s", tc.args, code, stderr, tc.want)
		}
	}
	// The refused analyze left the analysis of the run in place.
	if code, _, stderr := runCLI(t, "report", out, "--format", "md", "--quiet"); code != 0 {
		t.Errorf("report after the refused windows: exit %d: %s", code, stderr)
	}
}
