package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/term"
)

// runTerminal runs infertrace with args as runBin does, a process, but,
// when terminal, with its stderr a terminal of 80 columns (a
// pseudo-terminal, raw: the bytes written arrive as they are), where it
// shows progress.
func runTerminal(t *testing.T, terminal bool, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	if !terminal {
		return runBin(t, args...)
	}
	master, tty := openPTY(t)
	defer master.Close()
	cmd := cliCommand(context.Background(), strings.NewReader(""), args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, tty
	if err := cmd.Start(); err != nil {
		tty.Close()
		t.Fatal(err)
	}
	tty.Close() // the process holds the terminal now: its end ends the reading
	var errb bytes.Buffer
	read := make(chan struct{})
	go func() {
		io.Copy(&errb, master) // to EIO once the process has exited
		close(read)
	}()
	cmd.Wait()
	<-read
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// openPTY opens a pseudo-terminal of 80 columns and 24 rows in raw mode:
// master, which the test reads, and tty, the terminal.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	ioctl := func(req uintptr, arg unsafe.Pointer) {
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), req, uintptr(arg)); errno != 0 {
			master.Close()
			t.Fatalf("ioctl %#x on /dev/ptmx: %v", req, errno)
		}
	}
	var unlock int32
	ioctl(syscall.TIOCSPTLCK, unsafe.Pointer(&unlock))
	var n uint32
	ioctl(syscall.TIOCGPTN, unsafe.Pointer(&n))
	ws := struct{ rows, cols, x, y uint16 }{24, 80, 0, 0}
	ioctl(syscall.TIOCSWINSZ, unsafe.Pointer(&ws))
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		t.Fatal(err)
	}
	if _, err := term.MakeRaw(int(tty.Fd())); err != nil {
		master.Close()
		tty.Close()
		t.Fatal(err)
	}
	return master, tty
}
