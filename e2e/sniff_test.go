package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/ingest"
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

// TestNoRowsCauseSaid: a file that makes no row for a cause its lines show
// (here SGLang's Receive: lines without their Finish: lines) is said once
// on stderr with that cause, naming the file and the line.
func TestNoRowsCauseSaid(t *testing.T) {
	t.Chdir(t.TempDir())
	os.WriteFile("sglang.log", []byte("[2025-01-01 00:00:00] Receive: obj=GenerateReqInput(rid='5b1f0c7e', text='Hello', stream=False)\n"+
		"[2025-01-01 00:00:01] Receive: obj=GenerateReqInput(rid='6c2a1d8f', text='Hi', stream=True)\n"), 0o644)
	code, stdout, stderr := runCLI(t, "ingest", "--server", "sglang.log", "--out", "out")
	if code != 1 {
		t.Fatalf("exit %d, want 1\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	want := "sglang.log: 0 of 2 lines were sglang-text records: sglang.log:1 is an SGLang Receive: line, and no line is a Finish: line, " +
		"the one SGLang writes with a request's timings when it ends: was the log cut before any request ended, or its Finish: lines filtered out?"
	if got := linesNaming(stderr, "Receive:"); len(got) != 1 || got[0] != want {
		t.Errorf("stderr does not say the cause once:\n%s", stderr)
	}
}

// TestNginxNamedOnNativeGateway: native gateway JSON given as
// nginx:FILE decodes into rows without times; the file is refused on one
// line of stderr naming it, the format, the counts and the format
// sniffing picks, and the run exits 1 with no gateway row kept.
func TestNginxNamedOnNativeGateway(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path, out := filepath.Join(dir, "gw.jsonl"), filepath.Join(dir, "out")
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, `{"request_id":"g%d","start":%[2]d.25,"end":%[2]d.75,"upstream_start":%[2]d.26,"upstream_end":%[2]d.74,"status":200}`+"\n", i, 1796032800+i)
	}
	os.WriteFile(path, []byte(b.String()), 0o644)
	code, stdout, stderr := runCLI(t, "ingest", "--gateway", "nginx:"+path, "--out", out)
	if code != 1 {
		t.Fatalf("exit %d, want 1\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	want := path + ": format nginx: 40 of 40 rows have no start or end time; is it another format? (sniffing suggests native)"
	if got := linesNaming(stderr, path); len(got) != 1 || got[0] != want {
		t.Errorf("stderr lines naming the file: %q\nwant one: %q", got, want)
	}
	if !strings.Contains(stdout, "40 lines = 0 decoded + 40 rejected + 0 duplicates + 0 blank; 0 rows") {
		t.Errorf("the file's lines are not accounted for:\n%s", stdout)
	}
	m, err := ingest.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	if f := m.Files[0]; !strings.HasPrefix(f.Error, "format nginx: 40 of 40 rows") || f.Rows != 0 {
		t.Errorf("manifest: %+v", f)
	}
}
