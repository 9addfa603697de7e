package main

import (
	"os"
	"runtime"
	"syscall"
	"testing"
)

// withoutFileAccessRights runs f with the file-access rights of an ordinary
// user, so that a directory's permission bits hold as they do for users: root
// (as the tests run in CI) reads every directory. It sets the filesystem user
// ID of the calling thread only (setfsuid(2)), which drops the capabilities
// that bypass permission bits for that thread; the thread is locked for f and
// ended with the test, never handed back to other goroutines.
func withoutFileAccessRights(t *testing.T, f func()) {
	t.Helper()
	if os.Geteuid() != 0 {
		f()
		return
	}
	runtime.LockOSThread() // not unlocked: the thread ends with this goroutine
	const nobody = 65534
	syscall.Syscall(syscall.SYS_SETFSUID, nobody, 0, 0)
	if prev, _, _ := syscall.Syscall(syscall.SYS_SETFSUID, nobody, 0, 0); prev != nobody {
		t.Fatalf("setfsuid(%d) did not take (fsuid %d)", nobody, prev)
	}
	defer syscall.Syscall(syscall.SYS_SETFSUID, 0, 0, 0)
	f()
}
