package formats

import (
	"bufio"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// Helpers shared by the server formats (srv*): cutting text to a size,
// walking a JSON array's values, and srvElems, which reads the elements of
// top-level JSON arrays (Triton traces, TensorRT-LLM /perf_metrics) one at
// a time.

// srvCutUTF8 cuts b to at most n bytes without splitting a character.
func srvCutUTF8(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return b[:n]
}

// srvEachValue calls fn for each element of the JSON array raw (as scanned
// by scanValue, brackets included).
func srvEachValue(raw []byte, fn func(v scan.Value) error) error {
	i := scan.SkipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return scan.SyntaxErr(i, "expected an array")
	}
	i = scan.SkipSpace(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return nil
	}
	for {
		v, next, err := scan.ValueAt(raw, i)
		if err != nil {
			return err
		}
		if err := fn(v); err != nil {
			return err
		}
		i = scan.SkipSpace(raw, next)
		if i >= len(raw) {
			return scan.SyntaxErr(i, scan.ErrUnexpectedEnd.Error())
		}
		switch raw[i] {
		case ',':
			i = scan.SkipSpace(raw, i+1)
		case ']':
			return nil
		default:
			return scan.SyntaxErr(i, "expected ',' or ']' in an array")
		}
	}
}

// srvMaxFragment bounds the bytes of one array element srvElems holds.
const srvMaxFragment = record.MaxLineBytes

// srvElemError rejects an element the scanner could not cut out whole:
// done is true when it was rejected.
func srvElemError(el srvElem, out *record.DocOut[record.ServerRow]) (done bool, err error) {
	switch {
	case el.notArray:
		return true, out.Done(el.line, el.data, scan.SyntaxErr(0, "expected a JSON array; the rest of the file is not read"))
	case el.tooLong:
		return true, out.Done(el.line, el.data, fmt.Errorf("%w: an array element longer than %d bytes", record.ErrLineTooLong, srvMaxFragment))
	case el.truncated:
		return true, out.Done(el.line, el.data, scan.SyntaxErr(len(el.data), "the file ends inside this element (cut while being written?)"))
	}
	return false, nil
}

// srvElems reads the elements of a sequence of top-level JSON arrays (a
// Triton trace file; several /perf_metrics responses appended to one file)
// one at a time, without holding more than one element, and numbers lines.
// A missing closing ']' at the end is accepted.
type srvElems struct {
	r       *bufio.Reader
	line    int64
	inArray bool
	buf     []byte
}

// srvElem is one array element as raw bytes and the line it starts on.
type srvElem struct {
	data      []byte // good until the next call
	line      int64
	truncated bool // the input ended inside it
	tooLong   bool // longer than srvMaxFragment: data holds its first KiB
	notArray  bool // a top-level value that is not an array: data holds its first byte
}

func newSrvElems(r io.Reader) *srvElems {
	return &srvElems{r: bufio.NewReaderSize(r, 64<<10), line: 1}
}

func (s *srvElems) next() (srvElem, error) {
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return srvElem{}, err
		}
		switch c {
		case '\n':
			s.line++
			continue
		case ' ', '\t', '\r':
			continue
		}
		if !s.inArray {
			if c == '[' {
				s.inArray = true
				continue
			}
			return srvElem{data: []byte{c}, line: s.line, notArray: true}, nil
		}
		switch c {
		case ',':
			continue
		case ']':
			s.inArray = false
			continue
		}
		return s.value(c)
	}
}

// value reads one element that starts with c.
func (s *srvElems) value(c byte) (srvElem, error) {
	el := srvElem{line: s.line}
	s.buf = append(s.buf[:0], c)
	keep := func(c byte) {
		if el.tooLong {
			return
		}
		if len(s.buf) >= srvMaxFragment {
			el.tooLong = true
			s.buf = s.buf[:min(len(s.buf), record.RawLimit)]
			return
		}
		s.buf = append(s.buf, c)
	}
	done := func() (srvElem, error) {
		el.data = s.buf
		return el, nil
	}
	if c != '{' && c != '[' {
		// A scalar element: up to the next delimiter.
		for {
			c, err := s.r.ReadByte()
			if err == io.EOF {
				return done()
			}
			if err != nil {
				return srvElem{}, err
			}
			if c == ',' || c == ']' || c == ' ' || c == '\t' || c == '\r' || c == '\n' {
				s.r.UnreadByte()
				return done()
			}
			keep(c)
		}
	}
	// Scan what the reader has buffered a slice at a time.
	depth, inString, escaped := 1, false, false
	for {
		if s.r.Buffered() == 0 {
			if _, err := s.r.Peek(1); err == io.EOF {
				el.truncated = true
				return done()
			} else if err != nil {
				return srvElem{}, err
			}
		}
		chunk, _ := s.r.Peek(s.r.Buffered())
		i := 0
	scan:
		for ; i < len(chunk); i++ {
			c := chunk[i]
			if c == '\n' {
				s.line++
			}
			if inString {
				switch {
				case escaped:
					escaped = false
				case c == '\\':
					escaped = true
				case c == '"':
					inString = false
				}
				continue
			}
			switch c {
			case '"':
				inString = true
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					i++
					break scan
				}
			}
		}
		switch {
		case el.tooLong:
		case len(s.buf)+i > srvMaxFragment:
			el.tooLong = true
			s.buf = s.buf[:min(len(s.buf), record.RawLimit)]
		default:
			s.buf = append(s.buf, chunk[:i]...)
		}
		s.r.Discard(i)
		if depth == 0 {
			return done()
		}
	}
}
