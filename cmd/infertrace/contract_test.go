package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunContractTestdata is the README's contract example: the bundled
// data set judged against testdata/contract, checked against a golden
// Markdown report.
func TestRunContractTestdata(t *testing.T) {
	t.Chdir("../..")
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "run",
		"--client", "testdata/native/client/*.jsonl",
		"--gateway", "testdata/native/gateway/*.jsonl",
		"--server", "testdata/native/server/*",
		"--contract", "testdata/contract/contract.toml",
		"--evals", "testdata/contract/evals.csv",
		"--prices", "testdata/contract/prices.csv",
		"--format", "md", "--quiet", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	md = bytes.ReplaceAll(md, []byte(out), []byte("$OUT"))
	for _, want := range []string{
		"**Does each use case meet its contract.** chat FAILS on latency, constraint 2",
		"rag FAILS on its first constraint, quality",
		"## Contract",
		// The simulator's evals drop for long prompts on llama-3.1-8b: rag.
		"| model=llama-3.1-8b, use\\_case=rag | 121 |",
	} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("report lacks %q", want)
		}
	}
	golden(t, "testdata/golden/report-contract.md", md)
}

// testdata/contract/evals.csv is what simulate --evals writes beside
// testdata/native (simulate --requests 1000 --seed 7).
func TestSimulateEvalsMatchTestdata(t *testing.T) {
	out := t.TempDir()
	if code, _, stderr := runCLI(t, "simulate", "--requests", "1000", "--seed", "7", "--evals", "--out", out); code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, stderr)
	}
	got, err := os.ReadFile(filepath.Join(out, "evals.csv"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../testdata/contract/evals.csv")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("simulate --evals no longer writes testdata/contract/evals.csv")
	}
}

// A bad contract is a usage error naming the file, before anything runs.
func TestBadContract(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "c.toml")
	os.WriteFile(p, []byte("[[use_case]]\nname = \"chat\"\n[[use_case.constraint]]\nmetric = \"ttft\"\nop = \"<=\"\ntarget = 1\n"), 0o644)
	code, _, stderr := runCLI(t, "report", dir, "--contract", p)
	if code != 2 || !strings.Contains(stderr, "contract "+p+`: use_case "chat": constraint 1: metric "ttft": unknown`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCLI(t, "report", dir, "--evals", filepath.Join(dir, "none.csv"))
	if code != 2 || !strings.Contains(stderr, "--evals: ") {
		t.Errorf("missing evals file: exit %d, stderr %q", code, stderr)
	}
}
