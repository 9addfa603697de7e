//go:build unix

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// slowToStop is a command that, interrupted, never finishes stopping: only
// a second interrupt can end it.
func slowToStop() {
	ctx, _ := interruptible(context.Background())
	fmt.Println("ready")
	<-ctx.Done()
	fmt.Println("stopping")
	time.Sleep(time.Minute) // the test fails if it has to wait this out
	os.Exit(3)
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
