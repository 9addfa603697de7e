//go:build linux

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// progressInput writes three native client lines of 56 bytes each and one
// truncated line of 31: 199 bytes, 4 lines.
func progressInput(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	for i := range 3 {
		fmt.Fprintf(&b, `{"request_id":"r%d","start":1796032800,"end":1796032801}`+"\n", i)
	}
	b.WriteString(`{"request_id":"r9","start":179` + "\n")
	if b.Len() != 199 {
		t.Fatalf("input is %d bytes, want 199", b.Len())
	}
	path := filepath.Join(dir, "c.jsonl")
	os.WriteFile(path, []byte(b.String()), 0o644)
	return path
}

// TestProgressShown: with stderr a terminal, run shows the ingest's bytes
// of the inputs' size and its lines, then the steps of analyze and report;
// a line written meanwhile (a rejected line) starts on a line of its own;
// stdout is as without progress.
func TestProgressShown(t *testing.T) {
	t.Parallel()
	in := progressInput(t)
	code, stdout, stderr := runTerminal(t, true, "run", "--client", in, "--out", filepath.Join(t.TempDir(), "out"))
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{
		"ingest: 4 lines",   // all the lines, the rejected one too
		"(199/199 B",        // bytes read of the inputs' size
		"\x1b[2K\rrejected", // the bar cleared before the reject is echoed
		"analyze: matching TGI records",
		"analyze: joining tiers into requests.parquet",
		"report: slices",
		"report: writing md, html, json",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%q", want, stderr)
		}
	}
	if !strings.HasPrefix(stdout, "ingested 1 files: 4 lines = 3 decoded + 1 rejected") || strings.Contains(stdout, "\x1b") {
		t.Errorf("stdout:\n%q", stdout)
	}
}

// TestProgressOff: a stderr that is no terminal gets no progress, and
// --quiet on a terminal gives the same stderr as that, for every command
// that shows progress.
func TestProgressOff(t *testing.T) {
	t.Parallel()
	in := progressInput(t)
	out := filepath.Join(t.TempDir(), "out")
	for _, args := range [][]string{
		{"run", "--client", in, "--out", out},
		{"ingest", "--client", in, "--out", out},
		{"analyze", out},
		{"report", out},
	} {
		code, _, plain := runTerminal(t, false, args...)
		qcode, _, quiet := runTerminal(t, true, append(args, "--quiet")...)
		if code != 0 || qcode != 0 {
			t.Fatalf("%s: exit %d, with --quiet %d\n%s\n%s", args[0], code, qcode, plain, quiet)
		}
		if strings.ContainsAny(plain, "\x1b\r") {
			t.Errorf("%s: progress on a stderr that is no terminal:\n%q", args[0], plain)
		}
		if plain != quiet {
			t.Errorf("%s --quiet on a terminal: stderr\n%q\nwant\n%q", args[0], quiet, plain)
		}
	}
}

// TestProgressEmptyInput: inputs of no bytes have no size to measure
// against; ingest shows its count of lines without a bar.
func TestProgressEmptyInput(t *testing.T) {
	t.Parallel()
	in := filepath.Join(t.TempDir(), "c.jsonl")
	os.WriteFile(in, nil, 0o644)
	code, _, stderr := runTerminal(t, true, "ingest", "--client", in, "--out", filepath.Join(t.TempDir(), "out"))
	if code != 0 || !strings.Contains(stderr, "ingest: 0 lines") || strings.Contains(stderr, "%") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
