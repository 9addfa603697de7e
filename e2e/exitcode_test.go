package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The exit status says the contract's verdict only with --fail-on
// contract: report exits 3 when a use case fails its contract (the
// bundled data set fails testdata/contract: chat and rag), and 0 when
// every use case passes; without --fail-on a failing contract exits 0, as
// it always has. Reports are written either way.
func TestExitContractFails(t *testing.T) {
	t.Parallel()
	runAsProcess(t) // the exit status as the shell sees it
	out := t.TempDir()
	code, stdout, stderr := runTestdata(t, out,
		"--contract", "testdata/contract/contract.toml",
		"--evals", "testdata/contract/evals.csv",
		"--prices", "testdata/contract/prices.csv",
		"--fail-on", "contract",
		"--format", "md", "--quiet")
	want := "infertrace run: contract testdata/contract/contract.toml fails: chat, rag (see the report's Contract section)\n"
	if code != 3 || !strings.HasSuffix(stderr, want) { // after the rejected lines' notes
		t.Fatalf("run --fail-on contract: exit %d, stderr %q; want 3, %q", code, stderr, want)
	}
	if !strings.Contains(stdout, "report: "+filepath.Join(out, "report.md")) {
		t.Errorf("run --fail-on contract wrote no report:\n%s", stdout)
	}
	judge := []string{"report", out, "--contract", "testdata/contract/contract.toml",
		"--evals", "testdata/contract/evals.csv", "--prices", "testdata/contract/prices.csv", "--format", "md", "--quiet"}
	if code, _, stderr := runCLI(t, judge...); code != 0 {
		t.Errorf("report without --fail-on: exit %d (%s), want 0", code, stderr)
	}
	if code, _, stderr := runCLI(t, append(judge, "--fail-on", "contract")...); code != 3 || !strings.HasPrefix(stderr, "infertrace report: contract ") {
		t.Errorf("report --fail-on contract: exit %d, stderr %q; want 3", code, stderr)
	}

	// Every request of the bundled data set is chat, code, rag or
	// summarize, so a contract asking for fewer than all of them to fail
	// passes.
	pass := filepath.Join(t.TempDir(), "pass.toml")
	os.WriteFile(pass, []byte("[[use_case]]\nname = \"chat\"\n  [[use_case.constraint]]\n  metric = \"error_rate\"\n  op = \"<=\"\n  target = \"50%\"\n"), 0o644)
	if code, _, stderr := runCLI(t, "report", out, "--contract", pass, "--fail-on", "contract", "--format", "md", "--quiet"); code != 0 {
		t.Errorf("report --fail-on contract, a passing contract: exit %d (%s), want 0", code, stderr)
	}

	// --fail-on is a usage error without a contract, or naming anything else.
	for _, args := range [][]string{
		{"report", out, "--fail-on", "contract"},
		{"report", out, "--contract", pass, "--fail-on", "slo"},
	} {
		if code, _, stderr := runCLI(t, args...); code != 2 || !strings.Contains(stderr, "--fail-on") {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming --fail-on", args, code, stderr)
		}
	}
}

// compare --contract --fail-on contract exits 4 when its verdict rejects
// the change (the eval pass rate drops from 95% to 80%), and 0 when it
// accepts it (TTFT P95 +30 ms within its 50 ms); without --fail-on a
// rejection exits 0.
func TestExitChangeRejected(t *testing.T) {
	t.Parallel()
	runAsProcess(t) // the exit status as the shell sees it
	code, _, stderr := compareContract(t, 0, 320, "--fail-on", "contract")
	if code != 4 || !strings.HasPrefix(stderr, "infertrace compare: the change is rejected against the contract ") {
		t.Errorf("rejected: exit %d, stderr %q; want 4", code, stderr)
	}
	if code, _, stderr := compareContract(t, 0, 320); code != 0 {
		t.Errorf("rejected, without --fail-on: exit %d (%s), want 0", code, stderr)
	}
	if code, _, stderr := compareContract(t, 30, 380, "--fail-on", "contract"); code != 0 {
		t.Errorf("accepted: exit %d (%s), want 0", code, stderr)
	}
}
