package main

import (
	"regexp"
	"runtime/debug"
	"testing"

	"github.com/infertrace/infertrace/internal/suggest"
)

// TestVersion: --version names infertrace's build and the DuckDB it runs,
// on stdout, exit 0.
func TestVersion(t *testing.T) {
	code, stdout, stderr := runCLI(t, "--version")
	re := regexp.MustCompile(`^infertrace \S.*\nDuckDB v[0-9]+\.[0-9]+\.[0-9]+\S*, through github\.com/duckdb/duckdb-go/v2 v\S+\n$`)
	if code != 0 || stderr != "" || !re.MatchString(stdout) {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// TestVersionText: a release says its module version; a development build
// the commit, its time and whether the tree had changes.
func TestVersionText(t *testing.T) {
	deps := []*debug.Module{{Path: "github.com/spf13/pflag", Version: "v1.1.0"}, {Path: duckdbDriver, Version: "v2.10506.0"}}
	for _, tc := range []struct {
		bi   *debug.BuildInfo
		want string
	}{
		{&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.4.0"}, Deps: deps},
			"infertrace v0.4.0, built with go1.26.8\nDuckDB v1.5.6, through github.com/duckdb/duckdb-go/v2 v2.10506.0\n"},
		{&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Deps: deps, Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "510d9e1c0ffee0123456789abcdef0123456789a"},
			{Key: "vcs.time", Value: "2026-12-01T09:30:00Z"}, {Key: "vcs.modified", Value: "true"}}},
			"infertrace (devel), commit 510d9e1c0ffe of 2026-12-01T09:30:00Z, with uncommitted changes, built with go1.26.8\nDuckDB v1.5.6, through github.com/duckdb/duckdb-go/v2 v2.10506.0\n"},
		{nil, "infertrace (unknown version: built without module information)\nDuckDB v1.5.6\n"},
	} {
		if got := versionText(tc.bi, "v1.5.6"); got != tc.want {
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
