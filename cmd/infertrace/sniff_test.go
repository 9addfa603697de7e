package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// linesNaming returns the lines of out that mention s.
func linesNaming(out, s string) []string {
	var got []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, s) {
			got = append(got, l)
		}
	}
	return got
}

// TestUnknownFormatSaidOnce: a file whose format cannot be told is named
// on one line of stderr, which gives the flag to pass, and the run exits 1.
func TestUnknownFormatSaidOnce(t *testing.T) {
	t.Chdir(t.TempDir())
	os.Mkdir("gw", 0o755)
	os.WriteFile(filepath.Join("gw", "access.csv"), []byte("ts,request_id,latency_ms\n\n2026-11-30T10:00:00.000Z,r1,1500\n"), 0o644)
	code, stdout, stderr := runCLI(t, "ingest", "--gateway", "gw/*.csv", "--out", "out")
	if code != 1 {
		t.Fatalf("exit %d, want 1\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	got := linesNaming(stderr, "access.csv")
	if len(got) != 1 {
		t.Fatalf("%d lines of stderr name the file, want 1:\n%s", len(got), stderr)
	}
	for _, want := range []string{"gw/access.csv: unknown format: cannot tell the gateway format", "name it with --gateway FORMAT:gw/access.csv"} {
		if !strings.Contains(got[0], want) {
			t.Errorf("stderr line lacks %q:\n%s", want, got[0])
		}
	}
	if strings.Contains(stderr, "more rejected lines") || strings.Contains(stderr, "not read to the end") {
		t.Errorf("stderr says more than the one line:\n%s", stderr)
	}
	if !strings.Contains(stdout, "3 lines = 0 decoded + 2 rejected + 0 duplicates + 1 blank") {
		t.Errorf("the file's lines are not accounted for:\n%s", stdout)
	}
}

// TestNamedFormatNoRows: a file read with a named format that makes no row
// of its non-blank lines is an error (exit 1) saying so, its lines still
// accounted for.
func TestNamedFormatNoRows(t *testing.T) {
	t.Chdir(t.TempDir())
	os.WriteFile("server.log", []byte("2026-11-30T10:00:00.000000Z  INFO text_generation_router: Connected\n2026-11-30T10:00:01.000000Z  INFO text_generation_router: Success\n"), 0o644)
	code, stdout, stderr := runCLI(t, "ingest", "--server", "tgi:server.log", "--out", "out")
	if code != 1 {
		t.Fatalf("exit %d, want 1\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if got := linesNaming(stderr, "0 of 2 lines were tgi records: is this TGI's text output?"); len(got) != 1 || !strings.HasPrefix(got[0], "server.log: ") {
		t.Errorf("stderr does not say once that no line was a tgi record:\n%s", stderr)
	}
	if !strings.Contains(stdout, "2 lines = 0 decoded + 2 rejected") {
		t.Errorf("the file's lines are not accounted for:\n%s", stdout)
	}
}
