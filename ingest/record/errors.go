package record

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/infertrace/infertrace/internal/textsafe"
)

// Reasons a line is rejected. Every ParseError wraps exactly one of them, so
// callers and tests match with errors.Is, and rejects.jsonl groups by Kind.
var (
	ErrSyntax        = errors.New("malformed JSON")
	ErrMissingField  = errors.New("missing required field")
	ErrBadValue      = errors.New("bad value")
	ErrBadTime       = errors.New("bad time")
	ErrLineTooLong   = errors.New("line too long")
	ErrUnknownFormat = errors.New("unknown format")
	// ErrWrongFormat rejects a whole file whose rows, read with the format
	// named or sniffed, lack the times of their tier (see HasTime).
	ErrWrongFormat = errors.New("wrong format")
)

// Kind is the short, stable name of a rejection reason, as written to the
// "kind" field of rejects.jsonl.
func Kind(err error) string {
	switch {
	case errors.Is(err, ErrSyntax):
		return "syntax"
	case errors.Is(err, ErrMissingField):
		return "missing_field"
	case errors.Is(err, ErrBadTime):
		return "bad_time"
	case errors.Is(err, ErrBadValue):
		return "bad_value"
	case errors.Is(err, ErrLineTooLong):
		return "line_too_long"
	case errors.Is(err, ErrUnknownFormat):
		return "unknown_format"
	case errors.Is(err, ErrWrongFormat):
		return "wrong_format"
	}
	return "other"
}

// A FieldError says which field of a record was wrong and why.
type FieldError struct {
	Field string
	Err   error // wraps one of the Err* reasons
	Msg   string
}

func (e *FieldError) Error() string {
	if e.Msg == "" {
		return fmt.Sprintf("%s: %v", e.Field, e.Err)
	}
	return fmt.Sprintf("%s: %v: %s", e.Field, e.Err, e.Msg)
}

func (e *FieldError) Unwrap() error { return e.Err }

func FieldErrorf(field string, reason error, format string, args ...any) error {
	return &FieldError{Field: field, Err: reason, Msg: fmt.Sprintf(format, args...)}
}

// A ParseError is a rejected input unit (for line formats, one line). It
// prints as "file:line: reason".
type ParseError struct {
	File string
	Line int64
	Err  error
	// Raw is the rejected input, kept (cut and redacted) in rejects.jsonl. It
	// may point into a reused buffer: copy it to keep it.
	Raw []byte
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// quotedMax is the most bytes of a number or a time a reject reason
// quotes.
const quotedMax = 32

// ShortReason replaces every quoted string of a reason by its shape (its
// length and the classes of its characters: "a string of 41 letters,
// digits and punctuation") unless it is a number or a time, cut to
// quotedMax bytes: reasons quote the value that was wrong, and a value can
// be a prompt or a credential. It escapes the characters that could drive a
// terminal; the reason is for people, in rejects.jsonl and on the terminal.
func ShortReason(reason string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(reason, '"')
		if i < 0 {
			b.WriteString(reason)
			break
		}
		b.WriteString(reason[:i])
		q, err := strconv.QuotedPrefix(reason[i:])
		if err != nil { // a lone quote
			b.WriteByte('"')
			reason = reason[i+1:]
			continue
		}
		reason = reason[i+len(q):]
		s, _ := strconv.Unquote(q)
		switch {
		case !numberOrTime(s):
			b.WriteString(Shape(s))
		case len(s) <= quotedMax:
			b.WriteString(q)
		default:
			cut := quotedMax
			for cut > 0 && !utf8.RuneStart(s[cut]) {
				cut--
			}
			b.WriteString(strconv.Quote(s[:cut] + "…"))
		}
	}
	return textsafe.Escape(b.String())
}

// numberOrTime reports whether s reads as a number, a duration or a time
// ("-5", "1.5e3", "12ms", "2026-11-30T10:00:00Z", "15/Jan/2026:10:00:02
// +0000", "2006-01-02 15:04:05.000"): digits first, and at most a few
// letters (units, a month, T and Z).
func numberOrTime(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	start := 0
	if s[0] == '-' || s[0] == '+' {
		start = 1
	}
	if start >= len(s) || s[start] < '0' || s[start] > '9' {
		return false
	}
	letters := 0
	for _, c := range []byte(s[start:]) {
		switch {
		case '0' <= c && c <= '9', strings.IndexByte(".:-+/ ,", c) >= 0:
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
			letters++
		default:
			return false
		}
	}
	return letters <= 4
}

// Shape describes a string without quoting it: "an empty string", "a
// string of 41 letters, digits and punctuation".
func Shape(s string) string {
	if s == "" {
		return "an empty string"
	}
	var letters, digits, spaces, punct, other bool
	for _, r := range s {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
			letters = true
		case '0' <= r && r <= '9':
			digits = true
		case r == ' ' || r == '\t':
			spaces = true
		case r > 0x20 && r < 0x7f:
			punct = true
		default:
			other = true
		}
	}
	n := utf8.RuneCountInString(s)
	var classes []string
	for _, c := range []struct {
		on        bool
		one, many string
	}{{letters, "letter", "letters"}, {digits, "digit", "digits"}, {spaces, "space", "spaces"},
		{punct, "punctuation mark", "punctuation"}, {other, "other character", "other characters"}} {
		switch {
		case c.on && n == 1:
			classes = append(classes, c.one)
		case c.on:
			classes = append(classes, c.many)
		}
	}
	list := classes[0]
	if n := len(classes); n > 1 {
		list = strings.Join(classes[:n-1], ", ") + " and " + classes[n-1]
	}
	return fmt.Sprintf("a string of %d %s", n, list)
}

func Missing(field string) error { return &FieldError{Field: field, Err: ErrMissingField} }

// RawLimit is how much of a rejected line rejects.jsonl keeps.
const RawLimit = 1024
