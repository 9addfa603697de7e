package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An --out that may hold an input, or lie within what an input names, is
// refused with the reason before anything is read or deleted: ingest
// replaces what --out holds, and a later run would read the store as logs.
func TestOutOverlapsInputs(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	logs := filepath.Join(root, "logs")
	os.MkdirAll(logs, 0o755)
	line, err := os.ReadFile("testdata/native/client/client-us-east-1.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	client := filepath.Join(logs, "client.jsonl")
	os.WriteFile(client, line, 0o644)
	// A store from an earlier run, holding a log.
	store := filepath.Join(root, "store")
	os.MkdirAll(filepath.Join(store, "client"), 0o755)
	inStore := filepath.Join(store, "client", "c.jsonl")
	os.WriteFile(inStore, line, 0o644)
	os.WriteFile(filepath.Join(store, "manifest.json"), []byte("{}"), 0o644)

	within := "lies within the input's tree, so a later run would read the store as logs"
	for _, tc := range []struct{ input, out, want string }{
		{"native:" + logs, filepath.Join(logs, "out"), within},         // a directory's tree
		{filepath.Join(logs, "*"), filepath.Join(logs, "out"), within}, // a glob matching it
		{logs, logs, within}, // the same directory
		{filepath.Join(root, "*", "*.jsonl"), filepath.Join(root, "x"), "the input lies within --out"}, // it can match x/a.jsonl
		{inStore, store, "the input lies within --out " + store + ", which ingest replaces"},
		{filepath.Join(store, "*", "*.jsonl"), store, "the input lies within --out"},
	} {
		code, _, stderr := runCLI(t, "ingest", "--client", tc.input, "--out", tc.out, "--quiet")
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("--client %s --out %s: exit %d, stderr %q; want 2, %q", tc.input, tc.out, code, stderr, tc.want)
		}
	}
	if _, err := os.Stat(inStore); err != nil {
		t.Errorf("the refused ingest deleted its input: %v", err)
	}
	if _, err := os.Stat(filepath.Join(logs, "out")); err == nil {
		t.Errorf("the refused ingest created --out")
	}
	// Beside the logs, in the same directory, a glob that cannot match
	// the store is fine, run after run.
	for i := 0; i < 2; i++ {
		if code, _, stderr := runCLI(t, "ingest", "--client", filepath.Join(logs, "*.jsonl"), "--out", filepath.Join(logs, "out"), "--quiet"); code != 0 {
			t.Errorf("ingest %d beside the logs: exit %d: %s", i+1, code, stderr)
		}
	}
}
