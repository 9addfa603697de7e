package record

import "time"

// MaxLineBytes is the longest line accepted; a longer one is rejected
// (its first KiB kept in rejects.jsonl) and the file goes on.
const MaxLineBytes = 16 << 20

// RowQueue holds the rows decoded from one input unit.
type RowQueue[T Row] struct {
	Rows []T
	Pos  int
	// Zone is the zone the unit's times logged without one are read in
	// (the user's --timezone, or the format's default); nil: none, and
	// such a time rejects the unit. Kept across Reset.
	Zone *Zone
	// LineTime is the collector's time of the line being parsed, in
	// nanoseconds since the epoch (UTC): the full time of its docker,
	// kubectl --timestamps, CRI or journalctl -o short-iso prefix, when the
	// runtime (or journald) read the line, at or shortly after the tool
	// wrote it; 0 when the line came without one. A line parser may use it
	// only for the instant its line stands for and only when the line's
	// own text does not give that instant in full (a year, a zone): never
	// over a time of the line's own, and it says so in its Format's
	// CollectorTime. Set for each line, before ParseLine, by the pipeline.
	LineTime int64
}

// Zone is a time zone given for the times that a file logs without one.
type Zone struct {
	Name string         // as the manifest states it: "Europe/Paris", "+01:00", "UTC"
	Loc  *time.Location // nil: such times are rejected
	// Default: the format's documented default (Format.DefaultZone),
	// not a zone the user gave.
	Default bool
}

// Next appends a zero row and returns it to be filled; the pointer is good
// until the following call to next.
func (q *RowQueue[T]) Next() *T {
	var zero T
	q.Rows = append(q.Rows, zero)
	return &q.Rows[len(q.Rows)-1]
}

func (q *RowQueue[T]) Reset() {
	clear(q.Rows)
	q.Rows, q.Pos = q.Rows[:0], 0
}

// CompactJSON returns b with the whitespace outside JSON strings removed,
// so that `{"timestamp": "…"` sniffs as `{"timestamp":"…"`.
func CompactJSON(b []byte) []byte {
	out := make([]byte, 0, len(b))
	inStr, esc := false, false
	for _, ch := range b {
		switch {
		case inStr:
			out = append(out, ch)
			if esc {
				esc = false
			} else if ch == '\\' {
				esc = true
			} else if ch == '"' {
				inStr = false
			}
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
		default:
			if ch == '"' {
				inStr = true
			}
			out = append(out, ch)
		}
	}
	return out
}

func TrimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[:n-1]
	}
	return b
}

func IsBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}
