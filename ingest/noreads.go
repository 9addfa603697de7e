package ingest

import (
	"fmt"
	"strings"

	"github.com/infertrace/infertrace/ingest/record"
)

// noRowsError is the manifest error of a file read with a named or sniffed
// format that made no row of its non-blank lines: a wrong format, not an
// empty log. units is the file's non-blank lines, 0 for a document
// format that found no record in a file that has some. cause, when not
// empty, says why (see noRowsCauses) instead of asking for another format.
func noRowsError(f *record.Format, units int64, cause string) string {
	hint := "is it another format? Name it as FORMAT:GLOB"
	if f.NoRowsHint != "" {
		hint = f.NoRowsHint
	}
	if cause != "" {
		hint = cause
	}
	if units == 0 { // a document format counts the records it finds as its lines
		return fmt.Sprintf("0 of the file's non-blank lines were %s records: %s", f.Name, hint)
	}
	return fmt.Sprintf("0 of %d lines were %s records: %s", units, f.Name, hint)
}

// causeLines is how many first non-blank lines of a file a cause is told
// from.
const causeLines = 16

// noRowsCauses tells, from the first lines of a line-format file (the
// chunk the chunker holds, prefixes removed), why the file could make no
// row, in case it makes none: prefix says that its lines carry a collector
// prefix that is still on them, format is what the format's NoRowsCause
// says (used only when no line was rejected: a rejected line says why
// itself, and could be the very line the cause says is missing). Each
// names the file and the line that shows it, and quotes nothing of the
// line. Both are found once per file, before its lines are decoded, so
// that nothing of the file is kept until the end of the run.
func noRowsCauses(s *source, c *chunker, opt Options) (prefix, format string) {
	h := c.head(causeLines)
	if len(h.Lines) == 0 {
		return "", ""
	}
	prefix = prefixCause(s.format, s.stats.Path, h, opt.Prefix, c.prefix)
	if f := s.format.NoRowsCause; f != nil {
		if line, cause, ok := f(h); ok {
			format = fmt.Sprintf("%s:%d %s", s.stats.Path, line, cause)
		}
	}
	return prefix, format
}

// head returns the first n non-blank lines of the chunk the chunker holds
// (peeked, not yet handed out), as the format will read them.
func (c *chunker) head(n int) record.Head {
	var h record.Head
	if c.pending == nil {
		return h
	}
	data := c.pending.data
	no := c.pending.firstLine - 1
	for len(data) > 0 && len(h.Lines) < n {
		var l []byte
		l, data = cutLine(data)
		no++
		if l = record.TrimCR(l); !record.IsBlank(l) {
			h.Lines = append(h.Lines, l)
			h.Nums = append(h.Nums, no)
		}
	}
	for len(data) > 0 {
		var l []byte
		if l, data = cutLine(data); !record.IsBlank(record.TrimCR(l)) {
			return h
		}
	}
	h.Whole = c.eof && len(c.carry) == 0 && c.pendingErr == nil
	return h
}

// maxPrefixScan bounds how far into a line a record is looked for behind
// a prefix.
const maxPrefixScan = 256

// prefixCause tells a file whose first lines are none of them a line of
// its format as they are, but are one behind a prefix (a collector's, or
// what is left of it): the first such line, and what to do, which depends
// on the --prefix given (setting: "" detects, "none" keeps every prefix,
// else a regular expression) and on the prefix found (nil: none).
func prefixCause(f *record.Format, file string, h record.Head, setting string, found *stripper) string {
	if f.Sniff == nil || f.NewParser == nil {
		return ""
	}
	for _, l := range h.Lines {
		if f.Sniff(l) {
			return "" // some lines are the format's as they are
		}
	}
	first, width, same := -1, 0, true
	for i, l := range h.Lines {
		k := recordOffset(f, l)
		if k <= 0 {
			continue
		}
		if first < 0 {
			first, width = i, k
		} else if k != width {
			same = false
		}
	}
	if first < 0 {
		return ""
	}
	at := fmt.Sprintf("%s:%d", file, h.Nums[first])
	shape := knownPrefix(h.Lines[first])
	what := fmt.Sprintf("has %d bytes before its %s record", width, f.Name)
	if shape != "" {
		what = fmt.Sprintf("starts with a %s prefix before its %s record", shape, f.Name)
	}
	suggest := "--prefix REGEX (a regular expression matching it at the start of every line)"
	if same {
		suggest = fmt.Sprintf("--prefix '.{%d}' (it is %d bytes on every line that has it)", width, width)
	}
	switch {
	case setting == PrefixNone:
		if shape != "" {
			return fmt.Sprintf("%s %s, kept by --prefix none: drop --prefix none", at, what)
		}
		return fmt.Sprintf("%s %s, a collector prefix kept by --prefix none: remove it with %s", at, what, suggest)
	case setting != "":
		return fmt.Sprintf("%s still has %d bytes before its %s record once what --prefix matches is removed: correct the expression", at, width, f.Name)
	case found != nil:
		return fmt.Sprintf("%s still has %d bytes before its %s record once its %s prefix is removed: remove both with --prefix REGEX", at, width, f.Name, found.name)
	case shape != "":
		return fmt.Sprintf("%s %s, not detected (detection wants it on more than half of the first %d lines): remove it with %s", at, what, detectLines, suggest)
	}
	return fmt.Sprintf("%s %s: a collector prefix of no shape infertrace detects; remove it with %s", at, what, suggest)
}

// unknownFormatCause tells a file no format was sniffed from whose first
// lines hold records of a line format of tier t behind a prefix that was
// not removed (a collector's of no shape infertrace detects, such as a log
// viewer's time): what prefixCause says of the first such format, in the
// order of their names; "" when there is none. As sniffing does, one line
// is enough.
func unknownFormatCause(t Tier, file string, h record.Head, setting string, found *stripper) string {
	for _, name := range record.Formats(t) {
		f, err := record.Lookup(t, name)
		if err != nil {
			continue
		}
		if cause := prefixCause(f, file, h, setting, found); cause != "" {
			return cause
		}
	}
	return ""
}

// recordOffset returns the smallest k, after a space or a tab and within
// maxPrefixScan bytes, at which the format sniffs line[k:] as its own;
// -1 when there is none.
func recordOffset(f *record.Format, l []byte) int {
	for k := 1; k < len(l) && k <= maxPrefixScan; k++ {
		if (l[k-1] == ' ' || l[k-1] == '\t') && l[k] != ' ' && l[k] != '\t' && f.Sniff(l[k:]) {
			return k
		}
	}
	return -1
}

// knownPrefix names the collector prefix a line starts with, "" if none.
func knownPrefix(l []byte) string {
	for _, p := range prefixShapes {
		if p.match(l) >= 0 {
			return p.name
		}
	}
	return ""
}

// IsFormatError reports whether a manifest error says the file's format
// could not be told, the format named made no rows of it, or its rows lack
// their times (timesError): the user is to name another format, not read
// the file again.
func IsFormatError(manifestError string) bool {
	return strings.HasPrefix(manifestError, ErrUnknownFormat.Error()+":") ||
		strings.HasPrefix(manifestError, "0 of ") && strings.Contains(manifestError, " records: ") ||
		strings.HasPrefix(manifestError, "format ") && strings.Contains(manifestError, " rows have no ")
}
