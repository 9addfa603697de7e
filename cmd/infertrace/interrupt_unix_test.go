//go:build unix

package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/infertrace/infertrace/ingest"
)

// TestSIGINT: the infertrace process, sent SIGINT during a run into a
// directory of an earlier run, exits 130 saying it was interrupted and
// leaves only complete files of one ingest.
func TestSIGINT(t *testing.T) {
	_, earlier := simulateAndRunN(t, 1, 1000)
	args := simulateInputs(t, 5, 4000)
	dir := copyDir(t, earlier)
	cmd := exec.Command(os.Args[0], append(append([]string{"run"}, args...), "--out", dir)...)
	cmd.Env = append(os.Environ(), "INFERTRACE_TEST_MAIN=main")
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
	cmd.Process.Signal(syscall.SIGINT)
	err := <-exited
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitInterrupted || !strings.HasSuffix(stderr.String(), "infertrace run: interrupted\n") {
		t.Fatalf("after SIGINT: %v; stderr:\n%s", err, stderr.String())
	}
	present := outputState(t, dir)
	t.Logf("left %v", present)
}

// TestSecondSIGINT: once a first SIGINT has ended the context, a second
// one kills the process at once, however long it would take to stop.
func TestSecondSIGINT(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "INFERTRACE_TEST_MAIN=slow-to-stop")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	for _, want := range []string{"ready", "stopping"} {
		if !lines.Scan() || lines.Text() != want {
			cmd.Process.Kill()
			t.Fatalf("got %q, want %q", lines.Text(), want)
		}
		cmd.Process.Signal(syscall.SIGINT)
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("after two SIGINTs: %v", err)
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Errorf("after two SIGINTs: %v, want killed by SIGINT", err)
	}
}
