package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"testing"

	"github.com/infertrace/infertrace/internal/suggest"
)

// TestVersion: version and --version name infertrace's build and the
// DuckDB it runs, on stdout, exit 0.
func TestVersion(t *testing.T) {
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
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "infertrace")
	build := exec.Command("go", "build", "-buildvcs=false",
		"-ldflags", "-s -w -X main.stampedVersion=v9.8.7 -X main.stampedCommit=0123456789abcdef0123456789abcdef01234567",
		"-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^infertrace v9\.8\.7, commit 0123456789ab, built with go1\.\S+\nDuckDB v\S+, through github\.com/duckdb/duckdb-go/v2 v\S+\n$`)
	if !re.Match(out) {
		t.Errorf("version of a stamped build:\n%s", out)
	}
}

// TestVersionText: a release says its module version; a development build
// the commit, its time and whether the tree had changes.
func TestVersionText(t *testing.T) {
	deps := []*debug.Module{{Path: "github.com/spf13/pflag", Version: "v1.1.0"}, {Path: duckdbDriver, Version: "v2.10506.0"}}
	vcs := []debug.BuildSetting{
		{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "510d9e1c0ffee0123456789abcdef0123456789a"},
		{Key: "vcs.time", Value: "2026-12-01T09:30:00Z"}, {Key: "vcs.modified", Value: "true"}}
	stamp := buildStamp{Version: "v0.5.0", Commit: "fedcba9876543210fedcba9876543210fedcba98"}
	for _, tc := range []struct {
		bi   *debug.BuildInfo
		st   buildStamp
		want string
	}{
		// go install …@v0.4.0: the module version.
		{&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.4.0"}, Deps: deps}, buildStamp{},
			"infertrace v0.4.0, built with go1.26.8\nDuckDB v1.5.6, through github.com/duckdb/duckdb-go/v2 v2.10506.0\n"},
		// go build in a checkout.
		{&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Deps: deps, Settings: vcs}, buildStamp{},
			"infertrace (devel), commit 510d9e1c0ffe of 2026-12-01T09:30:00Z, with uncommitted changes, built with go1.26.8\nDuckDB v1.5.6, through github.com/duckdb/duckdb-go/v2 v2.10506.0\n"},
		// A Docker build: no .git in its context, the version and commit
		// stamped with -ldflags.
		{&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Deps: deps}, stamp,
			"infertrace v0.5.0, commit fedcba987654, built with go1.26.8\nDuckDB v1.5.6, through github.com/duckdb/duckdb-go/v2 v2.10506.0\n"},
		// What the build information says comes first; a stamp fills in
		// only what it lacks.
		{&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.4.0"}, Deps: deps, Settings: vcs[:3]}, stamp,
			"infertrace v0.4.0, commit 510d9e1c0ffe of 2026-12-01T09:30:00Z, built with go1.26.8\nDuckDB v1.5.6, through github.com/duckdb/duckdb-go/v2 v2.10506.0\n"},
		{nil, buildStamp{}, "infertrace (unknown version: built without module information)\nDuckDB v1.5.6\n"},
		{nil, stamp, "infertrace v0.5.0, commit fedcba987654\nDuckDB v1.5.6\n"},
	} {
		if got := versionText(tc.bi, tc.st, "v1.5.6"); got != tc.want {
			t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
		}
	}
}

// TestNearest: the name a mistyped word most likely meant, or none.
func TestNearest(t *testing.T) {
	cmds := []string{"run", "ingest", "analyze", "report", "simulate"}
	for _, tc := range []struct {
		word, want string
		cands      []string
	}{
		{"reprot", "report", cmds}, // a transposition is one edit
		{"ingset", "ingest", cmds},
		{"analyse", "analyze", cmds},
		{"rn", "run", cmds},
		{"sim", "simulate", cmds}, // the only name it begins
		{"x", "", cmds},
		{"frobnicate", "", cmds},
		{"out-dir", "", []string{"out", "workers"}},
		{"otel", "", []string{"otel-request-id", "otel-gateway-service"}}, // two names begin so
		{"gatway", "gateway", []string{"client", "gateway", "server"}},
	} {
		got, ok := suggest.Nearest(tc.word, tc.cands)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("Nearest(%q) = %q, %v; want %q", tc.word, got, ok, tc.want)
		}
	}
}
