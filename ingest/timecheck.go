package ingest

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/infertrace/infertrace/ingest/record"
)

// A file read with the wrong format need not fail to decode: NGINX's JSON
// reader takes native gateway lines by their member names and keeps each
// one's request ID and status, and none of its times. Such a file would
// give a run that looks healthy with every time of its tier NULL. So every
// input file, whatever its format and however it was chosen (named or
// sniffed), is checked against what its tier needs (record.HasTime: a
// gateway row a start or an end; a client row a start, an end or an
// end-to-end duration; a server row any instant or duration):
//
//	a file of whose rows at least 99% (all of them, for fewer than 100)
//	lack those times is read with the wrong format, and refused.
//
// Files where only some rows lack times are read as usual, and formats
// whose rows carry no time by design (record.Format.Untimed: vllm-log's
// annotations) are not checked.
//
// A refused file is accounted for like a file whose format could not be
// told: its lines count as rejected, one wrong_format reject names it, no
// row of it is kept, its manifest entry has the error and the run fails.
// To keep no row of it, the rule is applied before its rows are written:
// for a line format, to the rows of its first probeLines non-blank lines,
// decoded once more by the workers when the file passes; for a document
// format (one goroutine, a part file of its own), to all its rows, whose
// part files are removed when it fails. A line-format file that passes its
// first lines and fails over all its rows (rows after the first thousand
// that lack their times) keeps its rows, and its manifest error still
// fails the run.

// probeLines is how many non-blank lines of a line-format file are decoded
// to check its rows before they are handed to the workers.
const probeLines = 1000

// lacksTimes is the rule: rows were made and at least 99% of them lack
// their times.
func lacksTimes(rows, untimed int64) bool {
	return rows > 0 && untimed*100 >= rows*99
}

// timesError is the error of a file refused by lacksTimes. It prints as
// "format nginx: 1000 of 1000 rows have no start or end time; is it another
// format? (sniffing suggests native)".
type timesError struct {
	Tier          Tier
	Format        string
	Sniffed       bool   // the format was sniffed, not named
	Rows, Untimed int64  // the rows checked, and those without times
	First         bool   // the rows are of the file's first lines only
	Hint          string // another format that may fit, from record.SuggestTimed
}

func (e *timesError) Error() string {
	how, of := "", ""
	if e.Sniffed {
		how = " (sniffed)"
	}
	if e.First {
		of = "the first "
	}
	s := fmt.Sprintf("format %s%s: %d of %s%d rows have %s; is it another format?",
		e.Format, how, e.Untimed, of, e.Rows, record.MissingTimes(e.Tier))
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

func (e *timesError) Unwrap() error { return ErrWrongFormat }

// checkFirstLines applies the rule to the first probeLines non-blank lines
// of a line-format file, which c holds pending (after peekFirstLine). On
// refusal it returns the error and the line number and text of the first
// row without times, for the reject.
func checkFirstLines(s *source, c *chunker, newParser any) (line int64, raw []byte, err error) {
	if s.format.Untimed || c.pending == nil || len(c.pending.data) == 0 {
		return 0, nil, nil
	}
	ch := *c.pending
	ch.src = s // its zone
	data := ch.data
	for n := 0; len(data) > 0 && n < probeLines; {
		var l []byte
		l, data = cutLine(data)
		if !record.IsBlank(record.TrimCR(l)) {
			n++
		}
	}
	ch.data = ch.data[:len(ch.data)-len(data)]
	whole := len(data) == 0 && c.eof && len(c.carry) == 0 && c.pendingErr == nil
	var p timeProbe
	switch s.stats.Tier {
	case Client:
		p = probeRows[ClientRow](&ch, newParser)
	case Gateway:
		p = probeRows[GatewayRow](&ch, newParser)
	case Server:
		p = probeRows[ServerRow](&ch, newParser)
	}
	if !lacksTimes(p.rows, p.untimed) {
		return 0, nil, nil
	}
	lines, doc, _ := c.peekSniffLines()
	return p.line, p.raw, &timesError{Tier: s.stats.Tier, Format: s.format.Name, Sniffed: !s.named, Rows: p.rows, Untimed: p.untimed,
		First: !whole, Hint: record.SuggestTimed(s.stats.Tier, lines, doc, s.format)}
}

// timeProbe is what probeRows found: the rows made, those without times, and
// the first of these (line number and text, copied).
type timeProbe struct {
	rows, untimed int64
	line          int64
	raw           []byte
}

// probeRows decodes ch with a new parser of newParser (a func() LineParser[T]).
func probeRows[T Row](ch *chunk, newParser any) timeProbe {
	var p timeProbe
	np, ok := newParser.(func() record.LineParser[T])
	if !ok {
		return p
	}
	d := newChunkDecoder(ch, np())
	var row T
	for {
		err := d.Next(&row)
		if err == io.EOF {
			return p
		}
		if err != nil { // a rejected line: the workers will say so
			continue
		}
		p.rows++
		if !record.HasTime(&row) {
			p.untimed++
			if p.raw == nil {
				p.line = sourceLine(&row)
				p.raw = append([]byte{}, lineAt(ch, p.line)...)
			}
		}
	}
}

// sourceLine is the line a row was decoded from.
func sourceLine[T Row](row *T) int64 {
	switch r := any(row).(type) {
	case *ClientRow:
		return r.SourceLine
	case *GatewayRow:
		return r.SourceLine
	case *ServerRow:
		return r.SourceLine
	}
	return 0
}

// lineAt returns line n of ch (numbered from ch.firstLine), without its
// line end.
func lineAt(ch *chunk, n int64) []byte {
	data := ch.data
	for i := ch.firstLine; len(data) > 0; i++ {
		var l []byte
		l, data = cutLine(data)
		if i == n {
			return record.TrimCR(l)
		}
	}
	return nil
}

// checkAllRows applies the rule to all the rows of a file, counted as the
// workers wrote them: the manifest error of a line-format file that passed
// checkFirstLines (its rows are kept), nil when it passes.
func checkAllRows(s *source) error {
	rows, untimed := s.rows.Load(), s.untimed.Load()
	if s.format == nil || s.format.Untimed || !lacksTimes(rows, untimed) {
		return nil
	}
	return &timesError{Tier: s.stats.Tier, Format: s.format.Name, Sniffed: !s.named, Rows: rows, Untimed: untimed}
}

// removeFileParts removes the part files of the sink named name (a
// document-format file's own, part-<run>-fNNNN), of a file refused after
// they were written. Empty partition directories are removed by Run once
// every worker is done.
func removeFileParts(dir, name string) error {
	prefix := "part-" + name
	for _, p := range partFiles(dir) {
		b := filepath.Base(p)
		if rest, ok := strings.CutPrefix(b, prefix); ok && (strings.HasPrefix(rest, ".") || strings.HasPrefix(rest, "-")) {
			if err := os.Remove(p); err != nil {
				return err
			}
		}
	}
	return nil
}
