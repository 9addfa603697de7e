package cli

import (
	"runtime/debug"
	"testing"

	"github.com/infertrace/infertrace/internal/suggest"
)

// TestVersionText: a release says its module version; a development build
// the commit, its time and whether the tree had changes.
func TestVersionText(t *testing.T) {
	deps := []*debug.Module{{Path: "github.com/spf13/pflag", Version: "v1.1.0"}, {Path: duckdbDriver, Version: "v2.10506.0"}}
	vcs := []debug.BuildSetting{
		{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "510d9e1c0ffee0123456789abcdef0123456789a"},
		{Key: "vcs.time", Value: "2026-12-01T09:30:00Z"}, {Key: "vcs.modified", Value: "true"}}
	stamp := Stamp{Version: "v0.5.0", Commit: "fedcba9876543210fedcba9876543210fedcba98"}
	for _, tc := range []struct {
		bi   *debug.BuildInfo
		st   Stamp
		want string
	}{
		// go install …@v0.4.0: the module version.
		{&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.4.0"}, Deps: deps}, Stamp{},
			"infertrace v0.4.0, built with go1.26.8\nDuckDB v1.5.6, through github.com/duckdb/duckdb-go/v2 v2.10506.0\n"},
		// go build in a checkout.
		{&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Deps: deps, Settings: vcs}, Stamp{},
			"infertrace (devel), commit 510d9e1c0ffe of 2026-12-01T09:30:00Z, with uncommitted changes, built with go1.26.8\nDuckDB v1.5.6, through github.com/duckdb/duckdb-go/v2 v2.10506.0\n"},
		// A Docker build: no .git in its context, the version and commit
		// stamped with -ldflags.
		{&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Deps: deps}, stamp,
			"infertrace v0.5.0, commit fedcba987654, built with go1.26.8\nDuckDB v1.5.6, through github.com/duckdb/duckdb-go/v2 v2.10506.0\n"},
		// What the build information says comes first; a stamp fills in
		// only what it lacks.
		{&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.4.0"}, Deps: deps, Settings: vcs[:3]}, stamp,
			"infertrace v0.4.0, commit 510d9e1c0ffe of 2026-12-01T09:30:00Z, built with go1.26.8\nDuckDB v1.5.6, through github.com/duckdb/duckdb-go/v2 v2.10506.0\n"},
		{nil, Stamp{}, "infertrace (unknown version: built without module information)\nDuckDB v1.5.6\n"},
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
