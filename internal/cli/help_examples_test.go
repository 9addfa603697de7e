package cli

import (
	"strings"
	"testing"
)

// TestHelpExamples: every command has a summary, a paragraph and an
// example, and the example's flags are the command's own: run with --help
// at its end, the example parses up to --help and prints the help (an
// unknown flag or a bad value would be a usage error first).
func TestHelpExamples(t *testing.T) {
	for _, c := range commands {
		d := docs[c.name]
		if d.summary == "" || d.about == "" || !strings.HasPrefix(d.example, "infertrace "+c.name+" ") {
			t.Errorf("%s: its doc lacks a summary, a paragraph or an example: %+v", c.name, d)
			continue
		}
		args := strings.Fields(strings.ReplaceAll(d.example, "'", ""))[1:]
		code, stdout, stderr := runCLI(t, append(args, "--help")...)
		if code != 0 || !strings.HasPrefix(stdout, "Usage: infertrace "+c.name) {
			t.Errorf("%s --help: exit %d\nstdout:\n%s\nstderr:\n%s", d.example, code, stdout, stderr)
		}
	}
}
