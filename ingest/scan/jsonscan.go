package scan

import (
	"encoding/binary"
	"errors"
	"math/bits"
	"strconv"
	"unicode/utf8"

	"github.com/infertrace/infertrace/ingest/record"
)

// The native formats are flat JSON objects, one per line, of which a decoder
// keeps a dozen fields. jsonObject walks the top-level members of one object
// without building any value: members it does not want are skipped by a
// bracket-and-string aware scan, and the ones it wants are handed over as raw
// bytes to be converted in place. This is what lets ingest decode only the
// fields it needs and never materialise what it drops.

type Kind uint8

const (
	String Kind = iota + 1
	Number
	True
	False
	Null
	ObjectKind
	Array
)

// Value is one raw member value. For strings, raw is the content between
// the quotes, still escaped when escaped is true.
type Value struct {
	Kind    Kind
	Raw     []byte
	Escaped bool
}

var (
	ErrUnexpectedEnd = errors.New("unexpected end of line (truncated record?)")
	errNotObject     = errors.New("line is not a JSON object")
)

type SyntaxError struct {
	off int
	msg string
}

func (e *SyntaxError) Error() string { return "offset " + strconv.Itoa(e.off) + ": " + e.msg }
func (e *SyntaxError) Unwrap() error { return record.ErrSyntax }

func SyntaxErr(off int, msg string) error { return &SyntaxError{off: off, msg: msg} }

// Object calls fn for every member of the JSON object in data, in order.
// Anything but one object surrounded by white space is a syntax error.
func Object(data []byte, fn func(key []byte, keyEscaped bool, v Value) error) error {
	i := SkipSpace(data, 0)
	if i >= len(data) {
		return SyntaxErr(i, "empty line")
	}
	if data[i] != '{' {
		return &SyntaxError{off: i, msg: errNotObject.Error()}
	}
	i = SkipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return trailing(data, i+1)
	}
	for {
		if i >= len(data) {
			return SyntaxErr(i, ErrUnexpectedEnd.Error())
		}
		if data[i] != '"' {
			return SyntaxErr(i, "expected a member name")
		}
		kstart := i + 1
		kend, kesc, err := StringAt(data, kstart)
		if err != nil {
			return err
		}
		i = kend + 1
		if i >= len(data) || data[i] != ':' { // "name":value is the common case
			i = SkipSpace(data, i)
		}
		if i >= len(data) {
			return SyntaxErr(i, ErrUnexpectedEnd.Error())
		}
		if data[i] != ':' {
			return SyntaxErr(i, "expected ':' after member name")
		}
		i = SkipSpace(data, i+1)
		var v Value
		var next int
		if i < len(data) && data[i] == '"' { // strings inline, the commonest values
			end, esc, err := StringAt(data, i+1)
			if err != nil {
				return err
			}
			v, next = Value{Kind: String, Raw: data[i+1 : end], Escaped: esc}, end+1
		} else if v, next, err = ValueAt(data, i); err != nil {
			return err
		}
		if err := fn(data[kstart:kend], kesc, v); err != nil {
			return err
		}
		i = SkipSpace(data, next)
		if i >= len(data) {
			return SyntaxErr(i, ErrUnexpectedEnd.Error())
		}
		switch data[i] {
		case ',':
			i = SkipSpace(data, i+1)
		case '}':
			return trailing(data, i+1)
		default:
			return SyntaxErr(i, "expected ',' or '}' after member value")
		}
	}
}

func trailing(data []byte, i int) error {
	if i = SkipSpace(data, i); i < len(data) {
		return SyntaxErr(i, "data after the end of the object")
	}
	return nil
}

func SkipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// StringAt scans a string whose content starts at i (just after the opening
// quote) and returns the index of the closing quote.
func StringAt(data []byte, i int) (end int, escaped bool, err error) {
	for {
		// Eight bytes at a time while none is a quote or a backslash, then
		// byte by byte.
		for i+8 <= len(data) {
			w := binary.LittleEndian.Uint64(data[i:])
			if m := hasByte(w, '"') | hasByte(w, '\\'); m != 0 {
				// The lowest flagged byte is exact (false flags only
				// follow a true one).
				i += bits.TrailingZeros64(m) / 8
				goto found
			}
			i += 8
		}
		for i < len(data) && data[i] != '"' && data[i] != '\\' {
			i++
		}
	found:
		if i >= len(data) {
			return 0, false, SyntaxErr(len(data), ErrUnexpectedEnd.Error())
		}
		if data[i] == '"' {
			return i, escaped, nil
		}
		escaped = true
		if i+1 >= len(data) {
			return 0, false, SyntaxErr(len(data), ErrUnexpectedEnd.Error())
		}
		switch data[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if i+6 > len(data) {
				return 0, false, SyntaxErr(len(data), ErrUnexpectedEnd.Error())
			}
			for _, c := range data[i+2 : i+6] {
				if !IsHex(c) {
					return 0, false, SyntaxErr(i, "bad \\u escape")
				}
			}
			i += 6
		default:
			return 0, false, SyntaxErr(i, "bad escape")
		}
	}
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// hasByte is non-zero when one of the eight bytes of w is c.
func hasByte(w uint64, c byte) uint64 {
	x := w ^ (lsb * uint64(c))
	return (x - lsb) &^ x & msb
}

func IsHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// ValueAt scans the value at data[i] and returns it and the index after it.
func ValueAt(data []byte, i int) (Value, int, error) {
	if i >= len(data) {
		return Value{}, i, SyntaxErr(i, ErrUnexpectedEnd.Error())
	}
	switch c := data[i]; {
	case c == '"':
		end, esc, err := StringAt(data, i+1)
		if err != nil {
			return Value{}, 0, err
		}
		return Value{Kind: String, Raw: data[i+1 : end], Escaped: esc}, end + 1, nil
	case c == '-' || '0' <= c && c <= '9':
		end, err := NumberAt(data, i)
		if err != nil {
			return Value{}, 0, err
		}
		return Value{Kind: Number, Raw: data[i:end]}, end, nil
	case c == 't':
		return literal(data, i, "true", True)
	case c == 'f':
		return literal(data, i, "false", False)
	case c == 'n':
		return literal(data, i, "null", Null)
	case c == '{' || c == '[':
		end, err := skipComposite(data, i)
		if err != nil {
			return Value{}, 0, err
		}
		k := ObjectKind
		if c == '[' {
			k = Array
		}
		return Value{Kind: k, Raw: data[i:end]}, end, nil
	}
	return Value{}, 0, SyntaxErr(i, "unexpected character "+strconv.QuoteRune(rune(data[i])))
}

func literal(data []byte, i int, lit string, k Kind) (Value, int, error) {
	if len(data)-i < len(lit) {
		if string(data[i:]) == lit[:len(data)-i] {
			return Value{}, 0, SyntaxErr(len(data), ErrUnexpectedEnd.Error())
		}
		return Value{}, 0, SyntaxErr(i, "bad literal")
	}
	if string(data[i:i+len(lit)]) != lit {
		return Value{}, 0, SyntaxErr(i, "bad literal")
	}
	return Value{Kind: k, Raw: data[i : i+len(lit)]}, i + len(lit), nil
}

// NumberAt checks the JSON number grammar: -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?
func NumberAt(data []byte, i int) (int, error) {
	start := i
	if data[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(data) && '0' <= data[i] && data[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(data) && data[i] == '0' {
		i++
	} else if digits() == 0 {
		if i >= len(data) {
			return 0, SyntaxErr(i, ErrUnexpectedEnd.Error())
		}
		return 0, SyntaxErr(start, "bad number")
	}
	if i < len(data) && data[i] == '.' {
		i++
		if digits() == 0 {
			if i >= len(data) {
				return 0, SyntaxErr(i, ErrUnexpectedEnd.Error())
			}
			return 0, SyntaxErr(start, "bad number")
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if digits() == 0 {
			if i >= len(data) {
				return 0, SyntaxErr(i, ErrUnexpectedEnd.Error())
			}
			return 0, SyntaxErr(start, "bad number")
		}
	}
	return i, nil
}

// skipComposite skips the object or array starting at data[i], checking only
// that brackets balance and strings are well formed.
func skipComposite(data []byte, i int) (int, error) {
	var stack [64]byte
	depth := 0
	for i < len(data) {
		switch c := data[i]; c {
		case '"':
			end, _, err := StringAt(data, i+1)
			if err != nil {
				return 0, err
			}
			i = end + 1
			continue
		case '{', '[':
			if depth == len(stack) {
				return 0, SyntaxErr(i, "nested too deeply")
			}
			stack[depth] = c
			depth++
		case '}', ']':
			if depth == 0 || (c == '}') != (stack[depth-1] == '{') {
				return 0, SyntaxErr(i, "mismatched bracket")
			}
			depth--
			if depth == 0 {
				return i + 1, nil
			}
		}
		i++
	}
	return 0, SyntaxErr(len(data), ErrUnexpectedEnd.Error())
}

// Unquote returns the decoded text of a JSON string's raw content. Unescaped
// content is returned as is (no copy); callers that keep it must copy.
func Unquote(raw []byte, escaped bool) ([]byte, bool) {
	if !escaped {
		return raw, true
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		switch raw[i+1] {
		case '"', '\\', '/':
			out = append(out, raw[i+1])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := Hex4(raw[i+2 : i+6])
			i += 6
			if utf16IsSurrogate(r) {
				if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					r2 := Hex4(raw[i+2 : i+6])
					if dec := utf16Decode(r, r2); dec != utf8.RuneError {
						i += 6
						out = utf8.AppendRune(out, dec)
						continue
					}
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
			continue
		default:
			return nil, false
		}
		i += 2
	}
	return out, true
}

func Hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		r <<= 4
		switch {
		case '0' <= c && c <= '9':
			r |= rune(c - '0')
		case 'a' <= c && c <= 'f':
			r |= rune(c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}

func utf16IsSurrogate(r rune) bool { return 0xd800 <= r && r < 0xe000 }

func utf16Decode(r1, r2 rune) rune {
	if 0xd800 <= r1 && r1 < 0xdc00 && 0xdc00 <= r2 && r2 < 0xe000 {
		return (r1-0xd800)<<10 | (r2 - 0xdc00) + 0x10000
	}
	return utf8.RuneError
}
