//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package ingest

import (
	"errors"
	"io/fs"
	"os"
)

// Without flock(2), the lock is the lock file's existence (O_EXCL): a run
// that is killed leaves it behind, and the next run says the directory is in
// use until it is removed.
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, ErrInUse
	}
	return f, err
}

func lockFileShared(path string) (*os.File, error) { return lockFile(path) }

func unlockFile(f *os.File) error {
	name := f.Name()
	err := f.Close()
	os.Remove(name)
	return err
}

func lockHeld(path string) (bool, error) {
	_, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}
