//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package ingest

import (
	"errors"
	"testing"
)

// TestLockOutShared: parts of analyze --partition share a directory's lock,
// which excludes a run that takes it whole, and the other way round.
func TestLockOutShared(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, err := LockOutShared(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := LockOutShared(dir)
	if err != nil {
		t.Fatalf("a second shared lock: %v", err)
	}
	if _, err := LockOut(dir); !errors.Is(err, ErrInUse) {
		t.Errorf("LockOut while shared: %v, want ErrInUse", err)
	}
	a.Unlock()
	if _, err := LockOut(dir); !errors.Is(err, ErrInUse) {
		t.Errorf("LockOut while one shared lock is left: %v, want ErrInUse", err)
	}
	b.Unlock()
	x, err := LockOut(dir)
	if err != nil {
		t.Fatalf("LockOut once the shared locks are gone: %v", err)
	}
	if _, err := LockOutShared(dir); !errors.Is(err, ErrInUse) {
		t.Errorf("LockOutShared while locked whole: %v, want ErrInUse", err)
	}
	x.Unlock()
}
