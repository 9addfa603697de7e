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
// compressed without a .gz suffix, or renamed with one). When m is not nil
// the file is read through it (m.r is set here).
func openInput(path string, m *meter) (io.ReadCloser, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if st.IsDir() {
		f.Close()
		return nil, 0, fmt.Errorf("%s is a directory", path)
	}
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
			f.Close()
			return nil, 0, fmt.Errorf("%s: gzip: %w", path, err)
		}
		return &stack{Reader: zr, closers: []io.Closer{zr, f}}, st.Size(), nil
	case bytes.HasPrefix(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(128<<20))
		if err != nil {
			f.Close()
			return nil, 0, fmt.Errorf("%s: zstd: %w", path, err)
		}
		return &stack{Reader: zr, closers: []io.Closer{closerFunc(func() error { zr.Close(); return nil }), f}}, st.Size(), nil
	}
	return &stack{Reader: br, closers: []io.Closer{f}}, st.Size(), nil
}

type stack struct {
	io.Reader
	closers []io.Closer
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
