package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/infertrace/infertrace/ingest/record"
)

// Line formats are read in chunks of whole lines so that one large file is
// decoded by every worker at once. A chunker reads one input sequentially: it
// cuts the stream at line boundaries, numbers the lines, counts blank lines
// and drops exact duplicates (a log shipper that delivered a line twice), so
// that these counts do not depend on how chunks are spread over workers.

const (
	chunkSize = 1 << 20 // bytes of whole lines handed to a worker at once
	// dupWindow is how many recent distinct lines of a file are remembered
	// to drop exact duplicates. Duplicates further apart are kept here and
	// collapsed by the analysis, which drops exact duplicate records.
	dupWindow = 1 << 14
)

var chunkPool = sync.Pool{New: func() any { b := make([]byte, 0, chunkSize); return &b }}

type chunk struct {
	file      string
	data      []byte  // whole lines; the last one may lack its '\n' at the end of input
	firstLine int64   // number of the first line in data (1-based)
	dups      []int64 // numbers of the lines in data that are exact duplicates, ascending
	tooLong   *ParseError
	buf       *[]byte // pooled storage behind data
	// times holds the collector's time of each line of data (by number
	// from firstLine; 0: none) when the file's prefix carries one
	// (prefix.go), else nil. timesBuf is its pooled storage.
	times    []int64
	timesBuf *[]int64
	src      *source
}

func (c *chunk) release() {
	if c.buf != nil && cap(*c.buf) == chunkSize {
		*c.buf = (*c.buf)[:0]
		chunkPool.Put(c.buf)
	}
	c.buf, c.data = nil, nil
	if c.timesBuf != nil {
		timesPool.Put(c.timesBuf)
		c.timesBuf, c.times = nil, nil
	}
}

var timesPool = sync.Pool{New: func() any { b := make([]int64, 0, 1<<12); return &b }}

type chunker struct {
	name       string
	r          io.Reader
	carry      []byte
	line       int64 // lines handed out so far
	eof        bool
	pending    *chunk
	pendingErr error
	window     dedup

	// prefix strips the collector prefix of every line (prefix.go), nil
	// for a file without one; prefixDone says it was settled, from the
	// first chunk, or set by setPrefix.
	prefix     *stripper
	prefixDone bool

	lines, blank, dups int64
}

// setPrefix replaces detection: with re, its match at the start of every
// line is removed; with nil, no prefix is.
func (c *chunker) setPrefix(re *regexp.Regexp) {
	c.prefixDone = true
	if re != nil {
		c.prefix = regexStripper(re)
	}
}

func newChunker(name string, r io.Reader) *chunker {
	return &chunker{name: name, r: r}
}

// peekFirstLine returns the first non-blank line, for sniffing; nil if the
// input has none. A lone "{" (a pretty-printed JSON document) is returned
// joined with the next non-blank line, `{"name": "llm_request",`, so that
// sniffers see the document's first member. The chunk read stays pending
// for next.
func (c *chunker) peekFirstLine() ([]byte, error) {
	if c.pending == nil {
		ch, err := c.next()
		if ch == nil {
			if err == io.EOF {
				return nil, nil
			}
			return nil, err
		}
		// A read error after some whole lines is handed out with them by
		// next, as if it had not peeked.
		c.pending, c.pendingErr = ch, err
	}
	data := c.pending.data
	var first []byte
	for len(data) > 0 {
		var line []byte
		line, data = cutLine(data)
		if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		}
		if first != nil {
			line = append(first, line...)
		} else if string(line) == "{" {
			first = []byte{'{'}
			continue
		}
		if len(line) > 64<<10 {
			line = line[:64<<10]
		}
		return line, nil
	}
	return first, nil
}

// Sniffing looks at up to sniffLines non-blank, non-comment lines of the
// first sniffBytes of a file, so that a banner or a comment before the
// records does not hide the format.
const (
	sniffLines = 8
	sniffBytes = 4 << 10
	// A pretty-printed document is sniffed from up to its first 64 KiB,
	// so that a sniffer that wants a whole record (LiteLLM's) sees one.
	sniffDocBytes = 64 << 10
)

// peekSniffLines returns the lines a file's format is sniffed from: up to
// sniffLines non-blank lines of its first chunk that are not comments (#,
// //), each trimmed. A JSON document that starts on a line of its own ("{",
// "[", "[{") is one candidate: its first sniffBytes joined and with the
// whitespace between JSON tokens removed, returned as doc rather than
// among the lines. The chunk read stays pending.
func (c *chunker) peekSniffLines() (lines [][]byte, doc []byte, err error) {
	first, err := c.peekFirstLine()
	if err != nil || c.pending == nil {
		return nil, nil, err
	}
	lines, doc = c.sniffLines()
	// The first line as peekFirstLine joins it (`{` and the document's
	// first member) is tried first, as before.
	if first != nil && (len(lines) == 0 || !bytes.Equal(lines[0], first)) {
		lines = append([][]byte{first}, lines...)
	}
	return lines, doc, nil
}

func (c *chunker) sniffLines() ([][]byte, []byte) {
	data := c.pending.data
	var out [][]byte
	for len(data) > 0 && len(out) < sniffLines && len(c.pending.data)-len(data) < sniffBytes {
		start := data
		var line []byte
		line, data = cutLine(data)
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' || bytes.HasPrefix(line, []byte("//")) {
			continue
		}
		if s := string(line); s == "{" || s == "[" || strings.HasPrefix(s, "[{") || strings.HasPrefix(s, "[ {") {
			doc := start
			if len(doc) > sniffDocBytes {
				doc = doc[:sniffDocBytes]
			}
			return out, record.CompactJSON(doc)
		}
		if len(line) > 64<<10 {
			line = line[:64<<10]
		}
		out = append(out, line)
	}
	return out, nil
}

// documentFirst reports whether the first line of the file that is
// neither blank nor a comment starts a JSON document ("{", "[", "[{"), as
// peekSniffLines finds it.
func (c *chunker) documentFirst() bool {
	if c.pending == nil {
		return false
	}
	lines, doc := c.sniffLines()
	return doc != nil && len(lines) == 0
}

// rest returns the input not yet handed out as chunks, peeked data
// included, for the formats that read a whole document.
func (c *chunker) rest() io.Reader {
	if c.prefix != nil { // read through next, which strips the prefixes
		return &chunkReader{c: c}
	}
	var head []byte
	if c.pending != nil {
		head = append(head, c.pending.data...)
		c.pending.release()
		c.pending = nil
	}
	head = append(head, c.carry...)
	c.carry = nil
	if c.eof {
		return bytes.NewReader(head)
	}
	return io.MultiReader(bytes.NewReader(head), c.r)
}

// next returns the next chunk; io.EOF after the last. A read error (a
// corrupt gzip stream, say) is returned with the chunk of the whole lines
// read before it, so nothing read is lost.
func (c *chunker) next() (*chunk, error) {
	if p := c.pending; p != nil {
		err := c.pendingErr
		c.pending, c.pendingErr = nil, nil
		return p, err
	}
	if c.eof && len(c.carry) == 0 {
		return nil, io.EOF
	}
	bp := chunkPool.Get().(*[]byte)
	buf := append((*bp)[:0], c.carry...)
	c.carry = c.carry[:0]
	var readErr error
	for {
		if !c.eof && len(buf) < cap(buf) {
			n, err := readFull(c.r, buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if err == io.EOF {
				c.eof = true
			} else if err != nil {
				c.eof = true
				readErr = fmt.Errorf("%s: after line %d: %w", c.name, c.line+int64(bytes.Count(buf, []byte{'\n'})), err)
			}
		}
		if len(buf) == 0 && c.eof {
			chunkPool.Put(bp)
			if readErr != nil {
				return nil, readErr
			}
			return nil, io.EOF
		}
		cut := bytes.LastIndexByte(buf, '\n') + 1
		if c.eof {
			cut = len(buf)
		}
		if !c.prefixDone && cut > 0 {
			c.prefixDone = true
			c.prefix = detectPrefix(buf[:cut])
		}
		if c.prefix != nil && c.prefix.cri && !c.eof && cut > 0 {
			// A CRI line split into parts is joined whole: the parts at
			// the end wait for the rest, unless they fill the buffer.
			switch held := trailingPartial(buf, cut); {
			case held > 0:
				cut = held
			case cap(buf) < MaxLineBytes+1:
				cut = 0 // the buffer grows, below
			}
		}
		if cut > 0 {
			c.carry = append(c.carry, buf[cut:]...)
			ch := &chunk{file: c.name, data: buf[:cut], firstLine: c.line + 1, buf: bp}
			*bp = buf
			if c.prefix != nil {
				c.scanStrip(ch)
			} else {
				c.scan(ch)
			}
			return ch, readErr
		}
		// No line end in a full buffer: a long line. The buffer grows to
		// hold a line of MaxLineBytes and its '\n'; a line that fills
		// that without one is longer.
		if cap(buf) < MaxLineBytes+1 {
			bigger := make([]byte, len(buf), min(2*cap(buf), MaxLineBytes+1))
			copy(bigger, buf)
			buf, bp = bigger, &bigger
			continue
		}
		return c.skipLongLine(buf)
	}
}

// readFull is io.ReadFull without its conversion of a short read to
// io.ErrUnexpectedEOF, which a truncated gzip stream returns itself: here
// only io.EOF ends a file cleanly.
func readFull(r io.Reader, p []byte) (int, error) {
	n := 0
	for n < len(p) {
		m, err := r.Read(p[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// skipLongLine rejects a line longer than MaxLineBytes, keeping its first
// KiB, and discards input up to its end.
func (c *chunker) skipLongLine(buf []byte) (*chunk, error) {
	c.line++
	c.lines++
	e := &ParseError{File: c.name, Line: c.line, Err: fmt.Errorf("%w: over %d bytes", ErrLineTooLong, MaxLineBytes),
		Raw: append([]byte(nil), buf[:1024]...)}
	scratch := buf[:cap(buf)]
	for !c.eof {
		n, err := c.r.Read(scratch)
		if i := bytes.IndexByte(scratch[:n], '\n'); i >= 0 {
			c.carry = append(c.carry[:0], scratch[i+1:n]...)
			break
		}
		if err != nil {
			c.eof = true
			if !errors.Is(err, io.EOF) {
				return &chunk{file: c.name, firstLine: c.line + 1, tooLong: e}, err
			}
		}
	}
	return &chunk{file: c.name, firstLine: c.line + 1, tooLong: e}, nil
}

// scan numbers the lines of ch and finds its duplicates.
func (c *chunker) scan(ch *chunk) {
	data := ch.data
	for len(data) > 0 {
		var line []byte
		line, data = cutLine(data)
		c.line++
		c.lines++
		line = record.TrimCR(line)
		if record.IsBlank(line) {
			c.blank++
			continue
		}
		if c.window.seen(line) {
			c.dups++
			ch.dups = append(ch.dups, c.line)
		}
	}
}

// cutLine splits data after its first line, dropping the '\n'.
func cutLine(data []byte) (line, rest []byte) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return data[:i], data[i+1:]
	}
	return data, nil
}

// dedup remembers the 64-bit hashes of at least the last dupWindow
// distinct lines, in two open-addressing tables used as generations: when
// the current one holds dupWindow hashes it becomes the previous one and the
// old previous one is cleared. Memory is fixed (512 KiB per file being read).
type dedup struct {
	seed      maphash.Seed
	cur, prev []uint64 // 0 marks an empty slot
	n         int
}

const dedupSlots = 2 * dupWindow // load factor at most 1/2

func (d *dedup) seen(line []byte) bool {
	if d.cur == nil {
		d.seed = maphash.MakeSeed()
		d.cur = make([]uint64, dedupSlots)
		d.prev = make([]uint64, dedupSlots)
	}
	h := maphash.Bytes(d.seed, line) | 1 // never 0
	if probe(d.prev, h) || probe(d.cur, h) {
		return true
	}
	if d.n == dupWindow {
		d.prev, d.cur = d.cur, d.prev
		clear(d.cur)
		d.n = 0
	}
	for i := h & (dedupSlots - 1); ; i = (i + 1) & (dedupSlots - 1) {
		if d.cur[i] == 0 {
			d.cur[i] = h
			d.n++
			return false
		}
	}
}

func probe(t []uint64, h uint64) bool {
	for i := h & (dedupSlots - 1); ; i = (i + 1) & (dedupSlots - 1) {
		switch t[i] {
		case h:
			return true
		case 0:
			return false
		}
	}
}

// chunkDecoder is the Decoder of one chunk of a line format.
type chunkDecoder[T Row] struct {
	parser  record.LineParser[T]
	file    string
	data    []byte
	line    int64
	dups    []int64
	times   []int64 // the collector's time of each line from first (chunk.times)
	first   int64
	queue   record.RowQueue[T]
	decoded int64 // lines that parsed, whatever their number of rows
}

func newChunkDecoder[T Row](c *chunk, p record.LineParser[T]) *chunkDecoder[T] {
	d := &chunkDecoder[T]{parser: p, file: c.file, data: c.data, line: c.firstLine, dups: c.dups, times: c.times, first: c.firstLine}
	if c.src != nil {
		d.queue.Zone = c.src.zone
	}
	return d
}

func (d *chunkDecoder[T]) Next(row *T) error {
	for {
		if q := &d.queue; q.Pos < len(q.Rows) {
			*row = q.Rows[q.Pos]
			q.Pos++
			return nil
		}
		if len(d.data) == 0 {
			return io.EOF
		}
		var line []byte
		line, d.data = cutLine(d.data)
		n := d.line
		d.line++
		if len(d.dups) > 0 && d.dups[0] == n {
			d.dups = d.dups[1:]
			continue
		}
		line = record.TrimCR(line)
		if record.IsBlank(line) {
			continue
		}
		d.queue.Reset()
		if d.times != nil {
			d.queue.LineTime = 0
			if i := n - d.first; i < int64(len(d.times)) {
				d.queue.LineTime = d.times[i]
			}
		}
		if err := d.parser.ParseLine(line, &d.queue); err != nil {
			d.queue.Reset()
			return &ParseError{File: d.file, Line: n, Err: err, Raw: line}
		}
		d.decoded++
		for i := range d.queue.Rows {
			record.SetSource(&d.queue.Rows[i], d.file, n)
		}
	}
}

// chunkReader reads the chunks of c as one stream, for a document format
// in a file whose lines have a prefix to strip.
type chunkReader struct {
	c   *chunker
	cur *chunk
	off int
	err error
}

func (r *chunkReader) Read(p []byte) (int, error) {
	for r.cur == nil || r.off == len(r.cur.data) {
		if r.cur != nil {
			r.cur.release()
			r.cur = nil
		}
		if r.err != nil {
			return 0, r.err
		}
		ch, err := r.c.next()
		r.cur, r.off, r.err = ch, 0, err
		if ch == nil {
			return 0, err
		}
	}
	n := copy(p, r.cur.data[r.off:])
	r.off += n
	return n, nil
}
