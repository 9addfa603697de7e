package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/analyze"
)

// TestRunContractTestdata is the contract example of docs/contract.md:
// the bundled data set judged against testdata/contract, checked against a
// golden Markdown report.
func TestRunContractTestdata(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	code, stdout, stderr := runTestdata(t, out,
		"--contract", "testdata/contract/contract.toml",
		"--evals", "testdata/contract/evals.csv",
		"--prices", "testdata/contract/prices.csv",
		"--format", "md", "--quiet")
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
	t.Parallel()
	out := t.TempDir()
	if code, _, stderr := runCLI(t, "simulate", "--requests", "1000", "--seed", "7", "--evals", "--out", out); code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, stderr)
	}
	got, err := os.ReadFile(filepath.Join(out, "evals.csv"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/contract/evals.csv")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("simulate --evals no longer writes testdata/contract/evals.csv")
	}
}

// A bad contract is a usage error (exit 2) naming the file, its line and
// the use case, before anything runs.
func TestBadContract(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct{ file, want string }{
		{"[[use_case]]\nname = \"chat\"\n[[use_case.constraint]]\nmetric = \"ttft\"\nop = \"<=\"\ntarget = 1\n",
			`:4: use case "chat": metric "ttft": unknown (known: `},
		{"[[use_case]]\nname = \"chat\"\n[[use_case.constraint]]\nmetric = \"client_ttft_ms\"\npercentile = 95\nop = \"<=\"\ntarget = \"800\"\n",
			`:7: use case "chat": target for client_ttft_ms must be a number of milliseconds (800) or a duration ("800ms", "5s"), not the string "800"` + "\n"},
		{"[[use_case]]\nname = \"chat\"\nmatch = { modle = \"x\" }\n[[use_case.constraint]]\nmetric = \"error_rate\"\nop = \"<=\"\ntarget = 0.1\n",
			`:3: use case "chat": match.modle: no slice column of that name; did you mean model? (known: `},
	} {
		p := filepath.Join(dir, "c.toml")
		os.WriteFile(p, []byte(tc.file), 0o644)
		code, _, stderr := runCLI(t, "report", dir, "--contract", p)
		if code != 2 || !strings.HasPrefix(stderr, "infertrace report: "+p+tc.want) {
			t.Errorf("exit %d, stderr %q; want 2, %q", code, stderr, p+tc.want)
		}
	}
	code, _, stderr := runCLI(t, "report", dir, "--evals", filepath.Join(dir, "none.csv"))
	if code != 2 || !strings.Contains(stderr, "--evals: ") {
		t.Errorf("missing evals file: exit %d, stderr %q", code, stderr)
	}
}

// A use case that selects no request of the run stops report with exit 2
// and says what the column holds: a typo is not a use case left out.
func TestContractSelectsNothing(t *testing.T) {
	t.Parallel()
	out := testdataStoreCopy(t)
	p := filepath.Join(t.TempDir(), "contract.toml")
	os.WriteFile(p, []byte(`[[use_case]]
name = "chat"
  [[use_case.constraint]]
  metric = "error_rate"
  op = "<="
  target = "1%"

[[use_case]]
name = "rga"
  [[use_case.constraint]]
  metric = "error_rate"
  op = "<="
  target = "1%"
`), 0o644)
	code, _, stderr := runCLI(t, "report", out, "--contract", p, "--format", "md", "--quiet")
	want := "infertrace report: " + p + `:9: use case "rga": match use_case="rga" selects no request; use_case values present: chat, code, rag, summarize; did you mean rag?` + "\n"
	if code != 2 || stderr != want {
		t.Errorf("exit %d, stderr\n%s\nwant 2,\n%s", code, stderr, want)
	}
}

// The simulator's evals (testdata/contract/evals.csv) pass with
// probability 0.97, but 0.70 for prompts of 2,048 tokens or more on
// llama-3.1-8b. Sliced by model and prompt bucket, the report shows the
// drop in llama-3.1-8b's long-prompt slice and in no other: there the
// pass rate's Wilson 95% interval lies below 90%, in every other slice
// with 20 or more evaluated requests it reaches 95%.
func TestSimulatedEvalsDropInOneSliceOnly(t *testing.T) {
	t.Parallel()
	out := testdataStoreCopy(t)
	code, stdout, stderr := runCLI(t, "report", out,
		"--evals", "testdata/contract/evals.csv",
		"--by", "model,prompt_bucket", "--format", "md", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	res, err := analyze.Summarize(context.Background(), out, analyze.SummaryOptions{
		By: []string{"model", "prompt_bucket"}, Evals: "testdata/contract/evals.csv", Resources: oneThread})
	if err != nil {
		t.Fatal(err)
	}
	long := map[string]bool{"2k-8k": true, "8k-32k": true, ">=32k": true}
	dropped := 0
	for _, s := range res.Slices {
		q := s.Quality
		if s.All || q.EvalPassN < 20 || q.EvalPassLo == nil || q.EvalPassHi == nil {
			continue
		}
		weak := s.Values[0] == "llama-3.1-8b" && long[s.Values[1]]
		switch {
		case weak && *q.EvalPassHi >= 0.90:
			t.Errorf("%s: pass rate %d of %d, interval up to %.3f; want the drop (below 0.90)", s.Label, q.EvalPassK, q.EvalPassN, *q.EvalPassHi)
		case !weak && *q.EvalPassHi < 0.95:
			t.Errorf("%s: pass rate %d of %d, interval up to %.3f; want no drop (0.95 within)", s.Label, q.EvalPassK, q.EvalPassN, *q.EvalPassHi)
		case weak:
			dropped++
		}
	}
	if dropped != 1 {
		t.Errorf("%d long-prompt llama-3.1-8b slices with 20+ evaluated requests show the drop, want 1 (2k-8k)", dropped)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The summary row of that slice: 111 of 143 evaluated passed.
	if want := "| model=llama-3.1-8b, prompt\\_bucket=2k-8k | 185 |"; !bytes.Contains(md, []byte(want)) ||
		!bytes.Contains(md, []byte("| 77.6% [70.1, 83.7] | 143 |")) {
		t.Errorf("report lacks the summary row of model=llama-3.1-8b, prompt_bucket=2k-8k with its pass rate 77.6%% [70.1, 83.7] of 143")
	}
}

// The contract excerpt of docs/contract.md (the headline, summary rows
// with quality and cost beside latency, a contract table) is text of the
// golden report of its command, line by line, so it cannot drift from what
// infertrace prints.
func TestDocsContractExcerpt(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("docs/contract.md")
	if err != nil {
		t.Fatal(err)
	}
	report, err := os.ReadFile("testdata/golden/report-contract.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	i := strings.Index(s, "whole in `testdata/golden/report-contract.md`):\n\n```\n")
	if i < 0 {
		t.Fatal("docs/contract.md has no contract excerpt")
	}
	s = s[i:]
	s = s[strings.Index(s, "```\n")+4:]
	excerpt := s[:strings.Index(s, "```")]
	var lines int
	for _, l := range strings.Split(excerpt, "\n") {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		lines++
		if !strings.Contains(string(report), l) {
			t.Errorf("docs/contract.md excerpt line not in the report: %q", l)
		}
	}
	for _, want := range []string{"| # | Kind | Constraint |", "Eval pass [95% CI]", "Cost / 1,000 requests", "Goodput:"} {
		if !strings.Contains(excerpt, want) {
			t.Errorf("docs/contract.md excerpt lacks %q", want)
		}
	}
	if lines < 10 {
		t.Errorf("docs/contract.md excerpt has %d lines", lines)
	}
}
