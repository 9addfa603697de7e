package ingest

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// The OpenTelemetry Collector's file exporter writes one export (a batch
// of spans, an ExportTraceServiceRequest) either as a JSON line (the
// default, `format: json`) or, with `format: proto` or any `compression`,
// as a frame: a 4-byte big-endian length, then that many bytes of the
// marshalled export (protobuf, or JSON), which with `compression: zstd` is
// one zstd frame of it (zstd.EncodeAll per export). Such a file is not a
// zstd stream: `zstd -d` fails on it. (Its newer
// exporter.file.nativeCompression feature gate writes a whole-file zstd
// stream instead: JSON lines, or these frames uncompressed, inside it.)
//
// openInput unframes such a file as it is read, after undoing any whole-file
// compression, the way it undoes gzip: each frame becomes one OTLP JSON
// line (a protobuf export re-encoded by pdata, a JSON export as written), so
// every reader of OTLP JSON (vllm-otlp, vllm-otlp-json, otel-gateway,
// otel-client) reads framed files too, named or sniffed, and line N of such
// a file is its Nth frame.
//
// A framed file is told apart from text by its first bytes: a length of 1 to
// MaxLineBytes (so its first byte is 0, which no text log starts with),
// then either the zstd magic 28 b5 2f fd, or 0x0a, the tag of the export's
// resource_spans field, with a first field length that fits in the frame.
// A frame's length is never over MaxLineBytes either (16 MiB), so a framed
// file never starts with the gzip or zstd magic bytes, and openInput does
// not take it for a compressed stream.
//
// Errors. A frame whose length is over MaxLineBytes, or a file that ends
// inside a frame or its length, ends the file (nothing after it can be
// found) with the frame's number and byte offset; the frames before it
// count. A frame that is read whole but does not decode (a zstd frame that
// is corrupt or inflates past MaxLineBytes, protobuf that is not OTLP
// traces) becomes a blank line and the file goes on; readFile then counts
// that line as rejected, not blank, with a reject naming the frame and why
// (frameReader.bad).
// Protobuf frames are read as traces: a proto file that a collector's
// metrics or logs pipeline shares with its traces pipeline cannot be told
// apart frame by frame (JSON names its signal, and is read right).

var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// frameHeadLen is how many bytes isOTLPFrameHead wants to look at.
const frameHeadLen = 16

// isOTLPFrameHead reports whether b, the first bytes of a file, open a
// collector frame.
func isOTLPFrameHead(b []byte) bool {
	if len(b) < 6 {
		return false
	}
	n := binary.BigEndian.Uint32(b)
	if n == 0 || n > MaxLineBytes {
		return false
	}
	p := b[4:]
	if bytes.HasPrefix(p, zstdMagic) {
		return n >= uint32(len(zstdMagic))
	}
	if p[0] != 0x0a {
		return false
	}
	v, k := binary.Uvarint(p[1:])
	return k > 0 && uint64(1+k) <= uint64(n) && v <= uint64(n)-uint64(1+k)
}

// frameReader turns collector frames into OTLP JSON lines.
type frameReader struct {
	r      io.Reader
	off    int64 // offset of the next frame in the (decompressed) input
	frames int64 // frames read
	line   []byte
	pos    int
	buf    bytes.Buffer
	zbuf   []byte
	zd     *zstd.Decoder
	bad    []badFrame // frames read whole that did not decode
	err    error
}

// badFrame is a frame read whole that did not decode: line is its line
// (its number), err says why.
type badFrame struct {
	line int64
	err  error
}

func newFrameReader(r io.Reader) *frameReader { return &frameReader{r: r} }

// errFrame is the reason a framed input ends early.
var errFrame = errors.New("bad collector frame")

func (f *frameReader) Read(p []byte) (int, error) {
	for f.pos == len(f.line) {
		if f.err != nil {
			return 0, f.err
		}
		f.line, f.pos = f.line[:0], 0
		f.err = f.next()
	}
	n := copy(p, f.line[f.pos:])
	f.pos += n
	return n, nil
}

// next reads one frame into f.line, ending it with '\n'.
func (f *frameReader) next() error {
	var head [4]byte
	k, err := io.ReadFull(f.r, head[:])
	if err == io.EOF {
		return io.EOF
	}
	no, at := f.frames+1, f.off
	if err != nil {
		return f.fail(no, at, err, "the file ends inside the length of a frame (%d of 4 bytes)", k)
	}
	n := int64(binary.BigEndian.Uint32(head[:]))
	if n > MaxLineBytes {
		return fmt.Errorf("%w %d at byte %d: length %d is over the %d MiB limit (not a collector frame?)",
			errFrame, no, at, n, MaxLineBytes>>20)
	}
	// Read as much as arrives, never allocating n up front: the length is
	// not trusted until the bytes are there.
	f.buf.Reset()
	got, err := f.buf.ReadFrom(io.LimitReader(f.r, n))
	if err == nil && got < n {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return f.fail(no, at, err, "the file ends %d bytes into a frame of %d", got, n)
	}
	f.frames++
	f.off += 4 + n
	if err := f.decode(f.buf.Bytes()); err != nil {
		f.bad = append(f.bad, badFrame{no, fmt.Errorf("%w %d at byte %d: %w", errFrame, no, at, err)})
		f.line = f.line[:0]
	}
	f.line = append(f.line, '\n')
	return nil
}

// fail reports a frame cut short; a read error of the input is kept as is.
func (f *frameReader) fail(no, at int64, err error, format string, args ...any) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fmt.Errorf("%w %d at byte %d: %s (truncated file?)", errFrame, no, at, fmt.Sprintf(format, args...))
	}
	return err
}

// decode sets f.line to the JSON of one frame's payload, without '\n'.
func (f *frameReader) decode(p []byte) error {
	if bytes.HasPrefix(p, zstdMagic) {
		if f.zd == nil {
			zd, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
				zstd.WithDecoderMaxMemory(MaxLineBytes))
			if err != nil {
				return err
			}
			f.zd = zd
		}
		var err error
		if f.zbuf, err = f.zd.DecodeAll(p, f.zbuf[:0]); err != nil {
			return fmt.Errorf("zstd: %v", err)
		}
		p = f.zbuf
	}
	if t := bytes.TrimLeft(p, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		// JSON as the exporter wrote it; white space between tokens is the
		// only place a raw line break can be in JSON, so it goes.
		f.line = append(f.line[:0], t...)
		for i, c := range f.line {
			if c == '\n' || c == '\r' {
				f.line[i] = ' '
			}
		}
		return nil
	}
	if len(p) == 0 { // an empty export
		f.line = f.line[:0]
		return nil
	}
	td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(p)
	if err != nil {
		return fmt.Errorf("not OTLP protobuf traces: %v", err)
	}
	js, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	if err != nil {
		return err
	}
	f.line = append(f.line[:0], js...)
	return nil
}

// Close releases the zstd decoder.
func (f *frameReader) Close() error {
	if f.zd != nil {
		f.zd.Close()
	}
	return nil
}

// unframe returns r, or a frameReader over it when its first bytes open a
// collector frame.
func unframe(br *bufio.Reader) (io.Reader, io.Closer) {
	head, _ := br.Peek(frameHeadLen)
	if !isOTLPFrameHead(head) {
		return br, nil
	}
	fr := newFrameReader(br)
	return fr, fr
}
