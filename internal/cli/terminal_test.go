package cli

import (
	"bytes"
	"context"
	"io"
	"sync"
)

// fakeTerminal is a stderr that the commands take for a terminal. It
// calls onWrite, if set, with everything written so far after each write.
type fakeTerminal struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	onWrite func(all string)
}

func (f *fakeTerminal) Write(b []byte) (int, error) {
	f.mu.Lock()
	n, err := f.buf.Write(b)
	all := f.buf.String()
	f.mu.Unlock()
	if f.onWrite != nil {
		f.onWrite(all)
	}
	return n, err
}

func (f *fakeTerminal) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.buf.String()
}

// runTerminal runs the CLI with stderr taken for a terminal (when terminal)
// or not.
func runTerminal(ctx context.Context, stderr io.Writer, terminal bool, args ...string) (code int, stdout string) {
	var out bytes.Buffer
	e := &env{stdout: &out, stderr: stderr, isTerminal: func(io.Writer) bool { return terminal }}
	code = runEnv(ctx, e, args)
	return code, out.String()
}
