package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakeTerminal is a stderr that the commands take for a terminal. It
// calls onWrite, if set, with everything written so far after each write.
type fakeTerminal struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	onWrite func(all string)
}

func (f *fakeTerminal) Write(b []byte) (int, error) {
	f.mu.Lock()
	n, err := f.buf.Write(b)
	all := f.buf.String()
	f.mu.Unlock()
	if f.onWrite != nil {
		f.onWrite(all)
	}
	return n, err
}

func (f *fakeTerminal) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.buf.String()
}

// runTerminal runs the CLI with stderr taken for a terminal (when terminal)
// or not.
func runTerminal(ctx context.Context, stderr io.Writer, terminal bool, args ...string) (code int, stdout string) {
	var out bytes.Buffer
	e := &env{stdout: &out, stderr: stderr, isTerminal: func(io.Writer) bool { return terminal }}
	code = runEnv(ctx, e, args)
	return code, out.String()
}

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
	in := progressInput(t)
	var term fakeTerminal
	code, stdout := runTerminal(context.Background(), &term, true, "run", "--client", in, "--out", filepath.Join(t.TempDir(), "out"))
	stderr := term.String()
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
		var plain, quiet bytes.Buffer
		code, _ := runTerminal(context.Background(), &plain, false, args...)
		qcode, _ := runTerminal(context.Background(), &quiet, true, append(args, "--quiet")...)
		if code != 0 || qcode != 0 {
			t.Fatalf("%s: exit %d, with --quiet %d\n%s\n%s", args[0], code, qcode, plain.String(), quiet.String())
		}
		if strings.ContainsAny(plain.String(), "\x1b\r") {
			t.Errorf("%s: progress on a stderr that is no terminal:\n%q", args[0], plain.String())
		}
		if plain.String() != quiet.String() {
			t.Errorf("%s --quiet on a terminal: stderr\n%q\nwant\n%q", args[0], quiet.String(), plain.String())
		}
	}
}

// TestProgressEmptyInput: inputs of no bytes have no size to measure
// against; ingest shows its count of lines without a bar.
func TestProgressEmptyInput(t *testing.T) {
	in := filepath.Join(t.TempDir(), "c.jsonl")
	os.WriteFile(in, nil, 0o644)
	var term fakeTerminal
	code, _ := runTerminal(context.Background(), &term, true, "ingest", "--client", in, "--out", filepath.Join(t.TempDir(), "out"))
	if stderr := term.String(); code != 0 || !strings.Contains(stderr, "ingest: 0 lines") || strings.Contains(stderr, "%") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
