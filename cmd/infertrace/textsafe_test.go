package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTerminalEscapesFileNames: a file name that holds an escape sequence,
// a bidi override or a newline reaches the terminal escaped, in every line
// that names it.
func TestTerminalEscapesFileNames(t *testing.T) {
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
	if !strings.Contains(stderr, `not read to the end: `+filepath.Join(dir, `bad\x1b[2J\u202e\x0afake.jsonl.gz`)) {
		t.Errorf("stderr does not name the file, escaped:\n%q", stderr)
	}
}
