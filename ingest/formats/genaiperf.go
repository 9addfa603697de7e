package formats

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// GenAI-Perf / perf_analyzer write profile_export.json, one JSON document
// (perf_analyzer src/profile_data_exporter.cc, written on one line):
//
//	{"experiments":[{"experiment":{"mode":"concurrency","value":1},
//	   "requests":[{"timestamp":<ns>,"sequence_id"?:n,"request_inputs":{"payload":"<JSON string>",…},
//	                "response_timestamps":[<ns>,…],"response_outputs":[{"response":"<body or SSE chunk>"},…]}],
//	   "window_boundaries":[…]}],
//	 "version":"…","service_kind":"openai","endpoint":"v1/chat/completions"}
//
// One unit and row per request, on the load generator's wall clock
// (system_clock epoch ns):
//   - Start = timestamp (required); End = the last response timestamp (the
//     end of the stream, [DONE] included).
//   - Streamed = more than one response timestamp (one per SSE chunk; a
//     non-streamed response has exactly one); FirstToken = the first
//     response timestamp, for streamed requests only (the single timestamp
//     of a non-streamed response is its end, not a first token).
//   - No request ID is recorded: RequestID stays empty. ResponseID is the
//     "id" member of the first response body or SSE chunk that has one (the
//     server's chatcmpl-… id); only that member is read from the text.
//   - Model: the "model" member of the request payload, else of the
//     response. Error (and Status, from its code): when a response body is
//     an OpenAI or vLLM error object, its type. No response at all gives
//     Error "no response" and no End.
//
// Prompts and completions are never copied: a rejected request is logged
// with its position, not its text.

const formatGenAIPerf = "genai-perf"

func init() {
	record.RegisterDoc(record.Client, formatGenAIPerf, sniffGenAIPerf, parseGenAIPerf)
}

// sniffGenAIPerf accepts a first line that opens the document with its
// "experiments" member (perf_analyzer writes it first, on one line). A
// pretty-printed export, whose first line is "{", must be named:
// genai-perf:FILE.
func sniffGenAIPerf(line []byte) bool {
	if lgNativeLike(line) {
		return false
	}
	found := false
	lgSniffMembers(line, func(key []byte, _ scan.Value, _ bool) bool {
		found = string(key) == "experiments"
		return false // it is the first member
	})
	return found
}

// lgMaxUnit bounds the bytes of one request record read at once.
const lgMaxUnit = record.MaxLineBytes

func parseGenAIPerf(r io.Reader, file string, out *record.DocOut[record.ClientRow]) error {
	d := newLgDocReader(r)
	var p genaiPerfParser
	found := false
	err := d.documents(func() error {
		return d.members(func(key string) error {
			if key != "experiments" {
				return d.skip()
			}
			found = true
			return d.elements(func(exp int) error {
				return d.members(func(key string) error {
					if key != "requests" {
						return d.skip()
					}
					return d.elements(func(req int) error {
						return d.unit(out, fmt.Appendf(nil, `{"experiment":%d,"request":%d}`, exp, req), p.request)
					})
				})
			})
		})
	})
	if err == nil && !found && d.docs > 0 {
		err = fmt.Errorf("%w: no \"experiments\" member: not a GenAI-Perf profile_export.json", record.ErrSyntax)
	}
	return lgDocEnd(err)
}

type genaiPerfParser struct{ labels scan.Labels }

func (p *genaiPerfParser) request(raw []byte, out *record.DocOut[record.ClientRow]) error {
	var r record.ClientRow
	var first, last int64
	n := 0
	var respModel string
	err := scan.Object(raw, func(k []byte, esc bool, v scan.Value) error {
		switch string(scan.MemberKey(k, esc)) {
		case "timestamp":
			return lgEpochField("timestamp", v, 1, &r.Start)
		case "response_timestamps":
			return scan.Elements("response_timestamps", v, func(_ int, e scan.Value) error {
				var ns int64
				if err := lgEpochField("response_timestamps", e, 1, &ns); err != nil || ns == 0 {
					return err
				}
				if n == 0 {
					first = ns
				}
				last = ns
				n++
				return nil
			})
		case "response_outputs":
			return scan.Elements("response_outputs", v, func(_ int, e scan.Value) error {
				if r.ResponseID != "" || e.Kind != scan.ObjectKind {
					return nil
				}
				return scan.Object(e.Raw, func(k []byte, esc bool, v scan.Value) error {
					if v.Kind == scan.String && r.ResponseID == "" {
						p.response(v, &r, &respModel)
					}
					return nil
				})
			})
		case "request_inputs":
			return lgMembers("request_inputs", v, func(key []byte, v scan.Value) error {
				if string(key) == "payload" && v.Kind == scan.String {
					if body, ok := scan.Unquote(v.Raw, v.Escaped); ok {
						lgSniffMembers(bytes.TrimSpace(body), func(key []byte, v scan.Value, complete bool) bool {
							if string(key) == "model" && complete {
								p.labels.Label("model", v, &r.Model)
								return false
							}
							return true
						})
					}
				}
				return nil
			})
		}
		return nil
	})
	if err != nil {
		return err
	}
	if r.Start == 0 {
		return record.Missing("timestamp")
	}
	switch {
	case n == 0:
		r.Error = "no response"
	case n == 1:
		r.End = last
		r.Streamed = record.BoolPtr(false)
	default:
		r.End, r.FirstToken = last, first
		r.Streamed = record.BoolPtr(true)
	}
	if r.Model == "" {
		r.Model = respModel
	}
	r.Format = formatGenAIPerf
	*out.Next() = r
	return nil
}

// response reads the id, model and error of one response output: a JSON
// body, or SSE text whose data: lines hold JSON chunks.
func (p *genaiPerfParser) response(v scan.Value, r *record.ClientRow, model *string) {
	body, ok := scan.Unquote(v.Raw, v.Escaped)
	if !ok {
		return
	}
	for len(body) > 0 {
		line := body
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		line = bytes.TrimSpace(line)
		if rest, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			line = bytes.TrimSpace(rest)
		}
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var isErr bool
		var errType string
		var code int32
		lgSniffMembers(line, func(key []byte, v scan.Value, complete bool) bool {
			if !complete {
				return false
			}
			switch string(key) {
			case "id":
				scan.Text("id", v, &r.ResponseID)
			case "model":
				if *model == "" {
					p.labels.Label("model", v, model)
				}
			case "object":
				isErr = v.Kind == scan.String && string(v.Raw) == "error"
			case "type":
				p.labels.Label("type", v, &errType)
			case "code":
				scan.HTTPStatus("code", v, &code)
			case "error": // OpenAI: {"error":{"message":…,"type":…,"code":…}}
				if v.Kind == scan.ObjectKind {
					isErr = true
					lgSniffMembers(v.Raw, func(key []byte, v scan.Value, complete bool) bool {
						switch string(key) {
						case "type":
							p.labels.Label("type", v, &errType)
						case "code":
							scan.HTTPStatus("code", v, &code)
						}
						return complete
					})
				}
			}
			return true
		})
		if isErr {
			r.Error = "error"
			if errType != "" {
				r.Error = errType
			}
			if code >= 100 {
				r.Status = code
			}
		}
		if r.ResponseID != "" {
			return
		}
	}
}

// lgDocReader walks a JSON document from a stream without holding it: the
// formats keep only the records (one request each) they decode, one at a
// time. It counts lines, to say where a record starts.
type lgDocReader struct {
	r       *bufio.Reader
	line    int64
	capture bool
	buf     []byte
	over    bool
	docs    int // top-level values begun
}

var (
	errLgTooBig    = errors.New("record over 16 MiB")
	errLgTruncated = errors.New("the document ends inside this record (truncated file?)")
	errLgStop      = errors.New("stop")
)

func newLgDocReader(r io.Reader) *lgDocReader {
	return &lgDocReader{r: bufio.NewReaderSize(r, 64<<10), line: 1}
}

func (d *lgDocReader) synErr(msg string) error {
	return fmt.Errorf("%w: line %d: %s", record.ErrSyntax, d.line, msg)
}

// next consumes one byte; the end of input is io.ErrUnexpectedEOF.
func (d *lgDocReader) next() (byte, error) {
	c, err := d.r.ReadByte()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return 0, err
	}
	if c == '\n' {
		d.line++
	}
	if d.capture {
		if len(d.buf) < lgMaxUnit {
			d.buf = append(d.buf, c)
		} else {
			d.over = true
		}
	}
	return c, nil
}

// peek skips white space and returns the next byte, not consumed; io.EOF
// at the end of input.
func (d *lgDocReader) peek() (byte, error) {
	for {
		b, err := d.r.Peek(1)
		if err != nil {
			return 0, err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			d.next()
		default:
			return b[0], nil
		}
	}
}

func (d *lgDocReader) peekIn() (byte, error) {
	c, err := d.peek()
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return c, err
}

// skip consumes one value (capturing it when capture is on).
func (d *lgDocReader) skip() error {
	c, err := d.peekIn()
	if err != nil {
		return err
	}
	switch c {
	case '"':
		d.next()
		return d.stringRest()
	case '{', '[':
		depth := 0
		for {
			c, err := d.next()
			if err != nil {
				return err
			}
			switch c {
			case '"':
				if err := d.stringRest(); err != nil {
					return err
				}
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return nil
				}
			}
		}
	case '}', ']', ',', ':':
		return d.synErr("unexpected " + strconv.QuoteRune(rune(c)))
	}
	// A number or a literal (Python's json also writes NaN and Infinity).
	n := 0
	for {
		b, err := d.r.Peek(1)
		if err == io.EOF && n > 0 {
			return nil
		}
		if err != nil {
			return io.ErrUnexpectedEOF
		}
		switch b[0] {
		case ',', ']', '}', ' ', '\t', '\r', '\n':
			return nil
		}
		d.next()
		n++
	}
}

func (d *lgDocReader) stringRest() error {
	for {
		c, err := d.next()
		if err != nil {
			return err
		}
		switch c {
		case '\\':
			if _, err := d.next(); err != nil {
				return err
			}
		case '"':
			return nil
		}
	}
}

// value consumes one value and returns its bytes, valid until the next
// call; errLgTooBig (the value consumed) past lgMaxUnit bytes.
func (d *lgDocReader) value() ([]byte, error) {
	if _, err := d.peekIn(); err != nil {
		return nil, err
	}
	d.buf, d.capture, d.over = d.buf[:0], true, false
	err := d.skip()
	d.capture = false
	if err == nil && d.over {
		err = errLgTooBig
	}
	return d.buf, err
}

// members walks an object (or null); fn must consume the member's value.
func (d *lgDocReader) members(fn func(key string) error) error {
	return d.composite('{', '}', func() error {
		raw, err := d.value()
		if err != nil {
			return err
		}
		if len(raw) < 2 || raw[0] != '"' {
			return d.synErr("expected a member name")
		}
		end, esc, err := scan.StringAt(raw, 1) // checks the escapes unquote trusts
		if err != nil || end != len(raw)-1 {
			return d.synErr("bad member name")
		}
		key, ok := scan.Unquote(raw[1:end], esc)
		if !ok {
			return d.synErr("bad member name")
		}
		if c, err := d.peekIn(); err != nil {
			return err
		} else if c != ':' {
			return d.synErr("expected ':' after member name")
		}
		d.next()
		return fn(string(key))
	})
}

// elements walks an array (or null); fn must consume the element.
func (d *lgDocReader) elements(fn func(i int) error) error {
	i := 0
	return d.composite('[', ']', func() error { i++; return fn(i - 1) })
}

func (d *lgDocReader) composite(open, close byte, item func() error) error {
	c, err := d.peekIn()
	if err != nil {
		return err
	}
	if c == 'n' { // null
		return d.skip()
	}
	if c != open {
		return d.synErr(fmt.Sprintf("expected %q", open))
	}
	d.next()
	for first := true; ; first = false {
		c, err := d.peekIn()
		if err != nil {
			return err
		}
		if c == close {
			d.next()
			return nil
		}
		if !first {
			if c != ',' {
				return d.synErr(fmt.Sprintf("expected ',' or %q", close))
			}
			d.next()
		}
		if err := item(); err != nil {
			return err
		}
	}
}

// documents calls fn for each top-level value: a file may hold several
// (vLLM bench --append-result writes one per line).
func (d *lgDocReader) documents(fn func() error) error {
	for {
		if _, err := d.peek(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		d.docs++
		if err := fn(); err != nil {
			return err
		}
	}
}

// unit reads one record and hands it to decode, which fills rows through
// out; pos (the record's position in the document, never its text) is what
// rejects.jsonl keeps. A record cut off by the end of the file is rejected
// and ends the walk.
func (d *lgDocReader) unit(out *record.DocOut[record.ClientRow], pos []byte, decode func(raw []byte, out *record.DocOut[record.ClientRow]) error) error {
	if _, err := d.peekIn(); err != nil {
		return err
	}
	line := d.line
	raw, err := d.value()
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		if err := out.Done(line, pos, fmt.Errorf("%w: %v", record.ErrSyntax, errLgTruncated)); err != nil {
			return err
		}
		return errLgStop
	case err == errLgTooBig:
		return out.Done(line, pos, fmt.Errorf("%w: %v", record.ErrLineTooLong, err))
	case err != nil:
		return err
	}
	return out.Done(line, pos, decode(raw, out))
}

// lgDocEnd maps the end of a walk to parse's result: a file cut short
// keeps what came before it.
func lgDocEnd(err error) error {
	if err == errLgStop || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil
	}
	return err
}
