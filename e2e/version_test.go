package e2e

import (
	"regexp"
	"testing"
)

// TestVersion: version and --version name infertrace's build and the
// DuckDB it runs, on stdout, exit 0.
func TestVersion(t *testing.T) {
	t.Parallel()
	runAsProcess(t) // the binary's build information
	re := regexp.MustCompile(`^infertrace \S.*\nDuckDB v[0-9]+\.[0-9]+\.[0-9]+\S*, through github\.com/duckdb/duckdb-go/v2 v\S+\n$`)
	var outs []string
	for _, arg := range []string{"version", "--version"} {
		code, stdout, stderr := runCLI(t, arg)
		if code != 0 || stderr != "" || !re.MatchString(stdout) {
			t.Errorf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", arg, code, stdout, stderr)
		}
		outs = append(outs, stdout)
	}
	if outs[0] != outs[1] {
		t.Errorf("version and --version differ:\n%s\n%s", outs[0], outs[1])
	}
}

// TestVersionStamped: infertrace built as the Dockerfile builds it (but
// for -trimpath, which would rebuild every package), from a tree whose
// build information has no commit (-buildvcs=false) and with the -ldflags
// of a release, says the stamped version and commit, so the names the
// release passes to -X are the variables'. That build is the binary every
// test runs (TestMain, releaseLDFlags).
func TestVersionStamped(t *testing.T) {
	t.Parallel()
	runAsProcess(t)
	code, stdout, stderr := runCLI(t, "version")
	re := regexp.MustCompile(`^infertrace v9\.8\.7, commit 0123456789ab, built with go1\.\S+\nDuckDB v\S+, through github\.com/duckdb/duckdb-go/v2 v\S+\n$`)
	if code != 0 || !re.MatchString(stdout) {
		t.Errorf("version of a stamped build: exit %d\n%s%s", code, stdout, stderr)
	}
}
