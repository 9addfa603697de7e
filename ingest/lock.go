package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// LockFile is the file in an output directory that an infertrace command
// writing there (ingest, analyze, report, run) holds locked while it runs,
// with its process ID in it. It stays in place after the run.
const LockFile = ".infertrace.lock"

// ErrInUse is what InUseError wraps: the output directory is locked by
// another infertrace run.
var ErrInUse = errors.New("in use by another infertrace run")

// InUseError says which run holds an output directory.
type InUseError struct {
	Dir string
	PID int // 0 when the holder has not written its ID yet
}

func (e *InUseError) Error() string {
	if e.PID == 0 {
		return fmt.Sprintf("%s is %v", e.Dir, ErrInUse)
	}
	return fmt.Sprintf("%s is %v (pid %d)", e.Dir, ErrInUse, e.PID)
}

func (e *InUseError) Unwrap() error { return ErrInUse }

// OutLock is the lock of one output directory, from LockOut.
type OutLock struct {
	dir     string
	f       *os.File
	created bool // LockOut created dir
}

// LockOut locks output directory dir for this process, creating dir when it
// does not exist, so that two runs into one directory never mix their files:
// the second gets an *InUseError at once. The lock is the operating system's
// (flock(2) where there is one), so a killed run leaves no stale lock.
func LockOut(dir string) (*OutLock, error) {
	if dir == "" {
		return nil, errors.New("no output directory: give --out DIR")
	}
	_, err := os.Stat(dir)
	created := errors.Is(err, fs.ErrNotExist)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := lockFile(filepath.Join(dir, LockFile))
	if errors.Is(err, ErrInUse) {
		return nil, &InUseError{Dir: dir, PID: lockHolder(dir)}
	}
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &OutLock{dir: dir, f: f, created: created}, nil
}

// LockOutShared locks the existing directory dir for this process and
// others that share it (the parts of analyze --partition, written side by
// side), while a run that takes LockOut's exclusive lock gets an
// *InUseError, as this does while such a run holds it. Where there is no
// flock(2), it is LockOut's exclusive lock.
func LockOutShared(dir string) (*OutLock, error) {
	f, err := lockFileShared(filepath.Join(dir, LockFile))
	if errors.Is(err, ErrInUse) {
		return nil, &InUseError{Dir: dir, PID: lockHolder(dir)}
	}
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return &OutLock{dir: dir, f: f}, nil
}

// CheckOutFree returns an *InUseError when another run holds dir's lock,
// without creating or writing anything.
func CheckOutFree(dir string) error {
	busy, err := lockHeld(filepath.Join(dir, LockFile))
	if err != nil || !busy {
		return nil
	}
	return &InUseError{Dir: dir, PID: lockHolder(dir)}
}

// Unlock releases the lock. When LockOut created the directory and the run
// left nothing in it (it failed at start), the directory is removed again.
func (l *OutLock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	if l.created {
		if entries, err := os.ReadDir(l.dir); err == nil && len(entries) == 1 && entries[0].Name() == LockFile {
			os.Remove(filepath.Join(l.dir, LockFile))
			os.Remove(l.dir)
		}
	}
	err := unlockFile(l.f)
	l.f = nil
	return err
}

// lockHolder reads the process ID the holder of dir's lock wrote; 0 when
// there is none yet.
func lockHolder(dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, LockFile))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(string(bytes.TrimSpace(b)))
	return pid
}
