package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestHelp: infertrace --help, each command's --help and a mistyped
// command or flag, against the golden files in e2e/testdata/help (go test
// ./e2e -update rewrites them). Help asked for goes to stdout
// with exit 0; help given because the words were wrong goes to stderr with
// exit 2.
func TestHelp(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		golden string
		args   []string
		code   int
		stderr bool // the text is on stderr, stdout is empty
	}{
		{"infertrace.txt", []string{"--help"}, 0, false},
		{"infertrace.txt", []string{"-h"}, 0, false},
		{"infertrace.txt", []string{"help"}, 0, false},
		{"infertrace.txt", nil, 2, true},
		{"run.txt", []string{"run", "--help"}, 0, false},
		{"ingest.txt", []string{"ingest", "--help"}, 0, false},
		{"ingest.txt", []string{"ingest", "-h"}, 0, false},
		{"analyze.txt", []string{"analyze", "--help"}, 0, false},
		{"report.txt", []string{"report", "--help"}, 0, false},
		{"report.txt", []string{"help", "report"}, 0, false},
		{"simulate.txt", []string{"simulate", "--help"}, 0, false},
		{"compare.txt", []string{"compare", "--help"}, 0, false},
		{"explain.txt", []string{"explain", "--help"}, 0, false},
		{"whatif.txt", []string{"whatif", "--help"}, 0, false},
		{"mistyped-command.txt", []string{"reprot", "out"}, 2, true},
		{"mistyped-flag.txt", []string{"ingest", "--gatway", "logs/access.log", "--out", "out"}, 2, true},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		got, other := stdout, stderr
		if tc.stderr {
			got, other = stderr, stdout
		}
		if code != tc.code || other != "" {
			t.Errorf("infertrace %s: exit %d (want %d)\nstdout:\n%s\nstderr:\n%s", strings.Join(tc.args, " "), code, tc.code, stdout, stderr)
			continue
		}
		golden(t, filepath.Join("e2e", "testdata", "help", tc.golden), []byte(got))
	}
}
