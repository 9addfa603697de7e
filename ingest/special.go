package ingest

import (
	"fmt"
	"io/fs"
)

// notRegular says what a file that is not a regular file is ("a named pipe
// (FIFO)"), or "" for a regular file. Such a file is refused before it is
// opened: opening a FIFO blocks until something writes to it, a device or a
// socket has no end to read to, and neither could be fingerprinted or read
// again by an --append.
func notRegular(fi fs.FileInfo) string {
	m := fi.Mode()
	switch {
	case m.IsRegular():
		return ""
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return fmt.Sprintf("not a regular file (mode %s)", m.Type())
}

// notRegularError is the error for path, which is what (from notRegular).
func notRegularError(path, what string) error {
	return fmt.Errorf("%s is %s, not a regular file: infertrace reads only files it can read to their end (copy the data into a file first)", path, what)
}
