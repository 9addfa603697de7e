package ingest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// openInput opens a file and undoes gzip or zstd compression, recognised by
// their magic bytes rather than by the file name (rotated logs are often
// compressed without a .gz suffix, or renamed with one), then the
// OpenTelemetry Collector's length-prefixed frames, recognised by their
// first bytes (see otlp_frames.go). When m is not nil the file is read
// through it (m.r is set here).
func openInput(path string, m *meter) (io.ReadCloser, int64, error) {
	// expand refused non-regular files already; this Stat refuses one put
	// in a file's place since, as os.Open would block on a FIFO.
	if st, err := os.Stat(path); err == nil {
		if what := notRegular(st); what != "" {
			return nil, 0, notRegularError(path, what)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if what := notRegular(st); what != "" {
		f.Close()
		return nil, 0, notRegularError(path, what)
	}
	rc, err := openStream(f, f, path, m)
	return rc, st.Size(), err
}

// openStream is openInput past the opening: it reads f, closes c (which
// may be nil) and names path in errors.
func openStream(f io.Reader, c io.Closer, path string, m *meter) (io.ReadCloser, error) {
	var src io.Reader = f
	if m != nil {
		m.r, src = f, m
	}
	br := bufio.NewReaderSize(src, 256<<10)
	magic, _ := br.Peek(4)
	switch {
	case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(br)
		if err != nil {
			closeIf(c)
			return nil, fmt.Errorf("%s: gzip: %w", path, err)
		}
		r, fc := unframe(skipBOM(bufio.NewReaderSize(zr, 64<<10)))
		return newStack(r, fc, zr, c).withFrames(fc), nil
	case bytes.HasPrefix(magic, zstdMagic):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(128<<20))
		if err != nil {
			closeIf(c)
			return nil, fmt.Errorf("%s: zstd: %w", path, err)
		}
		r, fc := unframe(skipBOM(bufio.NewReaderSize(zr, 64<<10)))
		return newStack(r, fc, closerFunc(func() error { zr.Close(); return nil }), c).withFrames(fc), nil
	}
	r, fc := unframe(skipBOM(br))
	return newStack(r, fc, c).withFrames(fc), nil
}

// utf8BOM is the UTF-8 byte order mark some Windows tools write first.
var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// skipBOM drops a UTF-8 byte order mark at the start of br, which would
// otherwise make the first line fail to decode (and hide a format from
// sniffing).
func skipBOM(br *bufio.Reader) *bufio.Reader {
	if b, _ := br.Peek(len(utf8BOM)); bytes.Equal(b, utf8BOM) {
		br.Discard(len(utf8BOM))
	}
	return br
}

// newStack reads r and closes the non-nil closers in order.
func newStack(r io.Reader, closers ...io.Closer) *stack {
	s := &stack{Reader: r}
	for _, c := range closers {
		if c != nil {
			s.closers = append(s.closers, c)
		}
	}
	return s
}

type stack struct {
	io.Reader
	closers []io.Closer
	// frames is the frameReader of a file of collector frames, nil for
	// any other: readFile rejects the frames it could not decode.
	frames *frameReader
}

func (s *stack) withFrames(c io.Closer) *stack {
	s.frames, _ = c.(*frameReader)
	return s
}

// badFrames lists the frames of r (from openInput) read whole that did not
// decode, each a blank line in what r gave.
func badFrames(r io.Reader) []badFrame {
	if s, ok := r.(*stack); ok && s.frames != nil {
		return s.frames.bad
	}
	return nil
}

func (s *stack) Close() error {
	var first error
	for _, c := range s.closers {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }

func closeIf(c io.Closer) {
	if c != nil {
		c.Close()
	}
}

// StdinName names standard input (an input "-") in the manifest, in
// rejects and in errors.
const StdinName = "(stdin)"
