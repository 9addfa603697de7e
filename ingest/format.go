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
	for _, f := range registry[t] {
		if f.sniff != nil && f.sniff(firstLine) {
			return f, nil
		}
	}
	return nil, fmt.Errorf("%w: cannot tell the %s format from the first line; name it as FORMAT:GLOB (known: %s)",
		ErrUnknownFormat, t, strings.Join(Formats(t), ", "))
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
