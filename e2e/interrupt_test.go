package e2e

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// copyDir copies the files of an output directory.
func copyDir(t *testing.T, from string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), "out")
	filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	return to
}

// simulateInputs simulates n requests and returns the run arguments that
// read them.
func simulateInputs(t *testing.T, seed, n int) []string {
	t.Helper()
	return simulateInputsIn(t, filepath.Join(t.TempDir(), "sim"), seed, n)
}

// simulateInputsIn is simulateInputs into the directory sim.
func simulateInputsIn(t *testing.T, sim string, seed, n int) []string {
	t.Helper()
	if code, stdout, stderr := runCLI(t, "simulate", "--out", sim, "--requests", fmt.Sprint(n), "--seed", fmt.Sprint(seed)); code != 0 {
		t.Fatalf("simulate: exit %d\n%s\n%s", code, stdout, stderr)
	}
	return []string{"--client", filepath.Join(sim, "client", "*"), "--gateway", filepath.Join(sim, "gateway", "*"),
		"--server", filepath.Join(sim, "server", "*")}
}
