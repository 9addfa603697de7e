package ingest

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Decoder is the pull interface every input format implements for the rows
// of its tier. Next decodes the next record into row and returns io.EOF
// after the last one. A *ParseError rejects one input unit (a line, for the
// line formats): the caller records it and calls Next again, so one bad line
// never stops a file.
type Decoder[T Row] interface {
	Next(row *T) error
}

// lineParser is what a line-oriented format implements: turn one non-blank
// line into rows, each taken from out.next() and filled in before the next
// one is taken. Zero rows is fine (a line of a kind the format does not
// keep); an error rejects the whole line, rows included. A parser keeps
// per-worker state (interned labels), so each worker makes its own.
type lineParser[T Row] interface {
	parseLine(line []byte, out *rowQueue[T]) error
}

// docParser is what a format that is not one record per line implements (a
// JSON array of trace fragments, one JSON document per file): it reads the
// whole input and reports each input unit it decodes (a record, a group of
// fragments) through out. Such files are read by one goroutine each.
type docParser[T Row] func(r io.Reader, file string, out *DocOut[T]) error

// format is one registered input format of one tier.
type format struct {
	tier  Tier
	name  string
	sniff func(firstLine []byte) bool
	// newParser is a func() lineParser[T] for a line format, doc a
	// docParser[T] for a document format, for the tier's row type T.
	newParser any
	doc       any
	// options, for a format that takes settings from Options.FormatOptions
	// (a user's log format string), returns the newParser of one run, or
	// why the settings are wrong.
	options func(opts map[string]string) (newParser any, err error)
}

// configureFormats returns the newParser of every format that takes
// options, configured for one run.
func configureFormats(opts map[string]string) (map[*format]any, error) {
	m := map[*format]any{}
	for _, fs := range registry {
		for _, f := range fs {
			if f.options != nil {
				np, err := f.options(opts)
				if err != nil {
					return nil, err
				}
				m[f] = np
			}
		}
	}
	return m, nil
}

var registry = map[Tier][]*format{}

func registerLine[T Row](t Tier, name string, sniff func([]byte) bool, newParser func() lineParser[T]) {
	registry[t] = append(registry[t], &format{tier: t, name: name, sniff: sniff, newParser: newParser})
}

func registerDoc[T Row](t Tier, name string, sniff func([]byte) bool, parse docParser[T]) {
	registry[t] = append(registry[t], &format{tier: t, name: name, sniff: sniff, doc: parse})
}

// DocOut receives what a document format decodes. Rows taken with Next
// belong to the current unit until Done commits or rejects them.
type DocOut[T Row] struct {
	file    string
	queue   rowQueue[T]
	emit    func(rows []T) error
	reject  func(*ParseError) error
	units   int64
	decoded int64
	rows    int64
}

// Next returns a new zero row of the current unit, good until the next call.
func (o *DocOut[T]) Next() *T { return o.queue.next() }

// Done ends the current unit, which starts at line: with err nil its rows
// are kept, otherwise they are dropped and the unit is rejected with err
// (and raw, cut and redacted, kept in rejects.jsonl).
func (o *DocOut[T]) Done(line int64, raw []byte, err error) error {
	o.units++
	defer o.queue.reset()
	if err != nil {
		return o.reject(&ParseError{File: o.file, Line: line, Err: err, Raw: raw})
	}
	o.decoded++
	for i := range o.queue.rows {
		setSource(&o.queue.rows[i], o.file, line)
	}
	o.rows += int64(len(o.queue.rows))
	return o.emit(o.queue.rows)
}

// Formats lists the format names a tier accepts, for usage messages.
func Formats(t Tier) []string {
	var names []string
	for _, f := range registry[t] {
		names = append(names, f.name)
	}
	sort.Strings(names)
	return names
}

// isFormatName reports whether name is the name of a format of any tier.
func isFormatName(name string) bool {
	for _, fs := range registry {
		for _, f := range fs {
			if f.name == name {
				return true
			}
		}
	}
	return false
}

func lookupFormat(t Tier, name string) (*format, error) {
	for _, f := range registry[t] {
		if f.name == name {
			return f, nil
		}
	}
	return nil, fmt.Errorf("unknown %s format %q (known: %s)", t, name, strings.Join(Formats(t), ", "))
}

// sniffFormat picks the format of a file from its first non-blank line.
func sniffFormat(t Tier, firstLine []byte) (*format, error) {
	return sniffFrom(t, "", [][]byte{firstLine}, nil)
}

// sniffFrom picks the format of file from the lines peekSniffLines
// returned (the first line peekFirstLine returned ahead of them): the
// first line some format recognises decides, so leading lines that tell
// nothing (a launcher banner, a CSV header) are passed over. A JSON line
// is also tried with its whitespace removed, as log shippers re-serialize
// records with spaces. When no line is recognised the error names the
// formats whose parsers accepted most of the lines and the flag to pass.
//
// doc, when not nil, is a pretty-printed JSON document the lines end with,
// compacted: it is one record of a document format, never a line, so a
// line format that recognises it stands for its document form, NAME-json.
func sniffFrom(t Tier, file string, lines [][]byte, doc []byte) (*format, error) {
	if doc != nil {
		for _, f := range registry[t] {
			if f.sniff == nil || !f.sniff(doc) {
				continue
			}
			if f.doc != nil {
				return f, nil
			}
			if d, err := lookupFormat(t, f.name+"-json"); err == nil && d.doc != nil {
				return d, nil
			}
		}
	}
	for _, line := range lines {
		variants := [][]byte{line}
		if len(line) > 0 && (line[0] == '{' || line[0] == '[') {
			if c := compactJSON(line); len(c) != len(line) {
				variants = append(variants, c)
			}
		}
		for _, v := range variants {
			for _, f := range registry[t] {
				if f.sniff != nil && f.sniff(v) {
					return f, nil
				}
			}
		}
	}
	closest, counts := closestFormats(t, lines)
	flag := "--" + string(t) + " FORMAT:" + shellQuote(file)
	near := "no known format decodes them; known: " + strings.Join(Formats(t), ", ")
	if len(closest) > 0 {
		flag = "--" + string(t) + " " + closest[0] + ":" + shellQuote(file)
		var parts []string
		for i, name := range closest {
			parts = append(parts, fmt.Sprintf("%s decodes %d of %d", name, counts[i], len(lines)))
		}
		near = "closest: " + strings.Join(parts, ", ")
	}
	if len(closest) == 0 && t == Gateway && accessLogLike(lines) {
		near = "an access log in a format of its own: closest nginx or envoy, given the format string"
		flag = "--gateway nginx:" + shellQuote(file) + " --nginx-format '…' (or envoy with --envoy-format)"
	}
	if file == "" {
		flag = "FORMAT:GLOB"
	}
	return nil, fmt.Errorf("%w: cannot tell the %s format from the first lines (%s); name it with %s",
		ErrUnknownFormat, t, near, flag)
}

// accessLogLike reports whether one of lines holds a quoted HTTP request
// line (`"POST /v1/chat/completions HTTP/1.1"`), as access logs do.
func accessLogLike(lines [][]byte) bool {
	for _, l := range lines {
		for _, m := range []string{`"GET /`, `"POST /`, `"PUT /`, `"DELETE /`, `"HEAD /`, `"PATCH /`, `"OPTIONS /`} {
			if strings.Contains(string(l), m) {
				return true
			}
		}
	}
	return false
}

// closestFormats lists the line formats of tier t whose parsers turn the
// most of lines into rows (at least one), best first.
func closestFormats(t Tier, lines [][]byte) (names []string, counts []int) {
	type score struct {
		name string
		n    int
	}
	var scores []score
	for _, f := range registry[t] {
		var n int
		switch t {
		case Client:
			n = rowLines[ClientRow](f.newParser, lines)
		case Gateway:
			n = rowLines[GatewayRow](f.newParser, lines)
		case Server:
			n = rowLines[ServerRow](f.newParser, lines)
		}
		if n > 0 {
			scores = append(scores, score{f.name, n})
		}
	}
	sort.SliceStable(scores, func(i, j int) bool { return scores[i].n > scores[j].n })
	for i, s := range scores {
		if i == 3 {
			break
		}
		names = append(names, s.name)
		counts = append(counts, s.n)
	}
	return names, counts
}

// rowLines counts the lines that the line parser newParser makes at least
// one row of without an error; 0 for a document format.
func rowLines[T Row](newParser any, lines [][]byte) (n int) {
	np, ok := newParser.(func() lineParser[T])
	if !ok {
		return 0
	}
	defer func() {
		if recover() != nil {
			n = 0
		}
	}()
	p := np()
	for _, line := range lines {
		var q rowQueue[T]
		if err := p.parseLine(line, &q); err == nil && len(q.rows) > 0 {
			n++
		}
	}
	return n
}

// shellQuote quotes s for a POSIX shell when it holds anything but the
// characters of ordinary paths and globs.
func shellQuote(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./*?+=,@%", r)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

// NewDecoder returns a streaming decoder of the named format (empty: sniffed
// from the first line) for tier t reading r; name is used in errors. It is
// the single-threaded form of what Run does in parallel, for library users
// and tests.
func NewDecoder[T Row](t Tier, formatName string, r io.Reader, name string) (Decoder[T], error) {
	c := newChunker(name, r)
	var f *format
	var err error
	if formatName == "" {
		first, perr := c.peekFirstLine()
		if perr != nil {
			return nil, perr
		}
		f, err = sniffFormat(t, first)
	} else {
		f, err = lookupFormat(t, formatName)
	}
	if err != nil {
		return nil, err
	}
	newParser, ok := f.newParser.(func() lineParser[T])
	if !ok {
		return nil, fmt.Errorf("format %s is not a %s line format", f.name, t)
	}
	return &lineStream[T]{c: c, parser: newParser()}, nil
}

// lineStream walks the chunks of one reader in order.
type lineStream[T Row] struct {
	c       *chunker
	parser  lineParser[T]
	cur     *chunkDecoder[T]
	err     error
	decoded int64 // lines decoded in finished chunks
}

func (d *lineStream[T]) Next(row *T) error {
	for {
		if d.cur != nil {
			err := d.cur.Next(row)
			if err != io.EOF {
				return err
			}
			d.decoded += d.cur.decoded
			d.cur = nil
		}
		if d.err != nil {
			return d.err
		}
		ch, err := d.c.next()
		if err != nil {
			d.err = err
			if ch == nil {
				return err
			}
		}
		if ch != nil {
			if ch.tooLong != nil {
				e := ch.tooLong
				ch.tooLong = nil
				d.cur = newChunkDecoder(ch, d.parser)
				return e
			}
			d.cur = newChunkDecoder(ch, d.parser)
		}
	}
}
