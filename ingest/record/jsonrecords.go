package record

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// Some tools write their JSON records as one document rather than one
// record per line, and users hand over records as `jq .` shows them: a
// pretty-printed object, an array of objects, or several such values one
// after another. JSONRecords turns a line parser into a DocParser of such
// documents, one call per record (an object at the top level or in a
// top-level array), so every JSON line format reads both shapes. A
// record's errors name the line it starts on. Records are read one at a
// time: memory is bounded by the largest record, not the file.
func JSONRecords[T Row](newParser func() LineParser[T]) DocParser[T] {
	return func(r io.Reader, file string, out *DocOut[T]) error {
		p := newParser()
		sc := &valueScanner{r: bufio.NewReaderSize(r, 256<<10), line: 1}
		for {
			rec, line, err := sc.next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				derr := out.Done(line, rec, fmt.Errorf("%w: %v", ErrSyntax, err))
				if sc.fatal || derr != nil {
					return derr
				}
				continue // one stray value (a line of text), not the rest of the file
			}
			if perr := p.ParseLine(rec, &out.Queue); perr != nil {
				if err := out.Done(line, rec, perr); err != nil {
					return err
				}
				continue
			}
			if err := out.Done(line, nil, nil); err != nil {
				return err
			}
		}
	}
}

// valueScanner yields the objects of a stream of JSON values, entering
// top-level arrays, with the line each object starts on.
type valueScanner struct {
	r       *bufio.Reader
	line    int64
	inArray bool
	buf     []byte
	// fatal: the last error leaves the stream where reading cannot go
	// on (a truncated or oversized object, a nested array).
	fatal bool
}

func (s *valueScanner) readByte() (byte, error) {
	c, err := s.r.ReadByte()
	if c == '\n' {
		s.line++
	}
	return c, err
}

// next returns the next object's bytes and starting line; io.EOF at the end.
// A truncated last object returns its bytes with an error.
func (s *valueScanner) next() ([]byte, int64, error) {
	for {
		c, err := s.readByte()
		if err != nil {
			return nil, s.line, io.EOF // a missing closing ']' is a file still being written
		}
		switch c {
		case ' ', '\t', '\r', '\n', ',':
			continue
		case '[':
			if s.inArray {
				s.fatal = true
				return nil, s.line, fmt.Errorf("nested array at the top level")
			}
			s.inArray = true
			continue
		case ']':
			s.inArray = false
			continue
		case '{':
			return s.object()
		default:
			line := s.line
			// Skip to the end of the line: one bad value, not the rest of the file.
			rest, _ := s.r.ReadBytes('\n')
			if len(rest) > 0 && rest[len(rest)-1] == '\n' {
				s.line++
			}
			return append([]byte{c}, bytes.TrimRight(rest, "\r\n")...), line, fmt.Errorf("expected an object, found %q", c)
		}
	}
}

func (s *valueScanner) object() ([]byte, int64, error) {
	line := s.line
	s.buf = append(s.buf[:0], '{')
	depth, inString, escaped := 1, false, false
	for depth > 0 {
		c, err := s.readByte()
		if err != nil {
			s.fatal = true
			return s.buf, line, fmt.Errorf("unexpected end of input inside an object (truncated file?)")
		}
		if len(s.buf) >= MaxLineBytes {
			s.fatal = true
			return s.buf[:1024], line, fmt.Errorf("%w: record over %d bytes", ErrLineTooLong, MaxLineBytes)
		}
		s.buf = append(s.buf, c)
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		}
	}
	return s.buf, line, nil
}

// FirstJSONObject returns the first object of a JSON document (compacted,
// as sniffing holds it), entering a top-level array: what a line format's
// sniffer sees of a record. A document cut inside its first object is
// returned from that object's start, as it is.
func FirstJSONObject(doc []byte) []byte {
	sc := &valueScanner{r: bufio.NewReader(bytes.NewReader(doc)), line: 1}
	obj, _, err := sc.next()
	if err != nil && len(obj) == 0 {
		return doc
	}
	return bytes.Clone(obj)
}
