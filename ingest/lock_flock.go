//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package ingest

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// lockFile opens path (creating it) and takes an exclusive flock(2) on it
// without waiting; ErrInUse when another open file holds it. The kernel
// drops the lock when the process ends, however it ends.
func lockFile(path string) (*os.File, error) { return lockHow(path, syscall.LOCK_EX) }

// lockFileShared is lockFile with a shared flock(2): other shared holders
// may hold it too.
func lockFileShared(path string) (*os.File, error) { return lockHow(path, syscall.LOCK_SH) }

func lockHow(path string, how int) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := flock(f, how|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrInUse
		}
		return nil, err
	}
	return f, nil
}

func unlockFile(f *os.File) error {
	flock(f, syscall.LOCK_UN)
	return f.Close()
}

// lockHeld tells whether another open file holds path's lock, creating
// nothing: a missing lock file is no lock.
func lockHeld(path string) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	if err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return true, nil
		}
		return false, err
	}
	flock(f, syscall.LOCK_UN)
	return false, nil
}

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
