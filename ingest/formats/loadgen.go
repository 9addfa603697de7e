package formats

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strconv"
	"unicode/utf8"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// Helpers shared by the load-generator formats (aiperf, genai-perf,
// guidellm, vllm-bench, llmperf, k6), the mapped jsonl format and the
// Ollama readers: field values with their units, member walks and sniffing
// of JSON records (lg*), and lgDocReader, the streaming reader of the
// formats that write one JSON document rather than one record per line.

// lgUnitScale gives the nanoseconds in one unit of time.
func lgUnitScale(unit string) (int64, bool) {
	switch unit {
	case "ns":
		return 1, true
	case "us", "µs", "μs":
		return 1e3, true
	case "ms":
		return 1e6, true
	case "s", "sec":
		return 1e9, true
	}
	return 0, false
}

var (
	errLgNegative = errors.New("negative")
	errLgRange    = errors.New("too large")
	errLgSyntax   = errors.New("not a decimal number")
)

// lgScaledNS converts a decimal number of units (perUnit nanoseconds each)
// to nanoseconds, exactly and rounded to the nearest nanosecond, without
// going through float64. Exponent forms (2e-05) fall back to float64.
func lgScaledNS(b []byte, perUnit int64) (int64, error) {
	if len(b) == 0 {
		return 0, errLgSyntax
	}
	if b[0] == '-' {
		if f, err := strconv.ParseFloat(string(b), 64); err == nil && f == 0 {
			return 0, nil // -0.0
		}
		return 0, errLgNegative
	}
	if bytes.ContainsAny(b, "eE") {
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, errLgSyntax
		}
		if f < 0 {
			return 0, errLgNegative
		}
		v := math.Round(f * float64(perUnit))
		if v >= math.MaxInt64 {
			return 0, errLgRange
		}
		return int64(v), nil
	}
	i := 0
	var ip uint64
	limit := uint64(math.MaxInt64 / perUnit)
	for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		ip = ip*10 + uint64(b[i]-'0')
		if ip > limit {
			return 0, errLgRange
		}
	}
	if i == 0 {
		return 0, errLgSyntax
	}
	ns := ip * uint64(perUnit)
	if i < len(b) && b[i] == '.' {
		i++
		var frac, den uint64 = 0, 1
		n := 0
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
			if n < 18 { // further digits are far below a nanosecond
				frac = frac*10 + uint64(b[i]-'0')
				den *= 10
			}
			n++
		}
		if n == 0 {
			return 0, errLgSyntax
		}
		hi, lo := bits.Mul64(frac, uint64(perUnit))
		q, rem := bits.Div64(hi, lo, den) // frac < den, so hi < den
		if rem >= den-rem {
			q++
		}
		ns += q
		if ns > math.MaxInt64 {
			return 0, errLgRange
		}
	}
	if i != len(b) {
		return 0, errLgSyntax
	}
	return int64(ns), nil
}

// lgDurationField reads a duration in units of perUnit nanoseconds (a JSON
// number or a numeric string; null, "" and "-" leave dst nil).
func lgDurationField(field string, v scan.Value, perUnit int64, dst **int64) error {
	b, ok, err := scan.TextBytes(field, v)
	if !ok || err != nil {
		return err
	}
	ns, perr := lgScaledNS(b, perUnit)
	if perr != nil {
		return record.FieldErrorf(field, record.ErrBadValue, "%q: %v", b, perr)
	}
	*dst = record.NSPtr(ns)
	return nil
}

// lgEpochField reads a Unix epoch time in units of perUnit nanoseconds
// (1 for epoch ns) into dst, checking it is a plausible wall-clock time.
func lgEpochField(field string, v scan.Value, perUnit int64, dst *int64) error {
	b, ok, err := scan.TextBytes(field, v)
	if !ok || err != nil {
		return err
	}
	ns, perr := lgScaledNS(b, perUnit)
	if perr != nil {
		return record.FieldErrorf(field, record.ErrBadTime, "%q: %v", b, perr)
	}
	if ns < scan.MinEpochSec*1e9 || ns > scan.MaxEpochSec*1e9 {
		return record.FieldErrorf(field, record.ErrBadTime, "%q: outside 2000-01-01..2100-01-01 (is the unit right?)", b)
	}
	*dst = ns
	return nil
}

// lgMembers walks a member that must be an object (or null).
func lgMembers(field string, v scan.Value, fn func(key []byte, v scan.Value) error) error {
	switch v.Kind {
	case scan.Null:
		return nil
	case scan.ObjectKind:
		return scan.Object(v.Raw, func(k []byte, esc bool, v scan.Value) error { return fn(scan.MemberKey(k, esc), v) })
	}
	return record.FieldErrorf(field, record.ErrBadValue, "want an object, got %s", scan.KindName(v.Kind))
}

// lgSniffMembers walks the top-level members of a JSON object that may be
// cut short (a sniffed first line is at most 64 KiB): fn gets each key and
// its value, complete=false for a value cut off, and returns false to stop.
func lgSniffMembers(data []byte, fn func(key []byte, v scan.Value, complete bool) bool) {
	i := scan.SkipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return
	}
	i = scan.SkipSpace(data, i+1)
	for i < len(data) && data[i] == '"' {
		kend, kesc, err := scan.StringAt(data, i+1)
		if err != nil {
			return
		}
		key := scan.MemberKey(data[i+1:kend], kesc)
		i = scan.SkipSpace(data, kend+1)
		if i >= len(data) || data[i] != ':' {
			return
		}
		i = scan.SkipSpace(data, i+1)
		v, next, err := scan.ValueAt(data, i)
		if err != nil {
			fn(key, scan.Value{}, false)
			return
		}
		if !fn(key, v, true) {
			return
		}
		i = scan.SkipSpace(data, next)
		if i >= len(data) || data[i] != ',' {
			return
		}
		i = scan.SkipSpace(data, i+1)
	}
}

// lgNativeLike says whether a line has the native client record's
// request_id and start members, which no load generator writes at the top
// level: such a line is left to the native sniffer.
func lgNativeLike(line []byte) bool {
	var id, start bool
	lgSniffMembers(line, func(key []byte, _ scan.Value, _ bool) bool {
		switch string(key) {
		case "request_id":
			id = true
		case "start":
			start = true
		}
		return !(id && start)
	})
	return id && start
}

// lgErrorLabel turns an error text (an exception message, a traceback) into
// a short label: its last non-empty line, cut to 120 bytes.
func lgErrorLabel(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = bytes.TrimSpace(b[i+1:])
	}
	if len(b) > 120 {
		cut := 120
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
		b = b[:cut]
	}
	return bytes.ToValidUTF8(b, []byte("\uFFFD"))
}

// lgMaxUnit bounds the bytes of one request record read at once.
const lgMaxUnit = record.MaxLineBytes

// lgDocReader walks a JSON document from a stream without holding it: the
// formats keep only the records (one request each) they decode, one at a
// time. It counts lines, to say where a record starts.
type lgDocReader struct {
	r       *bufio.Reader
	line    int64
	capture bool
	buf     []byte
	over    bool
	docs    int // top-level values begun
}

var (
	errLgTooBig    = errors.New("record over 16 MiB")
	errLgTruncated = errors.New("the document ends inside this record (truncated file?)")
	errLgStop      = errors.New("stop")
)

func newLgDocReader(r io.Reader) *lgDocReader {
	return &lgDocReader{r: bufio.NewReaderSize(r, 64<<10), line: 1}
}

func (d *lgDocReader) synErr(msg string) error {
	return fmt.Errorf("%w: line %d: %s", record.ErrSyntax, d.line, msg)
}

// next consumes one byte; the end of input is io.ErrUnexpectedEOF.
func (d *lgDocReader) next() (byte, error) {
	c, err := d.r.ReadByte()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return 0, err
	}
	if c == '\n' {
		d.line++
	}
	if d.capture {
		if len(d.buf) < lgMaxUnit {
			d.buf = append(d.buf, c)
		} else {
			d.over = true
		}
	}
	return c, nil
}

// peek skips white space and returns the next byte, not consumed; io.EOF
// at the end of input.
func (d *lgDocReader) peek() (byte, error) {
	for {
		b, err := d.r.Peek(1)
		if err != nil {
			return 0, err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			d.next()
		default:
			return b[0], nil
		}
	}
}

func (d *lgDocReader) peekIn() (byte, error) {
	c, err := d.peek()
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return c, err
}

// skip consumes one value (capturing it when capture is on).
func (d *lgDocReader) skip() error {
	c, err := d.peekIn()
	if err != nil {
		return err
	}
	switch c {
	case '"':
		d.next()
		return d.stringRest()
	case '{', '[':
		depth := 0
		for {
			c, err := d.next()
			if err != nil {
				return err
			}
			switch c {
			case '"':
				if err := d.stringRest(); err != nil {
					return err
				}
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return nil
				}
			}
		}
	case '}', ']', ',', ':':
		return d.synErr("unexpected " + strconv.QuoteRune(rune(c)))
	}
	// A number or a literal (Python's json also writes NaN and Infinity).
	n := 0
	for {
		b, err := d.r.Peek(1)
		if err == io.EOF && n > 0 {
			return nil
		}
		if err != nil {
			return io.ErrUnexpectedEOF
		}
		switch b[0] {
		case ',', ']', '}', ' ', '\t', '\r', '\n':
			return nil
		}
		d.next()
		n++
	}
}

func (d *lgDocReader) stringRest() error {
	for {
		c, err := d.next()
		if err != nil {
			return err
		}
		switch c {
		case '\\':
			if _, err := d.next(); err != nil {
				return err
			}
		case '"':
			return nil
		}
	}
}

// value consumes one value and returns its bytes, valid until the next
// call; errLgTooBig (the value consumed) past lgMaxUnit bytes.
func (d *lgDocReader) value() ([]byte, error) {
	if _, err := d.peekIn(); err != nil {
		return nil, err
	}
	d.buf, d.capture, d.over = d.buf[:0], true, false
	err := d.skip()
	d.capture = false
	if err == nil && d.over {
		err = errLgTooBig
	}
	return d.buf, err
}

// members walks an object (or null); fn must consume the member's value.
func (d *lgDocReader) members(fn func(key string) error) error {
	return d.composite('{', '}', func() error {
		raw, err := d.value()
		if err != nil {
			return err
		}
		if len(raw) < 2 || raw[0] != '"' {
			return d.synErr("expected a member name")
		}
		end, esc, err := scan.StringAt(raw, 1) // checks the escapes unquote trusts
		if err != nil || end != len(raw)-1 {
			return d.synErr("bad member name")
		}
		key, ok := scan.Unquote(raw[1:end], esc)
		if !ok {
			return d.synErr("bad member name")
		}
		if c, err := d.peekIn(); err != nil {
			return err
		} else if c != ':' {
			return d.synErr("expected ':' after member name")
		}
		d.next()
		return fn(string(key))
	})
}

// elements walks an array (or null); fn must consume the element.
func (d *lgDocReader) elements(fn func(i int) error) error {
	i := 0
	return d.composite('[', ']', func() error { i++; return fn(i - 1) })
}

func (d *lgDocReader) composite(open, close byte, item func() error) error {
	c, err := d.peekIn()
	if err != nil {
		return err
	}
	if c == 'n' { // null
		return d.skip()
	}
	if c != open {
		return d.synErr(fmt.Sprintf("expected %q", open))
	}
	d.next()
	for first := true; ; first = false {
		c, err := d.peekIn()
		if err != nil {
			return err
		}
		if c == close {
			d.next()
			return nil
		}
		if !first {
			if c != ',' {
				return d.synErr(fmt.Sprintf("expected ',' or %q", close))
			}
			d.next()
		}
		if err := item(); err != nil {
			return err
		}
	}
}

// documents calls fn for each top-level value: a file may hold several
// (vLLM bench --append-result writes one per line).
func (d *lgDocReader) documents(fn func() error) error {
	for {
		if _, err := d.peek(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		d.docs++
		if err := fn(); err != nil {
			return err
		}
	}
}

// unit reads one record and hands it to decode, which fills rows through
// out; pos (the record's position in the document, never its text) is what
// rejects.jsonl keeps. A record cut off by the end of the file is rejected
// and ends the walk.
func (d *lgDocReader) unit(out *record.DocOut[record.ClientRow], pos []byte, decode func(raw []byte, out *record.DocOut[record.ClientRow]) error) error {
	if _, err := d.peekIn(); err != nil {
		return err
	}
	line := d.line
	raw, err := d.value()
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		if err := out.Done(line, pos, fmt.Errorf("%w: %v", record.ErrSyntax, errLgTruncated)); err != nil {
			return err
		}
		return errLgStop
	case err == errLgTooBig:
		return out.Done(line, pos, fmt.Errorf("%w: %v", record.ErrLineTooLong, err))
	case err != nil:
		return err
	}
	return out.Done(line, pos, decode(raw, out))
}

// lgDocEnd maps the end of a walk to parse's result: a file cut short
// keeps what came before it.
func lgDocEnd(err error) error {
	if err == errLgStop || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil
	}
	return err
}
