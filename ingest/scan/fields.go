package ingest

import (
	"errors"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// Conversions from raw JSON member values to typed columns. Real logs put
// numbers in strings ("status":"200") and write "" or "-" for missing values,
// so every converter accepts those; anything else is a FieldError naming the
// field.

// labels interns the low-cardinality labels of one decoder (model, route,
// replica...) so a label is allocated once per worker, not once per row. A
// short list is searched first: a label column rarely has more than a few
// values, and comparing a few bytes beats hashing them.
type labels struct {
	recent [16]string
	n      int
	m      map[string]string
}

func (s *labels) intern(b []byte) string {
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
func (s *labels) known(b []byte) (string, bool) {
	for _, v := range s.recent[:s.n] {
		if string(b) == v {
			return v, true
		}
	}
	v, ok := s.m[string(b)]
	return v, ok
}

// textBytes returns the text of a string (or number) value; ok=false for
// null, "" and "-".
func textBytes(field string, v jsonValue) ([]byte, bool, error) {
	switch v.kind {
	case jsonNull:
		return nil, false, nil
	case jsonNumber:
		return v.raw, true, nil
	case jsonString:
		b, ok := unquote(v.raw, v.escaped)
		if !ok {
			return nil, false, fieldErr(field, ErrBadValue, "bad escape")
		}
		if len(b) == 0 || (len(b) == 1 && b[0] == '-') {
			return nil, false, nil
		}
		if !utf8.Valid(b) {
			return nil, false, fieldErr(field, ErrBadValue, "not valid UTF-8")
		}
		return b, true, nil
	}
	return nil, false, fieldErr(field, ErrBadValue, "want a string, got %s", kindName(v.kind))
}

// label is a low-cardinality string column.
func (s *labels) label(field string, v jsonValue, dst *string) error {
	if v.kind == jsonString && !v.escaped {
		// A label seen before was checked then (valid UTF-8, not "" or
		// "-"); most are.
		if l, ok := s.known(v.raw); ok {
			*dst = l
			return nil
		}
	}
	b, ok, err := textBytes(field, v)
	if ok {
		*dst = s.intern(b)
	}
	return err
}

// text is a high-cardinality string column (request IDs, error messages).
func text(field string, v jsonValue, dst *string) error {
	b, ok, err := textBytes(field, v)
	if ok {
		*dst = string(b)
	}
	return err
}

// idArena gives the high-cardinality strings of one decoder (request IDs)
// storage carved from 64 KiB blocks, so a row's ID costs no allocation of
// its own. A block is never written again once a string points into it,
// and lives as long as any of its strings (a row being written).
type idArena struct{ buf []byte }

func (a *idArena) text(field string, v jsonValue, dst *string) error {
	b, ok, err := textBytes(field, v)
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

// integer parses a whole number (a JSON number or a numeric string).
func integer(field string, v jsonValue, min, max int64) (int64, bool, error) {
	b, ok, err := textBytes(field, v)
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
			return 0, false, fieldErr(field, ErrBadValue, "want a whole number, got %.40q", b)
		}
		n = int64(f)
	}
	if n < min || n > max {
		return 0, false, fieldErr(field, ErrBadValue, "%d is outside %d..%d", n, min, max)
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

func count32(field string, v jsonValue, dst **int32) error {
	n, ok, err := integer(field, v, 0, 1<<31-1)
	if ok {
		*dst = int32Ptr(int32(n))
	}
	return err
}

func httpStatus(field string, v jsonValue, dst *int32) error {
	n, ok, err := integer(field, v, 0, 999)
	if ok {
		*dst = int32(n)
	}
	return err
}

func boolean(field string, v jsonValue, set func(bool)) error {
	switch v.kind {
	case jsonNull:
		return nil
	case jsonTrue:
		set(true)
		return nil
	case jsonFalse:
		set(false)
		return nil
	}
	b, ok, err := textBytes(field, v)
	if !ok || err != nil {
		return err
	}
	switch string(b) {
	case "true", "True", "TRUE", "1", "yes":
		set(true)
	case "false", "False", "FALSE", "0", "no":
		set(false)
	default:
		return fieldErr(field, ErrBadValue, "want true or false, got %.40q", b)
	}
	return nil
}

func timestamp(field string, v jsonValue, dst *int64) error {
	if v.kind != jsonString && v.kind != jsonNumber && v.kind != jsonNull {
		return fieldErr(field, ErrBadTime, "want a string or a number, got %s", kindName(v.kind))
	}
	ns, ok, err := parseTimeValue(v)
	if err != nil {
		return fieldErr(field, ErrBadTime, "%.60q: %v", v.raw, err)
	}
	if ok {
		*dst = ns
	}
	return nil
}

func kindName(k jsonKind) string {
	switch k {
	case jsonString:
		return "a string"
	case jsonNumber:
		return "a number"
	case jsonTrue, jsonFalse:
		return "a boolean"
	case jsonNull:
		return "null"
	case jsonObjectKind:
		return "an object"
	case jsonArray:
		return "an array"
	}
	return "nothing"
}

// memberKey returns a member name, decoding it only when it has escapes.
func memberKey(k []byte, escaped bool) []byte {
	if !escaped {
		return k
	}
	b, _ := unquote(k, true)
	return b
}
