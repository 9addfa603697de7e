package ingest

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/infertrace/infertrace/ingest/textsafe"
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

func fieldErr(field string, reason error, format string, args ...any) error {
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

// quotedMax is the most bytes of a quoted value a reject reason shows:
// reasons quote the value that was wrong, and a value can be a prompt.
const quotedMax = 32

// shortReason cuts every quoted string in a reason to quotedMax bytes of
// its text, with an ellipsis, and escapes the characters that could drive a
// terminal; the reason is for people, in rejects.jsonl and on the terminal.
func shortReason(reason string) string {
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
		if len(s) <= quotedMax {
			b.WriteString(q)
			continue
		}
		cut := quotedMax
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		b.WriteString(strconv.Quote(s[:cut] + "…"))
	}
	return textsafe.Escape(b.String())
}

// noRowsError is the manifest error of a file read with a named or sniffed
// format that made no row of its non-blank lines: a wrong format, not an
// empty log.
func noRowsError(format string, units int64) string {
	hint := "is it another format? Name it as FORMAT:GLOB"
	if format == "tgi" { // TGI's JSON reader given its default text output
		hint = "is this TGI's text output?"
	} else if format == "nginx" { // a real log in the predefined format
		hint = "NGINX's combined format logs no request ID, so no line can be joined: log $http_x_request_id (see the README's log_format), or name another format as FORMAT:GLOB"
	}
	return fmt.Sprintf("0 of %d lines were %s records: %s", units, format, hint)
}

// IsFormatError reports whether a manifest error says the file's format
// could not be told or the format named made no rows of it: the user is
// to name another format, not read the file again.
func IsFormatError(manifestError string) bool {
	return strings.HasPrefix(manifestError, ErrUnknownFormat.Error()+":") ||
		strings.HasPrefix(manifestError, "0 of ") && strings.Contains(manifestError, " records: ")
}
