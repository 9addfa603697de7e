package record

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Decoder is the pull interface every input format implements for the rows
// of its tier. Next decodes the next record into row and returns io.EOF
// after the last one. A *ParseError rejects one input unit (a line, for the
// line formats): the caller records it and calls Next again, so one bad line
// never stops a file.
type Decoder[T Row] interface {
	Next(row *T) error
}

// LineParser is what a line-oriented format implements: turn one non-blank
// line into rows, each taken from out.next() and filled in before the next
// one is taken. Zero rows is fine (a line of a kind the format does not
// keep); an error rejects the whole line, rows included. A parser keeps
// per-worker state (interned labels), so each worker makes its own.
type LineParser[T Row] interface {
	ParseLine(line []byte, out *RowQueue[T]) error
}

// DocParser is what a format that is not one record per line implements (a
// JSON array of trace fragments, one JSON document per file): it reads the
// whole input and reports each input unit it decodes (a record, a group of
// fragments) through out. Such files are read by one goroutine each.
type DocParser[T Row] func(r io.Reader, file string, out *DocOut[T]) error

// Format is one registered input format of one tier.
type Format struct {
	Tier  Tier
	Name  string
	Sniff func(firstLine []byte) bool
	// NewParser is a func() LineParser[T] for a line format, Doc a
	// DocParser[T] for a document format, for the tier's row type T.
	NewParser any
	Doc       any
	// Options, for a format that takes settings from Options.FormatOptions
	// (a user's log format string), returns the newParser of one run, or
	// why the settings are wrong.
	Options func(opts map[string]string) (newParser any, err error)
	// NoRowsHint, when set, is what the error of a file that made no row
	// through this format asks instead of naming another format (TGI's
	// JSON reader given TGI's default text output).
	NoRowsHint string
	// NoRowsCause, when set, tells from the first lines of a file (see
	// Head) why this format would make no row of it, for the error of a
	// file that made none and rejected no line: the number of the line
	// that shows it, and the cause, which the error gives after
	// "FILE:LINE " ("is a Receive: line, and …"). ok is false when the
	// lines show no cause it knows. It must not quote the lines.
	NoRowsCause func(h Head) (line int64, cause string, ok bool)
	// CollectorTime names the columns that this format fills from the
	// collector's time of a line (RowQueue.LineTime), as the manifest
	// states them ("arrival_time, end_time"); empty: it uses none.
	CollectorTime string
	// Untimed marks a format whose rows carry no time of their own by
	// design (vllm-log's annotations, timed at most by CollectorTime): a
	// file of them is not refused for lacking times (HasTime).
	Untimed bool
	// AccessLogHint, when set, marks a format that reads access logs in a
	// format string the user gives: a file of HTTP request lines that no
	// format recognises is told as an access log of its own format, to be
	// read by the formats of its tier that set it.
	AccessLogHint *AccessLogHint
	// DefaultZone, when set, is the zone (an IANA name or an offset)
	// that times this format logs without a zone are read in when the
	// user gives none (--timezone): documented, and stated per file in
	// the manifest.
	DefaultZone string
	// ReadPaths are JSON paths ("meta.model", "a[].b") whose string values
	// this format reads as IDs, times and labels, besides those every JSON
	// format's are known by (ingest/redact.go): a rejected line keeps
	// them in rejects.jsonl.
	ReadPaths []string
}

// Head is the first non-blank lines of a file as its format reads them
// (collector prefixes removed), with their line numbers.
type Head struct {
	Lines [][]byte
	Nums  []int64
	// Whole: these are all of the file's non-blank lines.
	Whole bool
}

// AccessLogHint is how the error of an unrecognised access log names a
// format that takes the log's format string.
type AccessLogHint struct {
	Flag string // the option that gives the format string: --nginx-format
	Rank int    // the error names the formats in increasing Rank
	// Suggest, when set, returns the format string of a common shape
	// (NGINX's main, main with timings…) that reads every one of lines,
	// else "": the error then gives the flag with that string.
	Suggest func(lines [][]byte) string
}

// ConfigureFormats returns the newParser of every format that takes
// options, configured for one run.
func ConfigureFormats(opts map[string]string) (map[*Format]any, error) {
	m := map[*Format]any{}
	for _, fs := range registry {
		for _, f := range fs {
			if f.Options != nil {
				np, err := f.Options(opts)
				if err != nil {
					return nil, err
				}
				m[f] = np
			}
		}
	}
	return m, nil
}

var registry = map[Tier][]*Format{}

// NativeFormat is the name of the native format, one JSON object per line
// in infertrace's own schema: an empty file is read as one.
const NativeFormat = "native"

// Register adds f to the formats of its tier.
func Register(f *Format) {
	registry[f.Tier] = append(registry[f.Tier], f)
}

func RegisterLine[T Row](t Tier, name string, sniff func([]byte) bool, newParser func() LineParser[T]) {
	Register(&Format{Tier: t, Name: name, Sniff: sniff, NewParser: newParser})
}

func RegisterDoc[T Row](t Tier, name string, sniff func([]byte) bool, parse DocParser[T]) {
	Register(&Format{Tier: t, Name: name, Sniff: sniff, Doc: parse})
}

// DocOut receives what a document format decodes. Rows taken with Next
// belong to the current unit until Done commits or rejects them.
type DocOut[T Row] struct {
	File    string
	Queue   RowQueue[T]
	Emit    func(rows []T) error
	Reject  func(*ParseError) error
	Units   int64
	Decoded int64
	Rows    int64
}

// Next returns a new zero row of the current unit, good until the next call.
func (o *DocOut[T]) Next() *T { return o.Queue.Next() }

// Done ends the current unit, which starts at line: with err nil its rows
// are kept, otherwise they are dropped and the unit is rejected with err
// (and raw, cut and redacted, kept in rejects.jsonl).
func (o *DocOut[T]) Done(line int64, raw []byte, err error) error {
	o.Units++
	defer o.Queue.Reset()
	if err != nil {
		return o.Reject(&ParseError{File: o.File, Line: line, Err: err, Raw: raw})
	}
	o.Decoded++
	for i := range o.Queue.Rows {
		SetSource(&o.Queue.Rows[i], o.File, line)
	}
	o.Rows += int64(len(o.Queue.Rows))
	return o.Emit(o.Queue.Rows)
}

// Formats lists the format names a tier accepts, for usage messages.
func Formats(t Tier) []string {
	var names []string
	for _, f := range registry[t] {
		names = append(names, f.Name)
	}
	sort.Strings(names)
	return names
}

// IsFormatName reports whether name is the name of a format of any tier.
func IsFormatName(name string) bool {
	for _, fs := range registry {
		for _, f := range fs {
			if f.Name == name {
				return true
			}
		}
	}
	return false
}

func Lookup(t Tier, name string) (*Format, error) {
	for _, f := range registry[t] {
		if f.Name == name {
			return f, nil
		}
	}
	return nil, fmt.Errorf("unknown %s format %q (known: %s)", t, name, strings.Join(Formats(t), ", "))
}

// SniffFormat picks the format of a file from its first non-blank line.
func SniffFormat(t Tier, firstLine []byte) (*Format, error) {
	return Sniff(t, "", [][]byte{firstLine}, nil)
}

// Sniff picks the format of file from the lines that peekSniffLines (ingest)
// returned (the first line peekFirstLine returned ahead of them): the
// first line some format recognises decides, so leading lines that tell
// nothing (a launcher banner, a CSV header) are passed over. A JSON line
// is also tried with its whitespace removed, as log shippers re-serialize
// records with spaces. When no line is recognised the error names the
// formats whose parsers accepted most of the lines and the flag to pass.
//
// doc, when not nil, is a pretty-printed JSON document the lines end with,
// compacted: it is one record of a document format, never a line, so a
// line format that recognises it stands for its document form, NAME-json.
func Sniff(t Tier, file string, lines [][]byte, doc []byte) (*Format, error) {
	if doc != nil {
		for _, f := range registry[t] {
			if f.Sniff == nil || !f.Sniff(doc) {
				continue
			}
			if f.Doc != nil {
				return f, nil
			}
			if d, err := Lookup(t, f.Name+"-json"); err == nil && d.Doc != nil {
				return d, nil
			}
		}
		// Else a line format whose record it is, pretty-printed or in an
		// array: the file is read as records of it (JSONRecords).
		if f := SniffJSONRecords(t, doc); f != nil {
			return f, nil
		}
	}
	for _, line := range lines {
		variants := [][]byte{line}
		if len(line) > 0 && (line[0] == '{' || line[0] == '[') {
			if c := CompactJSON(line); len(c) != len(line) {
				variants = append(variants, c)
			}
		}
		for _, v := range variants {
			for _, f := range registry[t] {
				if f.Sniff != nil && f.Sniff(v) {
					return f, nil
				}
			}
		}
	}
	closest, counts := closestFormats(t, lines)
	flag := "--" + string(t) + " FORMAT:" + shellQuote(file)
	near := "no known format decodes them; known: " + strings.Join(Formats(t), ", ")
	if len(closest) > 0 {
		flag = "--" + string(t) + " " + closest[0] + ":" + shellQuote(file)
		var parts []string
		for i, name := range closest {
			parts = append(parts, fmt.Sprintf("%s decodes %d of %d", name, counts[i], len(lines)))
		}
		near = "closest: " + strings.Join(parts, ", ")
	}
	if hints := accessLogFormats(t); len(closest) == 0 && len(hints) > 0 && accessLogLike(lines) {
		var names, others []string
		for _, f := range hints {
			names = append(names, f.Name)
			if f != hints[0] {
				others = append(others, f.Name+" with "+f.AccessLogHint.Flag)
			}
		}
		near = "an access log in a format of its own: closest " + strings.Join(names, " or ") + ", given the format string"
		flag = "--" + string(t) + " " + hints[0].Name + ":" + shellQuote(file) + " " + hints[0].AccessLogHint.Flag + " '…'"
		if len(others) > 0 {
			flag += " (or " + strings.Join(others, ", or ") + ")"
		}
		for _, f := range hints {
			if f.AccessLogHint.Suggest == nil {
				continue
			}
			if s := f.AccessLogHint.Suggest(lines); s != "" {
				near = "an access log of " + f.Name + " in a common format of its own, which it reads given the format string"
				flag = "--" + string(t) + " " + f.Name + ":" + shellQuote(file) + " " + f.AccessLogHint.Flag + " " + shellQuote(s)
				break
			}
		}
	}
	if file == "" {
		flag = "FORMAT:GLOB"
	}
	return nil, fmt.Errorf("%w: cannot tell the %s format from the first lines (%s); name it with %s",
		ErrUnknownFormat, t, near, flag)
}

// accessLogFormats lists the formats of tier t that set AccessLogHint, in
// increasing Rank (then name).
func accessLogFormats(t Tier) []*Format {
	var fs []*Format
	for _, f := range registry[t] {
		if f.AccessLogHint != nil {
			fs = append(fs, f)
		}
	}
	sort.Slice(fs, func(i, j int) bool {
		a, b := fs[i].AccessLogHint, fs[j].AccessLogHint
		return a.Rank < b.Rank || a.Rank == b.Rank && fs[i].Name < fs[j].Name
	})
	return fs
}

// accessLogLike reports whether one of lines holds a quoted HTTP request
// line (`"POST /v1/chat/completions HTTP/1.1"`, a proxy's `"CONNECT
// host:443 HTTP/1.1"`), as access logs do.
func accessLogLike(lines [][]byte) bool {
	for _, l := range lines {
		for _, m := range []string{`"GET /`, `"POST /`, `"PUT /`, `"DELETE /`, `"HEAD /`, `"PATCH /`, `"OPTIONS /`, `"CONNECT `} {
			if strings.Contains(string(l), m) {
				return true
			}
		}
	}
	return false
}

// closestFormats lists the line formats of tier t whose parsers turn the
// most of lines into rows (at least one), best first.
func closestFormats(t Tier, lines [][]byte) (names []string, counts []int) {
	type score struct {
		name string
		n    int
	}
	var scores []score
	for _, f := range registry[t] {
		var n int
		switch t {
		case Client:
			n = rowLines[ClientRow](f.NewParser, lines)
		case Gateway:
			n = rowLines[GatewayRow](f.NewParser, lines)
		case Server:
			n = rowLines[ServerRow](f.NewParser, lines)
		}
		if n > 0 {
			scores = append(scores, score{f.Name, n})
		}
	}
	sort.SliceStable(scores, func(i, j int) bool { return scores[i].n > scores[j].n })
	for i, s := range scores {
		if i == 3 {
			break
		}
		names = append(names, s.name)
		counts = append(counts, s.n)
	}
	return names, counts
}

// rowLines counts the lines that the line parser newParser makes at least
// one row of without an error; 0 for a document format.
func rowLines[T Row](newParser any, lines [][]byte) int {
	return parsedLines(newParser, lines, func(*T) bool { return true })
}

// parsedLines counts the lines that the line parser newParser parses
// without an error into at least one row that keep accepts; 0 for a
// document format (no line parser) or a parser that panics.
func parsedLines[T Row](newParser any, lines [][]byte, keep func(*T) bool) (n int) {
	np, ok := newParser.(func() LineParser[T])
	if !ok {
		return 0
	}
	defer func() {
		if recover() != nil {
			n = 0
		}
	}()
	p := np()
	for _, line := range lines {
		var q RowQueue[T]
		if err := p.ParseLine(line, &q); err != nil {
			continue
		}
		for i := range q.Rows {
			if keep(&q.Rows[i]) {
				n++
				break
			}
		}
	}
	return n
}

// SniffJSONRecords returns the line format of tier t that recognises the
// first record of doc (a JSON document, compacted), nil if none does.
func SniffJSONRecords(t Tier, doc []byte) *Format {
	first := FirstJSONObject(doc)
	for _, f := range registry[t] {
		if f.NewParser != nil && f.Doc == nil && f.Sniff != nil && (f.Sniff(first) || f.Sniff(doc)) {
			return f
		}
	}
	return nil
}

// shellQuote quotes s for a POSIX shell when it holds anything but the
// characters of ordinary paths and globs.
func shellQuote(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./*?+=,@%", r)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

// An Option is a setting a format takes from Options.FormatOptions, offered
// to users as the flag --NAME of ingest and run. Formats declare their
// options beside their registration (RegisterOption), so that the command
// line names no format's settings itself.
type Option struct {
	Name    string // the flag's name and the key of Options.FormatOptions
	Default string
	Value   string // what help calls its value: FORMAT, VARIABLE
	Usage   string // the flag's help
}

var options = map[string]Option{}

// RegisterOption declares o. Formats sharing a setting (the OTLP readers'
// otel-request-id) declare it alike; a second, different declaration of
// one name is a programming error.
func RegisterOption(o Option) {
	if prev, ok := options[o.Name]; ok && prev != o {
		panic("record: option " + o.Name + " declared twice, differently")
	}
	options[o.Name] = o
}

// Options returns the declared options, by name.
func Options() []Option {
	out := make([]Option, 0, len(options))
	for _, o := range options {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
