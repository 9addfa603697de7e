package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTerminalEscapesFileNames: a file name that holds an escape sequence,
// a bidi override or a newline reaches the terminal escaped, in every line
// that names it.
func TestTerminalEscapesFileNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	name := "bad\x1b[2J\u202e\nfake.jsonl.gz"
	if err := os.WriteFile(filepath.Join(dir, name), []byte("not gzip at all\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "ingest", "--client", filepath.Join(dir, "bad*"), "--out", filepath.Join(dir, "out"))
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a file not read to the end):\n%s", code, stderr)
	}
	if strings.ContainsAny(stderr, "\x1b\u202e") || strings.Contains(stderr, "\nfake") {
		t.Errorf("stderr holds the raw control characters:\n%q", stderr)
	}
	if !strings.HasPrefix(stderr, filepath.Join(dir, `bad\x1b[2J\u202e\x0afake.jsonl.gz`)+": unknown format: ") {
		t.Errorf("stderr does not name the file, escaped:\n%q", stderr)
	}
}

// writeLabelled writes one request on all three tiers whose model, use
// case, replica and request ID are label, and returns the run's arguments.
func writeLabelled(t *testing.T, dir, label string) []string {
	t.Helper()
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	files := map[string]string{
		"client.jsonl":  `{"request_id":` + q("id-"+label) + `,"start":"2026-11-30T10:00:00Z","first_token":"2026-11-30T10:00:00.2Z","end":"2026-11-30T10:00:01Z","status":200,"streamed":true,"model":` + q(label) + `,"use_case":` + q(label) + `,"client":` + q(label) + `,"output_tokens":10}`,
		"gateway.jsonl": `{"request_id":` + q("id-"+label) + `,"start":"2026-11-30T10:00:00.01Z","upstream_start":"2026-11-30T10:00:00.02Z","upstream_end":"2026-11-30T10:00:00.98Z","end":"2026-11-30T10:00:00.99Z","status":200,"route":` + q(label) + `}`,
		"server.jsonl":  `{"request_id":` + q("id-"+label) + `,"arrival":"2026-11-30T10:00:00.03Z","scheduled":"2026-11-30T10:00:00.04Z","first_token":"2026-11-30T10:00:00.1Z","end":"2026-11-30T10:00:00.9Z","model":` + q(label) + `,"replica":` + q(label) + `,"output_tokens":10,"finish_reason":` + q(label) + `,"status":200}`,
	}
	for name, line := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return []string{"run", "--client", "native:" + filepath.Join(dir, "client.jsonl"), "--gateway", "native:" + filepath.Join(dir, "gateway.jsonl"),
		"--server", "native:" + filepath.Join(dir, "server.jsonl"), "--out", filepath.Join(dir, "out")}
}

// TestReportCutsLongLabels: a 320 KiB model name (and use case, replica,
// request ID) gives a report of a few tens of KiB, not several MiB. The
// label is longer than the 256 KiB a report may reach, so one uncut copy
// of it fails the test; a label of 1 MiB took twice the CPU to say the
// same.
func TestReportCutsLongLabels(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	label := strings.Repeat("m", 320<<10)
	if code, stdout, stderr := runCLI(t, writeLabelled(t, dir, label)...); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, name := range []string{"report.md", "report.html"} {
		fi, err := os.Stat(filepath.Join(dir, "out", name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > 256<<10 {
			t.Errorf("%s is %d bytes for one request with a 320 KiB label", name, fi.Size())
		}
		b, _ := os.ReadFile(filepath.Join(dir, "out", name))
		if !strings.Contains(string(b), strings.Repeat("m", 63)+"…"+strings.Repeat("m", 64)) {
			t.Errorf("%s does not show the label cut to its ends around an ellipsis", name)
		}
	}
}

// TestReportEscapesControlCharacters: NUL, a newline, a tab, an escape
// sequence, bidi overrides and a zero-width space in labels are shown as
// escapes in Markdown and HTML; a Markdown table cell's pipe is escaped.
func TestReportEscapesControlCharacters(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	label := "llama\x00|\n\t\x1b[31m\u202eevil\u2066\u200b"
	if code, stdout, stderr := runCLI(t, writeLabelled(t, dir, label)...); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for name, want := range map[string]string{
		"report.md":   `llama\\x00\|\\x0a\\x09\\x1b\[31m\\u202eevil\\u2066\\u200b`,
		"report.html": `llama\x00|\x0a\x09\x1b[31m\u202eevil\u2066\u200b`,
	} {
		b, err := os.ReadFile(filepath.Join(dir, "out", name))
		if err != nil {
			t.Fatal(err)
		}
		if strings.ContainsAny(string(b), "\x00\x1b\u202e\u2066\u200b\t") {
			t.Errorf("%s holds raw control characters", name)
		}
		if !strings.Contains(string(b), want) {
			t.Errorf("%s does not show the label escaped as %s", name, want)
		}
	}
}
