package ingest

import (
	"fmt"
	"io"

	"github.com/infertrace/infertrace/ingest/record"
)

// NewDecoder returns a streaming decoder of the named format (empty: sniffed
// from the first lines, as Run sniffs) for tier t reading r; name is used in
// errors. It is the single-threaded form of what Run does in parallel, for
// library users and tests.
func NewDecoder[T Row](t Tier, formatName string, r io.Reader, name string) (Decoder[T], error) {
	c := newChunker(name, r)
	var f *record.Format
	var err error
	if formatName == "" {
		// Sniffed as Run sniffs: from the first lines, past a banner.
		lines, doc, perr := c.peekSniffLines()
		if perr != nil {
			return nil, perr
		}
		f, err = record.Sniff(t, name, lines, doc)
	} else {
		f, err = record.Lookup(t, formatName)
	}
	if err != nil {
		return nil, err
	}
	newParser, ok := f.NewParser.(func() record.LineParser[T])
	if !ok {
		return nil, fmt.Errorf("format %s is not a %s line format", f.Name, t)
	}
	return &lineStream[T]{c: c, parser: newParser()}, nil
}

// lineStream walks the chunks of one reader in order.
type lineStream[T Row] struct {
	c       *chunker
	parser  record.LineParser[T]
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

// NewLineDecoder returns the streaming decoder of r through the line
// parser p: NewDecoder for a parser that is not registered as it is (a
// format configured with options, in tests); name is used in errors.
func NewLineDecoder[T Row](p record.LineParser[T], r io.Reader, name string) Decoder[T] {
	return &lineStream[T]{c: newChunker(name, r), parser: p}
}

// LineCounts is the line accounting of a line decoder: once Next has
// returned io.EOF, Lines = Decoded + rejected + Duplicates + Blank.
type LineCounts struct {
	Lines, Blank, Duplicates, Decoded int64
}

// Counts returns the line accounting of d, a decoder that NewDecoder or
// NewLineDecoder returned; false for any other.
func Counts[T Row](d Decoder[T]) (LineCounts, bool) {
	s, ok := d.(*lineStream[T])
	if !ok {
		return LineCounts{}, false
	}
	return LineCounts{Lines: s.c.lines, Blank: s.c.blank, Duplicates: s.c.dups, Decoded: s.decoded}, true
}
