package e2e

import (
	"fmt"
	"path/filepath"
	"testing"
)

// simulateInputs simulates n requests and returns the run arguments that
// read them.
func simulateInputs(t *testing.T, seed, n int) []string {
	t.Helper()
	return simulateInputsIn(t, filepath.Join(t.TempDir(), "sim"), seed, n)
}

// simulateInputsIn is simulateInputs into the directory sim, with extra
// simulate flags.
func simulateInputsIn(t *testing.T, sim string, seed, n int, extra ...string) []string {
	t.Helper()
	args := append([]string{"simulate", "--out", sim, "--requests", fmt.Sprint(n), "--seed", fmt.Sprint(seed)}, extra...)
	if code, stdout, stderr := runCLI(t, args...); code != 0 {
		t.Fatalf("simulate: exit %d\n%s\n%s", code, stdout, stderr)
	}
	return []string{"--client", filepath.Join(sim, "client", "*"), "--gateway", filepath.Join(sim, "gateway", "*"),
		"--server", filepath.Join(sim, "server", "*")}
}
