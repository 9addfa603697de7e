package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/ingest/ingesttest"
)

// runCLI runs the command line in this process. The end-to-end suite
// (e2e/) runs the built binary; the tests here need what only a run in
// process gives (see TestInterruptLeavesNoHalfFiles).
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(context.Background(), Stamp{}, args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// simulateAndRunN simulates n requests (with extra simulate flags) and runs
// the whole pipeline on the logs, DuckDB on one thread: the test binaries
// of the packages run side by side on few cores, where more threads only
// contend, and the interrupted runs stop at steps the display names,
// whatever the threads.
func simulateAndRunN(t *testing.T, seed, n int, extra ...string) (simDir, outDir string) {
	t.Helper()
	simDir, outDir = filepath.Join(t.TempDir(), "sim"), filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runCLI(t, append([]string{"simulate", "--out", simDir, "--requests", fmt.Sprint(n), "--seed", fmt.Sprint(seed)}, extra...)...)
	if code != 0 {
		t.Fatalf("simulate: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, "run", "--threads", "1",
		"--client", filepath.Join(simDir, "client", "*"),
		"--gateway", filepath.Join(simDir, "gateway", "*"),
		"--server", filepath.Join(simDir, "server", "*"),
		"--out", outDir)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	t.Logf("simulated %d requests with seed %d %v; %s", n, seed, extra, strings.TrimSpace(stdout))
	return simDir, outDir
}

// simulateInputs simulates n requests and returns the run arguments that
// read them.
func simulateInputs(t *testing.T, seed, n int) []string {
	t.Helper()
	sim := filepath.Join(t.TempDir(), "sim")
	if code, stdout, stderr := runCLI(t, "simulate", "--out", sim, "--requests", fmt.Sprint(n), "--seed", fmt.Sprint(seed)); code != 0 {
		t.Fatalf("simulate: exit %d\n%s\n%s", code, stdout, stderr)
	}
	return []string{"--client", filepath.Join(sim, "client", "*"), "--gateway", filepath.Join(sim, "gateway", "*"),
		"--server", filepath.Join(sim, "server", "*")}
}

// TestInterruptLeavesNoHalfFiles: run, interrupted (Ctrl-C) while it
// ingests, analyzes or reports into a directory holding a complete earlier
// run of other inputs, exits 130 saying it was interrupted, and leaves only
// complete files, all of one ingest: the new one as far as it got, nothing
// of the earlier one. The interrupt comes when the progress display shows
// the step (stderr is taken for a terminal), so each case stops at its
// step.
func TestInterruptLeavesNoHalfFiles(t *testing.T) {
	_, earlier := simulateAndRunN(t, 1, 1000)
	args := simulateInputs(t, 5, 4000)
	for _, tc := range []struct {
		name, at string   // the display that the interrupt comes at
		want     []string // final names present after it
	}{
		{"ingest-read", `ingest: [1-9]`, nil}, // the first lines read
		// A decoder echoes a rejected line: the rows before it are in a
		// part file when the workers stop.
		{"ingest-decode", `rejected `, nil},
		{"analyze-match", `analyze: matching TGI records`, []string{"manifest.json", "rejects.jsonl", "parts"}},
		{"analyze-join", `analyze: joining tiers`, []string{"manifest.json", "rejects.jsonl", "parts"}},
		{"report-query", `report: slices`, []string{"manifest.json", "rejects.jsonl", "parts", "requests.parquet"}},
		{"report-write", `report: writing`, []string{"manifest.json", "rejects.jsonl", "parts", "requests.parquet"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := ingesttest.CopyDir(t, earlier)
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			at := regexp.MustCompile(tc.at)
			term := &fakeTerminal{onWrite: func(all string) {
				if at.MatchString(all) {
					cancel(errors.New("interrupt signal received"))
				}
			}}
			code, _ := runTerminal(ctx, term, true, append(append([]string{"run", "--threads", "1"}, args...), "--out", dir)...)
			stderr := term.String()
			if code != exitInterrupted || !strings.HasSuffix(stderr, "infertrace run: interrupted\n") {
				t.Errorf("exit %d, want %d; stderr ends %q", code, exitInterrupted, stderr[max(0, len(stderr)-200):])
			}
			present := ingesttest.OutputState(t, dir)
			var got []string
			for name := range present {
				got = append(got, name)
			}
			if strings.Join(sorted(got), " ") != strings.Join(sorted(tc.want), " ") {
				t.Errorf("left %v, want %v", sorted(got), sorted(tc.want))
			}
		})
	}
}

func sorted(s []string) []string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return s
}
