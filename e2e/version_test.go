package e2e

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// TestVersion: version and --version name infertrace's build and the
// DuckDB it runs, on stdout, exit 0.
func TestVersion(t *testing.T) {
	t.Parallel()
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

// TestVersionStamped builds infertrace as the Dockerfile does (but for
// -trimpath, which would rebuild every package), from a tree whose build
// information has no commit (-buildvcs=false) and with the -ldflags of a
// release, and runs its version: the stamped version and commit, so the
// names the release passes to -X are the variables'.
func TestVersionStamped(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	stamped := filepath.Join(t.TempDir(), "infertrace")
	build := exec.Command("go", "build", "-buildvcs=false",
		"-ldflags", "-s -w -X main.stampedVersion=v9.8.7 -X main.stampedCommit=0123456789abcdef0123456789abcdef01234567",
		"-o", stamped, mainPackage)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(stamped, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^infertrace v9\.8\.7, commit 0123456789ab, built with go1\.\S+\nDuckDB v\S+, through github\.com/duckdb/duckdb-go/v2 v\S+\n$`)
	if !re.Match(out) {
		t.Errorf("version of a stamped build:\n%s", out)
	}
}
