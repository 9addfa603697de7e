//go:build unix

package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRefusesFIFO: a named pipe given as input, matched by a glob or found
// in a directory input is refused before anything is opened (opening it
// would block until something writes to it), with an error naming it and
// what it is, and the previous run's files stay.
func TestRefusesFIFO(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	os.Mkdir(logs, 0o755)
	os.WriteFile(filepath.Join(logs, "a.jsonl"), []byte(`{"request_id":"r1","start":1796032800,"end":1796032801}`+"\n"), 0o644)
	fifo := filepath.Join(logs, "b.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)
	old := filepath.Join(out, "report.md")
	os.WriteFile(old, []byte("an earlier run's report\n"), 0o644)
	for _, pattern := range []string{fifo, filepath.Join(logs, "*.jsonl"), logs} {
		done := make(chan error, 1)
		go func() {
			_, err := Run(context.Background(), Options{Inputs: []Input{{Tier: Client, Pattern: pattern}}, Out: out})
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), fifo+" is a named pipe (FIFO), not a regular file") {
				t.Errorf("%s: got %v, want the FIFO refused by name", pattern, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the run still waits on the FIFO after 10s", pattern)
		}
	}
	if _, err := os.Stat(old); err != nil {
		t.Errorf("a refused run removed the previous run's report: %v", err)
	}
}
