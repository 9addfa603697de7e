package ingest

import (
	"context"
	"io"

	"github.com/zeebo/xxh3"
)

// Progress receives how far Run has got, for a display of it: ingest only
// counts, the command renders. Read is called from several goroutines at
// once, about once per MiB read, so it must be safe for concurrent use and
// cheap.
type Progress interface {
	// Start is called once, before any input is read, with the size on
	// disk of all the input files (a file named in two tiers counts twice,
	// as it is read twice).
	Start(totalBytes int64)
	// Read adds bytes read from disk (compressed bytes, for a compressed
	// file) and lines cut from them; at the end of the run the lines sum to
	// the manifest's Lines.
	Read(bytes, lines int64)
}

// meter is an input file's reader as Run sees it: it counts the bytes read
// from disk for Options.Progress, handing them over a MiB at a time, and
// ends the read when ctx is done, so that a document format (read whole by
// one call) stops too.
type meter struct {
	ctx     context.Context
	r       io.Reader
	p       Progress
	pending int64 // bytes read and not yet handed to p
	// h, when not nil, is fed every byte read (the file's fingerprint).
	h *xxh3.Hasher
}

func (m *meter) Read(b []byte) (int, error) {
	if m.ctx.Err() != nil {
		return 0, context.Cause(m.ctx)
	}
	n, err := m.r.Read(b)
	if m.h != nil {
		m.h.Write(b[:n])
	}
	if m.p != nil {
		m.pending += int64(n)
		if m.pending >= chunkSize || err != nil {
			m.p.Read(m.pending, 0)
			m.pending = 0
		}
	}
	return n, err
}
