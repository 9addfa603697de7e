package ingest

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// A log is rarely read as the tool wrote it: it comes through docker logs,
// kubectl logs, journald or a container runtime's log files, each of which
// puts a prefix of its own before every line. The chunker finds such a
// prefix from the first non-blank lines of a file and strips it from every
// line before the format is sniffed or any line decoded, so that every
// format reads its own lines, whatever carried them:
//
//	vllm-1  | INFO 11-30 10:00:00 [loggers.py:116] …                 docker-compose (coloured too)
//	2026-11-30T10:00:00.123456789Z INFO 11-30 …                      timestamp (docker logs -t, kubectl logs --timestamps)
//	[pod/vllm-7d9f/vllm] INFO 11-30 …                                 kubectl (kubectl logs --prefix)
//	2026-11-30T10:00:00.123456789Z stdout F INFO 11-30 …             cri (containerd and CRI-O log files)
//	Dec 11 09:58:58 host ollama[1543]: time=2026-12-11T09:58:58 …    syslog (journalctl, syslog files;
//	                                                                  the month as the locale writes it)
//	2026-12-11T09:58:58+0100 host ollama[1543]: …                     syslog (journalctl -o short-iso)
//
// Prefixes stack (kubectl logs --prefix --timestamps writes the pod before
// the time): detection peels up to maxPrefixLayers of them. A CRI line
// tagged P is the start of a line the runtime split; it is joined with the
// lines of its stream that follow up to the one tagged F. The joined line
// takes the number of its first part and the parts after it stay as blank
// lines, so that line numbers are the file's and the manifest's accounting
// holds.
// The prefix found is FileStats.Prefix; Options.Prefix names one instead
// (a regular expression) or turns detection off.

const (
	// detectLines is how many first non-blank lines a prefix is detected
	// from: it must be found on more than half of them.
	detectLines = 16
	detectBytes = 64 << 10
	// maxPrefixLayers bounds the prefixes peeled from one line.
	maxPrefixLayers = 3
	// PrefixNone as Options.Prefix turns detection off.
	PrefixNone = "none"
)

// prefixShape is a known collector prefix: match returns the length of
// the prefix at the start of line, or -1.
type prefixShape struct {
	name  string
	match func(line []byte) int
}

// prefixShapes are tried in this order: the CRI prefix starts with the
// timestamp prefix, so it comes first.
var prefixShapes = []prefixShape{
	{"cri", func(l []byte) int { n, _ := criPrefix(l); return n }},
	{"kubectl", kubectlPrefix},
	{"docker-compose", composePrefix},
	{"syslog", syslogPrefix},
	{"timestamp", timestampPrefix},
}

// stripper removes the prefixes of one file from its lines.
type stripper struct {
	name   string
	layers []func([]byte) int
	cri    bool // the first layer is the CRI prefix: P lines are joined
	// timed is 1 + the index of the layer whose prefix starts with a
	// full time (timestamp, cri, and syslog when its times are RFC 3339
	// ones), which travels with the line to its reader
	// (record.RowQueue.LineTime); 0 when no layer has one.
	timed     int
	timedName string
}

// strip returns line without its prefixes; a line without them is
// returned as it is.
func (s *stripper) strip(line []byte) []byte {
	line, _ = s.stripTime(line)
	return line
}

// stripTime is strip that also returns the time of the line's timed
// layer (collectorTime), 0 when it has none.
func (s *stripper) stripTime(line []byte) ([]byte, int64) {
	var ns int64
	for i, m := range s.layers {
		if n := m(line); n >= 0 {
			if i+1 == s.timed {
				ns = s.lineTime(line)
			}
			line = line[n:]
		}
	}
	return line, ns
}

// lineTime is the time of the timed layer's prefix at the start of l:
// collectorTime, reading an offset written ±hhmm only in a syslog prefix
// (older journalctl releases write -o short-iso's offset so).
func (s *stripper) lineTime(l []byte) int64 {
	return collectorTime(l, s.timedName == "syslog")
}

// collectorTime reads the RFC 3339 time that starts l (a timestamp, CRI
// or syslog prefix) as nanoseconds since the epoch, UTC; 0 when there is
// none, when it is the epoch itself, or when it is none ParseRFC3339
// takes: an offset written ±hhmm is read only when compact is set.
func collectorTime(l []byte, compact bool) int64 {
	n := rfc3339(l)
	if n < 0 {
		return 0
	}
	t := l[:n]
	if compact && n >= 24 && (t[n-5] == '+' || t[n-5] == '-') && digits(t[n-4:]) {
		var buf [48]byte
		t = append(append(append(buf[:0], t[:n-2]...), ':'), t[n-2:]...)
	}
	ns, err := scan.ParseRFC3339(t)
	if err != nil {
		return 0
	}
	return ns
}

// regexStripper is the stripper of Options.Prefix: the match of re at the
// start of a line is removed.
func regexStripper(re *regexp.Regexp) *stripper {
	return &stripper{name: "regex", layers: []func([]byte) int{func(l []byte) int {
		if loc := re.FindIndex(l); loc != nil && loc[0] == 0 {
			return loc[1]
		}
		return -1
	}}}
}

// CompilePrefix checks Options.Prefix: "" (detect), PrefixNone, or a
// regular expression whose match at the start of a line is removed.
func CompilePrefix(expr string) (*regexp.Regexp, error) {
	if expr == "" || expr == PrefixNone {
		return nil, nil
	}
	re, err := regexp.Compile(`^(?:` + expr + `)`)
	if err != nil {
		return nil, fmt.Errorf("--prefix %q: %w", expr, err)
	}
	if re.MatchString("") {
		return nil, fmt.Errorf("--prefix %q matches an empty line: it would remove nothing", expr)
	}
	return re, nil
}

// detectPrefix finds the prefixes found on more than half of the first
// non-blank lines of data (the first chunk of a file); nil when none is.
func detectPrefix(data []byte) *stripper {
	var lines [][]byte
	for rest := data; len(rest) > 0 && len(lines) < detectLines && len(data)-len(rest) < detectBytes; {
		var line []byte
		line, rest = cutLine(rest)
		if line = record.TrimCR(line); !record.IsBlank(line) {
			lines = append(lines, line)
		}
	}
	if len(lines) == 0 {
		return nil
	}
	var s stripper
	var names []string
	used := map[string]bool{}
	for len(s.layers) < maxPrefixLayers {
		found := false
		for _, p := range prefixShapes {
			if used[p.name] || (p.name == "cri" && len(s.layers) > 0) {
				continue
			}
			hits, timedHits := 0, 0
			for _, l := range lines {
				if p.match(l) >= 0 {
					hits++
					if rfc3339(l) >= 0 {
						timedHits++
					}
				}
			}
			if 2*hits <= len(lines) {
				continue
			}
			for i, l := range lines {
				if n := p.match(l); n >= 0 {
					lines[i] = l[n:]
				}
			}
			used[p.name], found = true, true
			// A syslog prefix carries a full time when its times are
			// RFC 3339 ones (journalctl -o short-iso), not "Dec 11
			// 09:58:58", which has no year and no zone.
			timed := p.name == "timestamp" || p.name == "cri" || (p.name == "syslog" && 2*timedHits > hits)
			if timed && s.timed == 0 {
				s.timed, s.timedName = len(s.layers)+1, p.name
			}
			s.layers = append(s.layers, p.match)
			s.cri = s.cri || p.name == "cri"
			names = append(names, p.name)
			break
		}
		if !found {
			break
		}
	}
	if len(s.layers) == 0 {
		return nil
	}
	s.name = strings.Join(names, "+")
	return &s
}

// timestampPrefix matches the time docker logs --timestamps and kubectl
// logs --timestamps write before a line: RFC 3339 with nine fraction
// digits (both write them fixed), then one space. A log's own RFC 3339
// time (TGI's, with six digits and two spaces) is not one.
func timestampPrefix(l []byte) int {
	n := rfc3339(l)
	if n < 0 || n+1 > len(l) || l[n] != ' ' {
		return -1
	}
	if dot := bytes.IndexByte(l[:n], '.'); dot < 0 || fracDigits(l[dot+1:n]) != 9 {
		return -1
	}
	return n + 1
}

// criPrefix matches the prefix of a line of a CRI log file (containerd,
// CRI-O): "TIME STREAM TAG " with TIME RFC 3339, STREAM stdout or stderr,
// TAG F (a full line, or its last part) or P (a part of a line the runtime
// split); partial says which. An empty line may end after TAG.
func criPrefix(l []byte) (n int, partial bool) {
	n = rfc3339(l)
	if n < 0 || len(l) < n+10 || l[n] != ' ' {
		return -1, false
	}
	s := l[n+1:]
	if !bytes.HasPrefix(s, []byte("stdout ")) && !bytes.HasPrefix(s, []byte("stderr ")) {
		return -1, false
	}
	s = s[7:]
	if s[0] != 'F' && s[0] != 'P' {
		return -1, false
	}
	n += 1 + 7 + 1
	switch {
	case len(s) == 1:
	case s[1] == ' ':
		n++
	default:
		return -1, false
	}
	return n, s[0] == 'P'
}

// criStream returns the stream ("stdout" or "stderr") of a line criPrefix
// matches.
func criStream(l []byte) []byte {
	n := rfc3339(l) + 1
	return l[n : n+6]
}

// kubectlPrefix matches what kubectl logs --prefix writes:
// "[pod/NAME/CONTAINER] ".
func kubectlPrefix(l []byte) int {
	if !bytes.HasPrefix(l, []byte("[pod/")) {
		return -1
	}
	end := bytes.IndexByte(l, ']')
	if end < 0 || end+1 >= len(l) || l[end+1] != ' ' {
		return -1
	}
	inner := l[5:end]
	if i := bytes.IndexByte(inner, '/'); i <= 0 || i == len(inner)-1 || bytes.IndexByte(inner[i+1:], '/') >= 0 ||
		bytes.IndexByte(inner, ' ') >= 0 {
		return -1
	}
	return end + 2
}

// composePrefix matches what docker compose logs (and up) write: the
// container's name, which ends with its replica number (vllm-1,
// proj_vllm_1), padded with spaces, then "| " ("|" alone on an empty
// line). Writing to a terminal, compose colours the prefix: "ESC[36m"
// (an SGR code of digits and ';') before the name and "ESC[0m" after
// "| ".
func composePrefix(l []byte) int {
	color := sgrColor(l)
	n := plainComposePrefix(l[color:])
	switch {
	case n < 0:
		return -1
	case color == 0:
		return n
	case n > 0 && l[color+n-1] == ' ' && bytes.HasPrefix(l[color+n:], []byte(sgrReset)):
		return color + n + len(sgrReset)
	}
	return -1
}

const sgrReset = "\x1b[0m"

// sgrColor returns the length of the ANSI colour code ("ESC[36m",
// "ESC[33;1m") that starts l, 0 when none does.
func sgrColor(l []byte) int {
	if len(l) < 4 || l[0] != 0x1b || l[1] != '[' {
		return 0
	}
	for i := 2; i < len(l) && i < 16; i++ {
		switch c := l[i]; {
		case c == 'm' && i > 2:
			return i + 1
		case !isDigit(c) && c != ';':
			return 0
		}
	}
	return 0
}

func plainComposePrefix(l []byte) int {
	i := 0
	for i < len(l) && (isAlnum(l[i]) || (i > 0 && (l[i] == '-' || l[i] == '_'))) {
		i++
	}
	if i == 0 || i >= len(l) || l[i] != ' ' || !isDigit(l[i-1]) {
		return -1
	}
	for i < len(l) && l[i] == ' ' {
		i++
	}
	if i >= len(l) || l[i] != '|' {
		return -1
	}
	i++
	switch {
	case i == len(l):
		return i
	case l[i] == ' ':
		return i + 1
	}
	return -1
}

// syslogPrefix matches a syslog or journalctl line's prefix: "Dec 11
// 09:58:58 host ident[pid]: " (journalctl's default and syslog files), or
// with an RFC 3339 time (journalctl -o short-iso, short-iso-precise, and
// rsyslog's high-precision format).
func syslogPrefix(l []byte) int {
	n := bsdTime(l)
	if n < 0 {
		n = rfc3339(l)
	}
	if n < 0 || n >= len(l) || l[n] != ' ' {
		return -1
	}
	i := n + 1
	host := i
	for i < len(l) && l[i] != ' ' {
		i++
	}
	if i == host || i >= len(l) {
		return -1
	}
	i++
	ident := i
	for i < len(l) && l[i] != ' ' && l[i] != '[' && l[i] != ':' {
		i++
	}
	if i == ident || i >= len(l) {
		return -1
	}
	if l[i] == '[' {
		j := i + 1
		for j < len(l) && isDigit(l[j]) {
			j++
		}
		if j == i+1 || j >= len(l) || l[j] != ']' {
			return -1
		}
		i = j + 1
	}
	if i >= len(l) || l[i] != ':' {
		return -1
	}
	i++
	switch {
	case i == len(l):
		return i
	case l[i] == ' ':
		return i + 1
	}
	return -1
}

var months = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// bsdTime matches "Mmm dd hh:mm:ss" (the day padded with a space or a
// zero) and returns its length, or -1. journalctl writes the month as the
// host's locale abbreviates it (strftime's %b): "janv.", "févr.", "Mär",
// "août"; a word of 3 to 6 letters, with or without a final '.', is taken
// as a month when the rest of the prefix follows.
func bsdTime(l []byte) int {
	m := bsdMonth(l)
	if m < 0 || len(l) < m+12 || l[m] != ' ' {
		return -1
	}
	if !(l[m+1] == ' ' || isDigit(l[m+1])) || !isDigit(l[m+2]) || l[m+3] != ' ' {
		return -1
	}
	if !clock(l[m+4 : m+12]) {
		return -1
	}
	return m + 12
}

// bsdMonth returns the length of the month abbreviation at the start of
// l: an English one, or 3 to 6 letters (any script) and an optional '.'.
func bsdMonth(l []byte) int {
	if len(l) >= 3 {
		for _, m := range months {
			if string(l[:3]) == m {
				return 3
			}
		}
	}
	i, n := 0, 0
	for i < len(l) && n <= 6 {
		r, size := utf8.DecodeRune(l[i:])
		if !unicode.IsLetter(r) {
			break
		}
		i += size
		n++
	}
	if n < 3 || n > 6 {
		return -1
	}
	if i < len(l) && l[i] == '.' {
		i++
	}
	return i
}

// rfc3339 matches "YYYY-MM-DDThh:mm:ss[.frac](Z|±hh:mm|±hhmm)" at the start
// of l and returns its length, or -1.
func rfc3339(l []byte) int {
	if len(l) < 20 || !digits(l[0:4]) || l[4] != '-' || !digits(l[5:7]) || l[7] != '-' || !digits(l[8:10]) ||
		l[10] != 'T' || !clock(l[11:19]) {
		return -1
	}
	i := 19
	if l[i] == '.' {
		i++
		f := fracDigits(l[i:])
		if f == 0 {
			return -1
		}
		i += f
	}
	if i >= len(l) {
		return -1
	}
	switch l[i] {
	case 'Z':
		return i + 1
	case '+', '-':
		if len(l) >= i+6 && digits(l[i+1:i+3]) && l[i+3] == ':' && digits(l[i+4:i+6]) {
			return i + 6
		}
		if len(l) >= i+5 && digits(l[i+1:i+5]) {
			return i + 5
		}
	}
	return -1
}

func clock(b []byte) bool {
	return digits(b[0:2]) && b[2] == ':' && digits(b[3:5]) && b[5] == ':' && digits(b[6:8])
}

func fracDigits(b []byte) int {
	n := 0
	for n < len(b) && isDigit(b[n]) {
		n++
	}
	return n
}

func digits(b []byte) bool {
	for _, c := range b {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isAlnum(c byte) bool { return isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'z' }

// scanStrip is scan for a file with a prefix: it numbers the lines of ch
// and finds its duplicates as scan does, judging a line's duplicate by its
// whole text (two lines the same but for the collector's time are not one
// line delivered twice), and rewrites ch.data in place with the prefixes
// removed and CRI partial lines joined. Lines keep their numbers. When a
// prefix carries a full time, ch.times holds each line's.
func (c *chunker) scanStrip(ch *chunk) {
	data := ch.data
	timed := c.prefix.timed > 0
	if timed {
		ch.timesBuf = timesPool.Get().(*[]int64)
		ch.times = (*ch.timesBuf)[:0]
	}
	w := 0 // end of what is written; never past r
	r := 0
	for r < len(data) {
		line, next := cutLine(data[r:])
		end := len(data) - len(next) // past this line and its '\n'
		n := c.line + 1
		if c.prefix.cri {
			if _, partial := criPrefix(record.TrimCR(line)); partial {
				w, end = c.joinPartial(ch, data, r, w, n)
				r = end
				continue
			}
		}
		c.line++
		c.lines++
		orig := record.TrimCR(line)
		content, ns := c.prefix.stripTime(orig)
		if timed {
			ch.times = append(ch.times, ns)
		}
		if record.IsBlank(content) {
			c.blank++
		} else if c.window.seen(orig) {
			c.dups++
			ch.dups = append(ch.dups, n)
		}
		w += copy(data[w:], content)
		if len(line) > len(orig) { // keep the '\r' TrimCR took
			data[w] = '\r'
			w++
		}
		if end > r+len(line) {
			data[w] = '\n'
			w++
		}
		r = end
	}
	ch.data = data[:w]
	if timed {
		*ch.timesBuf = ch.times
	}
}

// joinPartial joins the CRI line at data[r:] tagged P, number n, with the
// lines after it of the same stream up to the first one tagged F (or one
// that is no CRI line or of the other stream, or the chunk's end), writes
// the joined text at data[w:] followed by one '\n' per line joined, and
// returns the new w and the end of what it read. The runtime splits each
// stream on its own: a part of stdout is never continued by a line of
// stderr, so such a line ends the join rather than being glued to it.
func (c *chunker) joinPartial(ch *chunk, data []byte, r, w int, n int64) (int, int) {
	// The extent first, while the original text is whole: it is what a
	// duplicate is judged by.
	type part struct{ from, to int }
	var parts []part
	var stream []byte
	end := r
	for end < len(data) {
		line, next := cutLine(data[end:])
		l := record.TrimCR(line)
		k, partial := criPrefix(l)
		if k < 0 {
			break
		}
		if s := criStream(l); stream == nil {
			stream = s
		} else if !bytes.Equal(s, stream) {
			break
		}
		parts = append(parts, part{end + k, end + len(l)})
		end = len(data) - len(next)
		if !partial {
			break
		}
	}
	orig := bytes.TrimRight(data[r:end], "\r\n")
	if c.prefix.timed > 0 { // the joined line's time is its first part's
		ch.times = append(ch.times, c.prefix.lineTime(orig))
		for range len(parts) - 1 {
			ch.times = append(ch.times, 0)
		}
	}
	c.line += int64(len(parts))
	c.lines += int64(len(parts))
	c.blank += int64(len(parts) - 1)
	start := w
	for _, p := range parts {
		w += copy(data[w:], data[p.from:p.to])
	}
	if record.IsBlank(data[start:w]) {
		c.blank++
	} else if c.window.seen(orig) {
		c.dups++
		ch.dups = append(ch.dups, n)
	}
	for range parts {
		data[w] = '\n'
		w++
	}
	return w, end
}

// trailingPartial returns where the run of CRI lines tagged P at the end
// of data[:cut] starts (cut when there is none): they are held back for
// the next chunk, to be joined with the line that ends them.
func trailingPartial(data []byte, cut int) int {
	for cut > 0 {
		i := bytes.LastIndexByte(data[:cut-1], '\n') + 1
		if _, partial := criPrefix(record.TrimCR(data[i : cut-1])); !partial {
			break
		}
		cut = i
	}
	return cut
}
