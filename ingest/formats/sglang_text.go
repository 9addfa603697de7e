package formats

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// The sglang-text server format: SGLang's --log-requests lines in the
// default text form (--log-requests-format text), as its logger prints
// them, "[time] " (the time, in local time without a zone, and a " TP0" /
// " DP0 TP0" process label are not used) and the message:
//
//	[2026-11-30 10:00:02] Finish: obj=GenerateReqInput(rid='5b1f…', stream=False, …),
//	  out={'meta_info': {'id': '5b1f…', 'finish_reason': {'type': 'length', 'length': 128},
//	  'prompt_tokens': 512, 'completion_tokens': 128, 'e2e_latency': 2.6398,
//	  'request_received_ts': 1796032800.0, 'queue_time': 0.3512, …}}
//
// (one line). SGLang 0.5.10 was seen writing them without the "[time] "
// prefix (the message alone, sglang issue #25887: testdata/real/sglang):
// a line that starts with "Finish: obj=" or "Receive: obj=" is read as
// that message. obj and out are Python reprs: a dataclass as Name(field=value,
// …), dicts, lists and tuples, 'strings' (or "strings" when they hold a
// quote) with Python escapes, numbers, None, True and False. They are read
// as the JSON the --log-requests-format json line holds, and a "Finish:"
// line gives the row that line gives (sglang.go: every column from
// out['meta_info'], the ID from its 'id', else obj's rid), Format
// "sglang-log" included (the manifest names the reader, sglang-text). Values that are not literals (an object's repr, SGLang's
// "'head' ... 'tail'" cut of a value longer than the log level allows, inf
// and nan) read as None. "Receive:" lines and every other line give zero
// rows; obj's text, input_ids and sampling parameters and out's text and
// output_ids are converted but never read.

const formatSGLangText = "sglang-text"

func init() {
	record.Register(&record.Format{
		Tier:        record.Server,
		Name:        formatSGLangText,
		Sniff:       sniffSGLangText,
		NewParser:   func() record.LineParser[record.ServerRow] { return &sglangTextParser{} },
		NoRowsCause: sglangTextNoRows,
	})
}

// sglangTextNoRows tells a log of Receive: lines without a Finish: line:
// SGLang writes Receive: when a request arrives and Finish:, with every
// timing, when it ends, so a log cut before any request ended, or
// filtered to the Receive: lines, has nothing to read.
func sglangTextNoRows(h record.Head) (int64, string, bool) {
	first := -1
	for i, l := range h.Lines {
		msg, ok := sglangTextMessage(bytes.TrimSpace(l))
		switch {
		case !ok:
		case bytes.HasPrefix(msg, []byte("Finish: ")):
			return 0, "", false
		case first < 0 && bytes.HasPrefix(msg, []byte("Receive: ")):
			first = i
		}
	}
	if first < 0 {
		return 0, "", false
	}
	return h.Nums[first], "is an SGLang Receive: line, and no line is a Finish: line, the one SGLang writes " +
		"with a request's timings when it ends: was the log cut before any request ended, or its Finish: lines filtered out?", true
}

func sniffSGLangText(line []byte) bool {
	msg, ok := sglangTextMessage(bytes.TrimSpace(line))
	return ok && (bytes.HasPrefix(msg, []byte("Finish: obj=")) || bytes.HasPrefix(msg, []byte("Receive: obj=")))
}

// sglangTextMessage returns the message after SGLang's "[time] " prefix,
// or the line itself when it is a request line without one.
func sglangTextMessage(line []byte) ([]byte, bool) {
	line = stripANSI(line)
	if bytes.HasPrefix(line, []byte("Finish: obj=")) || bytes.HasPrefix(line, []byte("Receive: obj=")) {
		return line, true
	}
	if len(line) < 2 || line[0] != '[' || line[1] < '0' || line[1] > '9' {
		return nil, false
	}
	k := bytes.Index(line, []byte("] "))
	if k < 0 || k > 64 {
		return nil, false
	}
	return line[k+2:], true
}

type sglangTextParser struct {
	sglangParser
	buf []byte
}

func (p *sglangTextParser) ParseLine(line []byte, out *record.RowQueue[record.ServerRow]) error {
	msg, ok := sglangTextMessage(line)
	if !ok || !cutPrefix(&msg, "Finish: ") {
		return nil
	}
	msg = bytes.TrimRight(msg, " \r")
	var err error
	p.buf, _, err = pyKwargs(p.buf[:0], msg, 0, 0)
	if err != nil {
		return err
	}
	var obj, outV scan.Value
	err = scan.Object(p.buf, func(k []byte, esc bool, v scan.Value) error {
		switch string(scan.MemberKey(k, esc)) {
		case "obj":
			obj = v
		case "out":
			outV = v
		}
		return nil
	})
	if err != nil {
		return err
	}
	var rid string
	if obj.Kind == scan.ObjectKind {
		err = scan.Object(obj.Raw, func(k []byte, esc bool, v scan.Value) error {
			if string(scan.MemberKey(k, esc)) == "rid" && v.Kind == scan.String {
				return scan.Text("obj.rid", v, &rid)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return p.finished(rid, outV, formatSGLangLog, out)
}

// Python reprs as JSON. The converters append the JSON form of the repr at
// b[i:] to dst and return where it ends; the only error is a line that
// ends inside a value (cut off).

var (
	errPyCut       = logLineError("the line ends inside a Python value (truncated line?)")
	errPyNotKwargs = logLineError("not name=value pairs: want Finish: obj=…, out={…}")
)

func pySpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i
}

// pyValue converts one value. What is not a literal becomes null and is
// skipped up to the next ',' or closing bracket outside brackets and
// strings.
func pyValue(dst, b []byte, i int) ([]byte, int, error) {
	start := len(dst)
	i = pySpace(b, i)
	vi := i
	if i >= len(b) {
		return dst, i, errPyCut
	}
	var err error
	ok := true
	switch c := b[i]; {
	case c == '{':
		dst, i, ok, err = pyDict(dst, b, i+1)
	case c == '[':
		dst, i, ok, err = pyList(dst, b, i+1, ']')
	case c == '(':
		dst, i, ok, err = pyList(dst, b, i+1, ')')
	case c == '\'' || c == '"':
		dst, i, err = pyString(dst, b, i)
	case c == '-' || c == '+' || '0' <= c && c <= '9' || c == '.':
		j := i
		for j < len(b) && bytes.IndexByte([]byte("0123456789.eE+-_xabcdefABCDEFinfINFnaN"), b[j]) >= 0 {
			j++
		}
		tok := b[i:j]
		if tok[0] == '+' {
			tok = tok[1:]
		}
		if len(tok) == 0 { // a lone '+'
			ok = false
		} else if e, serr := scan.NumberAt(tok, 0); serr == nil && e == len(tok) {
			dst = append(dst, tok...)
		} else {
			ok = false // inf, nan, 0x1f, 1_000: no JSON number
		}
		i = j
	case isPyIdent(c):
		j := i
		for j < len(b) && (isPyIdent(b[j]) || b[j] == '.' || '0' <= b[j] && b[j] <= '9') {
			j++
		}
		switch word := string(b[i:j]); {
		case word == "None":
			dst, i = append(dst, "null"...), j
		case word == "True":
			dst, i = append(dst, "true"...), j
		case word == "False":
			dst, i = append(dst, "false"...), j
		case j < len(b) && b[j] == '(': // a dataclass: Name(field=value, …)
			if dst, i, err = pyKwargs(dst, b, j+1, ')'); err == errPyNotKwargs {
				ok, err = false, nil
			}
		default:
			ok = false
		}
	default:
		ok = false
	}
	if err != nil {
		return dst, i, err
	}
	if k := pySpace(b, i); ok && err == nil && (k >= len(b) || bytes.IndexByte([]byte(",)]}:="), b[k]) >= 0) {
		return dst, k, nil
	}
	// Not a literal, or a literal followed by more ("'a' ... 'z'"): null.
	j, err := pySkip(b, vi)
	if err != nil {
		return dst, j, err
	}
	return append(dst[:start], "null"...), j, nil
}

// pySkip returns the index of the first ',' or closing bracket from i that
// is outside brackets and strings.
func pySkip(b []byte, i int) (int, error) {
	depth := 0
	for ; i < len(b); i++ {
		switch c := b[i]; c {
		case '\'', '"':
			end, err := pyStringEnd(b, i)
			if err != nil {
				return len(b), err
			}
			i = end - 1
		case '{', '[', '(':
			depth++
		case '}', ']', ')':
			if depth == 0 {
				return i, nil
			}
			depth--
		case ',':
			if depth == 0 {
				return i, nil
			}
		}
	}
	if depth > 0 {
		return len(b), errPyCut
	}
	return len(b), nil
}

func isPyIdent(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// pyDict converts the members of a dict after its '{'.
func pyDict(dst, b []byte, i int) ([]byte, int, bool, error) {
	dst = append(dst, '{')
	for n := 0; ; n++ {
		i = pySpace(b, i)
		if i >= len(b) {
			return dst, i, false, errPyCut
		}
		if b[i] == '}' {
			return append(dst, '}'), i + 1, true, nil
		}
		if n > 0 {
			if b[i] != ',' {
				return dst, i, false, nil
			}
			if i = pySpace(b, i+1); i < len(b) && b[i] == '}' {
				return append(dst, '}'), i + 1, true, nil
			}
			dst = append(dst, ',')
		}
		keyStart := len(dst)
		var err error
		if dst, i, err = pyValue(dst, b, i); err != nil {
			return dst, i, false, err
		}
		if key := dst[keyStart:]; len(key) == 0 || key[0] != '"' { // an int key: as a string
			k := string(key)
			dst = append(dst[:keyStart], '"')
			for j := 0; j < len(k); j++ {
				dst = jsonEscapeByte(dst, k[j])
			}
			dst = append(dst, '"')
		}
		if i = pySpace(b, i); i >= len(b) || b[i] != ':' {
			return dst, i, false, pyCutOr(i, b)
		}
		dst = append(dst, ':')
		if dst, i, err = pyValue(dst, b, i+1); err != nil {
			return dst, i, false, err
		}
	}
}

// pyList converts the elements of a list or tuple after its opening bracket.
func pyList(dst, b []byte, i int, close byte) ([]byte, int, bool, error) {
	dst = append(dst, '[')
	for n := 0; ; n++ {
		i = pySpace(b, i)
		if i >= len(b) {
			return dst, i, false, errPyCut
		}
		if b[i] == close {
			return append(dst, ']'), i + 1, true, nil
		}
		if n > 0 {
			if b[i] != ',' {
				return dst, i, false, nil
			}
			if i = pySpace(b, i+1); i < len(b) && b[i] == close { // (1,)
				return append(dst, ']'), i + 1, true, nil
			}
			dst = append(dst, ',')
		}
		var err error
		if dst, i, err = pyValue(dst, b, i); err != nil {
			return dst, i, false, err
		}
	}
}

// pyKwargs converts name=value pairs, up to close (0: the end of b), into a
// JSON object; errPyNotKwargs when they are not such pairs.
func pyKwargs(dst, b []byte, i int, close byte) ([]byte, int, error) {
	start := len(dst)
	dst = append(dst, '{')
	for n := 0; ; n++ {
		i = pySpace(b, i)
		if i >= len(b) {
			if close == 0 {
				return append(dst, '}'), i, nil
			}
			return dst, i, errPyCut
		}
		if close != 0 && b[i] == close {
			return append(dst, '}'), i + 1, nil
		}
		if n > 0 {
			if b[i] != ',' {
				return dst[:start], i, errPyNotKwargs
			}
			i = pySpace(b, i+1)
			dst = append(dst, ',')
		}
		j := i
		for j < len(b) && (isPyIdent(b[j]) || j > i && '0' <= b[j] && b[j] <= '9') {
			j++
		}
		if j == i || j >= len(b) || b[j] != '=' {
			if j >= len(b) && close != 0 {
				return dst, j, errPyCut
			}
			return dst[:start], i, errPyNotKwargs
		}
		dst = append(append(append(dst, '"'), b[i:j]...), '"', ':')
		var err error
		if dst, i, err = pyValue(dst, b, j+1); err != nil {
			return dst, i, err
		}
	}
}

func pyCutOr(i int, b []byte) error {
	if i >= len(b) {
		return errPyCut
	}
	return nil
}

// pyStringEnd returns the index after the closing quote of the string
// quoted at b[i].
func pyStringEnd(b []byte, i int) (int, error) {
	q := b[i]
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case q:
			return j + 1, nil
		}
	}
	return len(b), errPyCut
}

// pyString converts a Python string literal (repr) to a JSON string.
func pyString(dst, b []byte, i int) ([]byte, int, error) {
	end, err := pyStringEnd(b, i)
	if err != nil {
		return dst, end, err
	}
	dst = append(dst, '"')
	s := b[i+1 : end-1]
	for k := 0; k < len(s); k++ {
		c := s[k]
		if c == '\\' && k+1 < len(s) {
			k++
			var r rune = -1
			switch e := s[k]; e {
			case 'n':
				r = '\n'
			case 't':
				r = '\t'
			case 'r':
				r = '\r'
			case 'a':
				r = 7
			case 'b':
				r = 8
			case 'f':
				r = 12
			case 'v':
				r = 11
			case '0', '1', '2', '3', '4', '5', '6', '7':
				n := 0
				for m := 0; m < 3 && k < len(s) && '0' <= s[k] && s[k] <= '7'; m++ {
					n = n*8 + int(s[k]-'0')
					k++
				}
				k--
				r = rune(n)
			case 'x', 'u', 'U':
				w := 2
				if e == 'u' {
					w = 4
				} else if e == 'U' {
					w = 8
				}
				r = utf8.RuneError
				if k+1+w <= len(s) {
					if v, perr := strconv.ParseUint(string(s[k+1:k+1+w]), 16, 32); perr == nil {
						r = rune(v)
						k += w
					}
				}
			default: // \\, \' and \": the character; Python keeps the backslash of any other
				if e != '\\' && e != '\'' && e != '"' {
					dst = jsonEscapeByte(dst, '\\')
				}
				dst = jsonEscapeByte(dst, e)
				continue
			}
			if !utf8.ValidRune(r) {
				r = utf8.RuneError
			}
			var tmp [4]byte
			n := utf8.EncodeRune(tmp[:], r)
			for _, x := range tmp[:n] {
				dst = jsonEscapeByte(dst, x)
			}
			continue
		}
		dst = jsonEscapeByte(dst, c)
	}
	return append(dst, '"'), end, nil
}

// jsonEscapeByte appends c inside a JSON string.
func jsonEscapeByte(dst []byte, c byte) []byte {
	switch {
	case c == '"' || c == '\\':
		return append(dst, '\\', c)
	case c < 0x20 || c == 0x7f:
		return append(dst, '\\', 'u', '0', '0', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
	}
	return append(dst, c)
}
