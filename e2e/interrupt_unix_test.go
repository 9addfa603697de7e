//go:build unix

package e2e

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/infertrace/infertrace/ingest"
	"github.com/infertrace/infertrace/ingest/ingesttest"
)

// TestSIGINT: the infertrace process, sent SIGINT during a run into a
// directory of an earlier run, exits 130 saying it was interrupted and
// leaves only complete files of one ingest.
func TestSIGINT(t *testing.T) { testStopSignal(t, syscall.SIGINT) }

// TestSIGTERM: SIGTERM (what a service manager or a CI timeout sends)
// stops a run as Ctrl-C does.
func TestSIGTERM(t *testing.T) { testStopSignal(t, syscall.SIGTERM) }

// stopSignalLogs is what TestSIGINT and TestSIGTERM start from, made once
// for both: an earlier run's output directory, which each copies, and the
// arguments of the run each interrupts (logs that neither changes).
var stopSignalLogs struct {
	once    sync.Once
	earlier string
	args    []string
	err     string
}

func testStopSignal(t *testing.T, sig syscall.Signal) {
	t.Parallel()
	s := &stopSignalLogs
	s.once.Do(func() {
		s.err = "the test that simulated them stopped"
		root := sharedTempDir(t)
		s.earlier = filepath.Join(root, "earlier")
		simulateAndRunIn(t, filepath.Join(root, "sim-earlier"), s.earlier, 1, 1000)
		s.args = simulateInputsIn(t, filepath.Join(root, "sim"), 5, 4000)
		s.err = ""
	})
	if s.err != "" {
		t.Fatal(s.err)
	}
	earlier, args := s.earlier, s.args
	dir := ingesttest.CopyDir(t, earlier)
	cmd := exec.Command(bin, append(append([]string{"run"}, args...), "--out", dir)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// The run has begun once it holds the directory's lock: its process ID
	// is in the lock file.
	for {
		b, _ := os.ReadFile(filepath.Join(dir, ingest.LockFile))
		if pid, _ := strconv.Atoi(strings.TrimSpace(string(b))); pid == cmd.Process.Pid {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("exited before the signal: %v\n%s", err, stderr.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
	cmd.Process.Signal(sig)
	err := <-exited
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitInterrupted || !strings.HasSuffix(stderr.String(), "infertrace run: interrupted\n") {
		t.Fatalf("after %v: %v; stderr:\n%s", sig, err, stderr.String())
	}
	present := ingesttest.OutputState(t, dir)
	t.Logf("left %v", present)
}

// TestFIFOInput: the infertrace process given a named pipe as input (no
// writer: opening it would wait for one) refuses it at once, naming it,
// and leaves the directory of an earlier run as it was. Were it to wait,
// SIGTERM must still stop it.
func TestFIFOInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "server.log")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)
	os.WriteFile(filepath.Join(out, "report.md"), []byte("an earlier report\n"), 0o644)
	cmd := exec.Command(bin, "ingest", "--server", fifo, "--out", out)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var err error
	select {
	case err = <-exited:
	case <-time.After(10 * time.Second):
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err = <-exited:
			t.Fatalf("waited on the FIFO for 10s; stopped by SIGTERM: %v\n%s", err, stderr.String())
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("waited on the FIFO for 10s, then ignored SIGTERM for 5s")
		}
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(stderr.String(), fifo+" is a named pipe (FIFO), not a regular file") {
		t.Errorf("got %v; stderr:\n%s", err, stderr.String())
	}
	if b, err := os.ReadFile(filepath.Join(out, "report.md")); err != nil || string(b) != "an earlier report\n" {
		t.Errorf("the earlier report.md: %q, %v", b, err)
	}
}
