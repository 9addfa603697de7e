package scan

import (
	"errors"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/infertrace/infertrace/ingest/record"
)

// Conversions from raw JSON member values to typed columns. Real logs put
// numbers in strings ("status":"200") and write "" or "-" for missing values,
// so every converter accepts those; anything else is a FieldError naming the
// field.

// Labels interns the low-cardinality labels of one decoder (model, route,
// replica...) so a label is allocated once per worker, not once per row. A
// short list is searched first: a label column rarely has more than a few
// values, and comparing a few bytes beats hashing them.
type Labels struct {
	recent [16]string
	n      int
	m      map[string]string
}

func (s *Labels) Intern(b []byte) string {
	if v, ok := s.known(b); ok {
		return v
	}
	v := string(b)
	if s.n < len(s.recent) {
		s.recent[s.n] = v
		s.n++
		return v
	}
	if s.m == nil {
		s.m = make(map[string]string)
	}
	if len(s.m) < 1<<16 { // a label that is not low-cardinality after all
		s.m[v] = v
	}
	return v
}

// known returns the label equal to b if it was interned before.
func (s *Labels) known(b []byte) (string, bool) {
	for _, v := range s.recent[:s.n] {
		if string(b) == v {
			return v, true
		}
	}
	v, ok := s.m[string(b)]
	return v, ok
}

// TextBytes returns the text of a string (or number) value; ok=false for
// null, "" and "-".
func TextBytes(field string, v Value) ([]byte, bool, error) {
	switch v.Kind {
	case Null:
		return nil, false, nil
	case Number:
		return v.Raw, true, nil
	case String:
		b, ok := Unquote(v.Raw, v.Escaped)
		if !ok {
			return nil, false, record.FieldErrorf(field, record.ErrBadValue, "bad escape")
		}
		if len(b) == 0 || (len(b) == 1 && b[0] == '-') {
			return nil, false, nil
		}
		if !utf8.Valid(b) {
			return nil, false, record.FieldErrorf(field, record.ErrBadValue, "not valid UTF-8")
		}
		return b, true, nil
	}
	return nil, false, record.FieldErrorf(field, record.ErrBadValue, "want a string, got %s", KindName(v.Kind))
}

// Label is a low-cardinality string column.
func (s *Labels) Label(field string, v Value, dst *string) error {
	if v.Kind == String && !v.Escaped {
		// A label seen before was checked then (valid UTF-8, not "" or
		// "-"); most are.
		if l, ok := s.known(v.Raw); ok {
			*dst = l
			return nil
		}
	}
	b, ok, err := TextBytes(field, v)
	if ok {
		*dst = s.Intern(b)
	}
	return err
}

// Text is a high-cardinality string column (request IDs, error messages).
func Text(field string, v Value, dst *string) error {
	b, ok, err := TextBytes(field, v)
	if ok {
		*dst = string(b)
	}
	return err
}

// IDArena gives the high-cardinality strings of one decoder (request IDs)
// storage carved from 64 KiB blocks, so a row's ID costs no allocation of
// its own. A block is never written again once a string points into it,
// and lives as long as any of its strings (a row being written).
type IDArena struct{ buf []byte }

func (a *IDArena) Text(field string, v Value, dst *string) error {
	b, ok, err := TextBytes(field, v)
	if !ok {
		return err
	}
	if len(b) > 256 {
		*dst = string(b)
		return err
	}
	if cap(a.buf)-len(a.buf) < len(b) {
		a.buf = make([]byte, 0, 64<<10)
	}
	start := len(a.buf)
	a.buf = append(a.buf, b...)
	*dst = unsafe.String(&a.buf[start], len(b))
	return err
}

// Integer parses a whole number (a JSON number or a numeric string).
func Integer(field string, v Value, min, max int64) (int64, bool, error) {
	b, ok, err := TextBytes(field, v)
	if !ok || err != nil {
		return 0, false, err
	}
	n, perr := digits(b)
	if perr != nil {
		n, perr = strconv.ParseInt(string(b), 10, 64)
	}
	if perr != nil {
		// 200.0 is a whole number too.
		f, ferr := strconv.ParseFloat(string(b), 64)
		if ferr != nil || f != float64(int64(f)) {
			return 0, false, record.FieldErrorf(field, record.ErrBadValue, "want a whole number, got %q", b)
		}
		n = int64(f)
	}
	if n < min || n > max {
		return 0, false, record.FieldErrorf(field, record.ErrBadValue, "%d is outside %d..%d", n, min, max)
	}
	return n, true, nil
}

var errNotDigits = errors.New("not just digits")

// digits reads 1 to 18 ASCII digits, the common case, without strconv.
func digits(b []byte) (int64, error) {
	if len(b) == 0 || len(b) > 18 {
		return 0, errNotDigits
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, errNotDigits
		}
		n = n*10 + int64(c-'0')
	}
	return n, nil
}

func Count32(field string, v Value, dst **int32) error {
	n, ok, err := Integer(field, v, 0, 1<<31-1)
	if ok {
		*dst = record.Int32Ptr(int32(n))
	}
	return err
}

func HTTPStatus(field string, v Value, dst *int32) error {
	n, ok, err := Integer(field, v, 0, 999)
	if ok {
		*dst = int32(n)
	}
	return err
}

func Boolean(field string, v Value, set func(bool)) error {
	switch v.Kind {
	case Null:
		return nil
	case True:
		set(true)
		return nil
	case False:
		set(false)
		return nil
	}
	b, ok, err := TextBytes(field, v)
	if !ok || err != nil {
		return err
	}
	switch string(b) {
	case "true", "True", "TRUE", "1", "yes":
		set(true)
	case "false", "False", "FALSE", "0", "no":
		set(false)
	default:
		return record.FieldErrorf(field, record.ErrBadValue, "want true or false, got %q", b)
	}
	return nil
}

// Timestamp reads a time (an RFC 3339 string with a zone, or epoch
// seconds) into *dst; null leaves it.
func Timestamp(field string, v Value, dst *int64) error { return TimestampIn(field, v, noZone, dst) }

// TimestampIn is Timestamp for a reader that takes the user's zone: a
// string without a zone is read in z's (see record.Zone).
func TimestampIn(field string, v Value, z *record.Zone, dst *int64) error {
	if v.Kind != String && v.Kind != Number && v.Kind != Null {
		return record.FieldErrorf(field, record.ErrBadTime, "want a string or a number, got %s", KindName(v.Kind))
	}
	ns, ok, err := parseTimeValueIn(v, z)
	if err != nil {
		return record.FieldErrorf(field, record.ErrBadTime, "%q: %v", v.Raw, err)
	}
	if ok {
		*dst = ns
	}
	return nil
}

func KindName(k Kind) string {
	switch k {
	case String:
		return "a string"
	case Number:
		return "a number"
	case True, False:
		return "a boolean"
	case Null:
		return "null"
	case ObjectKind:
		return "an object"
	case Array:
		return "an array"
	}
	return "nothing"
}

// MemberKey returns a member name, decoding it only when it has escapes.
func MemberKey(k []byte, escaped bool) []byte {
	if !escaped {
		return k
	}
	b, _ := Unquote(k, true)
	return b
}
