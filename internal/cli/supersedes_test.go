package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunSupersedes: a new ingest into a used directory first removes what
// the previous run derived, so an interrupted run, or an ingest without
// analyze and report, leaves no report or table of the old inputs; and a
// requests.parquet of another ingest is refused by report.
func TestRunSupersedes(t *testing.T) {
	dir := t.TempDir()
	line := `{"request_id":"%s","start":1796032800,"end":1796032801}` + "\n"
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	os.WriteFile(a, []byte(fmt.Sprintf(line, "a1")), 0o644)
	os.WriteFile(b, []byte(fmt.Sprintf(line, "b1")+fmt.Sprintf(line, "b2")), 0o644)
	out := filepath.Join(dir, "out")
	if code, _, stderr := runCLI(t, "run", "--client", a, "--out", out); code != 0 {
		t.Fatalf("run a: exit %d: %s", code, stderr)
	}
	oldRequests, err := os.ReadFile(filepath.Join(out, "requests.parquet"))
	if err != nil {
		t.Fatal(err)
	}

	// Interrupted (Ctrl-C) before any file was read.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var so, se bytes.Buffer
	if code := Run(ctx, Stamp{}, []string{"run", "--client", b, "--out", out}, nil, &so, &se); code != exitInterrupted || se.String() != "infertrace run: interrupted\n" {
		t.Errorf("interrupted run: exit %d: %s", code, se.String())
	}
	for _, name := range []string{"report.md", "report.html", "requests.parquet", "manifest.json", "rejects.jsonl"} {
		if _, err := os.Stat(filepath.Join(out, name)); err == nil {
			t.Errorf("an interrupted run left the previous run's %s", name)
		}
	}
	if parts, _ := filepath.Glob(filepath.Join(out, "client", "*", "part-*.parquet")); len(parts) > 0 {
		t.Errorf("an interrupted run left the previous run's %v", parts)
	}
	if code, _, stderr := runCLI(t, "report", out); code != 1 || !strings.Contains(stderr, "holds no ingest output") {
		t.Errorf("report after an interrupted run: exit %d: %s", code, stderr)
	}

	// A complete ingest, not analyzed.
	if code, _, stderr := runCLI(t, "ingest", "--client", b, "--out", out); code != 0 {
		t.Fatalf("ingest b: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "report", out); code != 1 || !strings.Contains(stderr, "run infertrace analyze "+out+" first") {
		t.Errorf("report before analyze: exit %d: %s", code, stderr)
	}
	// The first run's requests.parquet put back (an older infertrace did
	// not remove it): report refuses it.
	os.WriteFile(filepath.Join(out, "requests.parquet"), oldRequests, 0o644)
	code, _, stderr := runCLI(t, "report", out)
	if code != 1 || !strings.Contains(stderr, "it was not analyzed from the manifest.json beside it") ||
		!strings.Contains(stderr, "run infertrace analyze "+out+" again") {
		t.Errorf("report on another ingest's requests.parquet: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "report.md")); err == nil {
		t.Error("report wrote report.md from another ingest's requests.parquet")
	}
	if code, _, stderr := runCLI(t, "analyze", out); code != 0 {
		t.Fatalf("analyze: exit %d: %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "report", out)
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	if code != 0 || !bytes.Contains(md, []byte("b.jsonl")) || bytes.Contains(md, []byte("a.jsonl")) {
		t.Errorf("report of b: exit %d: %s\n%s", code, stderr, md)
	}
}
