package formats

import (
	"bytes"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// The tgi-text server format: the TGI router's default output (without
// --json-output), tracing-subscriber's "full" text format with the file and
// line of each event, as the launcher forwards it. ANSI colours are on
// unless LOG_COLORIZE=1, and are removed before reading (also when a log
// shipper wrote ESC as "#033", or a terminal as "^["):
//
//	2026-11-30T10:00:02.639812Z  INFO generate{parameters=GenerateParameters { … } total_time="2.639712331s"
//	  validation_time="13.106171ms" queue_time="351.2048ms" inference_time="2.275403112s"
//	  time_per_token="17.776586ms" seed="None"}: text_generation_router::server: router/src/server.rs:432: Success
//
// (one line). The layout is TIMESTAMP LEVEL [SPANS: ]TARGET: FILE:LINE:
// MESSAGE, where SPANS lists the entered spans from the root, each as
// name{field=value …} (or a bare name) followed by ':'. Span fields are
// key=value pairs separated by spaces; TGI records its timings as Rust
// Duration Debug strings in quotes, and "parameters" is the Debug text of
// the request's parameters (stop sequences included), which is skipped
// unread. The rows are those of the tgi format (tgi.go), Format "tgi"
// included (the manifest names the reader, tgi-text), so that they are
// matched to gateway records by time like the JSON form's:
//
//   - an INFO "Success" event gives a row from the innermost span carrying
//     total_time, exactly as a --json-output line does: End = the
//     timestamp, E2ENS, Arrival, QueueNS, Scheduled, InferenceNS and the
//     derived OutputTokens;
//   - an ERROR event inside a request handler span (generate,
//     generate_stream, chat_completions, completions) is a failed request:
//     End = the timestamp, Error = the message cut to 200 bytes;
//   - every other line (the launcher's and shards' lines, warnings, the
//     lines a multi-line message continues on) gives zero rows.
//
// A Success line that lacks total_time or holds a bad duration or time is
// rejected. Like the JSON form, the text form logs no request ID: the rows
// are matched to gateway records by time (queries/tgi_rows.sql, match_candidates.sql).

const formatTGIText = "tgi-text"

func init() {
	record.RegisterLine(record.Server, formatTGIText, sniffTGIText, func() record.LineParser[record.ServerRow] { return &tgiTextParser{} })
}

// sniffTGIText accepts a full-format tracing line of a TGI component.
func sniffTGIText(line []byte) bool {
	line = stripANSI(bytes.TrimSpace(line))
	_, _, rest, ok := tgiTextHead(line)
	return ok && bytes.Contains(rest, []byte("text_generation"))
}

// tgiTextHead splits off the timestamp (an RFC 3339 word) and the level.
func tgiTextHead(line []byte) (ts, level, rest []byte, ok bool) {
	sp := bytes.IndexByte(line, ' ')
	if sp < 20 || line[4] != '-' || line[10] != 'T' || line[0] < '0' || line[0] > '9' {
		return nil, nil, nil, false
	}
	ts, rest = line[:sp], bytes.TrimLeft(line[sp:], " ")
	sp = bytes.IndexByte(rest, ' ')
	if sp < 0 {
		return nil, nil, nil, false
	}
	switch level = rest[:sp]; string(level) {
	case "TRACE", "DEBUG", "INFO", "WARN", "ERROR":
		return ts, level, rest[sp+1:], true
	}
	return nil, nil, nil, false
}

type tgiTextParser struct{ spans []tgiSpan }

func (p *tgiTextParser) ParseLine(line []byte, out *record.RowQueue[record.ServerRow]) error {
	if !bytes.Contains(line, []byte("Success")) && !bytes.Contains(line, []byte("ERROR")) {
		return nil // cheap test: only these lines give rows
	}
	line = stripANSI(bytes.TrimRight(line, " \r\n"))
	ts, level, rest, ok := tgiTextHead(line)
	if !ok {
		return nil
	}
	spans, msg := tgiTextLayout(rest)
	isSuccess := string(level) == "INFO" && string(msg) == "Success"
	if !isSuccess && string(level) != "ERROR" {
		return nil
	}
	p.spans = p.spans[:0]
	for len(spans) > 0 {
		var s tgiSpan
		var ok bool
		if s, spans, ok = tgiTextSpan(spans); !ok {
			break
		}
		p.spans = append(p.spans, s)
	}
	if isSuccess {
		var s *tgiSpan
		for i := len(p.spans) - 1; i >= 0 && s == nil; i-- {
			if p.spans[i].total.Kind != 0 {
				s = &p.spans[i]
			}
		}
		if s == nil {
			return record.Missing("span.total_time")
		}
		end, err := tgiTextTime(ts)
		if err != nil {
			return err
		}
		return tgiSuccessRow(formatTGI, end, s, out)
	}
	inRequest := false
	for i := range p.spans {
		inRequest = inRequest || tgiHandler(p.spans[i].name)
	}
	if !inRequest {
		return nil // not about a request: startup, shard, connection errors
	}
	end, err := tgiTextTime(ts)
	if err != nil {
		return err
	}
	r := out.Next()
	r.Format = formatTGI
	r.End = end
	if len(msg) == 0 {
		msg = []byte("error")
	}
	r.Error = string(bytes.ToValidUTF8(srvCutUTF8(msg, tgiErrorMax), []byte("\uFFFD")))
	return nil
}

func tgiTextTime(ts []byte) (int64, error) {
	ns, err := scan.ParseRFC3339(ts)
	if err != nil {
		return 0, record.FieldErrorf("timestamp", record.ErrBadTime, "%q: %v", ts, err)
	}
	return ns, nil
}

// tgiTextLayout splits what follows the level into the span list (empty
// when the event is outside every span) and the message. The target is one
// run without spaces outside braces and quotes, and the FILE:LINE: run
// follows it; the span list is everything before the target, which may hold
// spaces outside braces: TGI 1.0's router opened every request with a root
// span named "HTTP request" (HTTP request{otel.name=POST /generate …
// trace_id=…}:generate{…}:).
func tgiTextLayout(rest []byte) (spans, msg []byte) {
	var starts [tgiMaxRuns + 1]int
	next := 0
	for k := 0; k < tgiMaxRuns && next < len(rest); k++ {
		starts[k] = next
		var run []byte
		run, next = tgiRun(rest, next)
		if k > 0 && tgiFileLine(run) {
			// runs before the target's (k-1) are the span list
			return bytes.TrimRight(rest[:starts[k-1]], " "), rest[next:]
		}
	}
	// No file and line: spans only when the first run has span fields.
	r1, a1 := tgiRun(rest, 0)
	if bytes.IndexByte(r1, '{') >= 0 {
		_, a2 := tgiRun(rest, a1)
		return r1, rest[a2:]
	}
	return nil, rest[a1:]
}

// tgiMaxRuns bounds the runs looked at for the FILE:LINE: run: spans,
// target and file come first, and a message's own "x:1:" must not be taken
// for them.
const tgiMaxRuns = 6

// tgiRun returns the run of rest from i to the first space outside
// brackets and double-quoted strings, and where the next run starts.
func tgiRun(rest []byte, i int) (run []byte, next int) {
	if i >= len(rest) {
		return nil, len(rest)
	}
	j := tgiScan(rest, i, func(j int) bool { return rest[j] == ' ' })
	if j >= len(rest) {
		return rest[i:], len(rest)
	}
	return rest[i:j], j + 1
}

// tgiScan returns the first index from i where stop holds outside brackets
// and double-quoted strings (Rust Debug strings, with backslash escapes),
// or len(b).
func tgiScan(b []byte, i int, stop func(j int) bool) int {
	depth := 0
	for j := i; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			for j++; j < len(b) && b[j] != '"'; j++ {
				if b[j] == '\\' {
					j++
				}
			}
		case c == '{' || c == '[' || c == '(':
			depth++
		case (c == '}' || c == ']' || c == ')') && depth > 0:
			depth--
		case depth == 0 && stop(j):
			return j
		}
	}
	return len(b)
}

// tgiFileLine reports whether run is "path:line:".
func tgiFileLine(run []byte) bool {
	if len(run) < 4 || run[len(run)-1] != ':' {
		return false
	}
	run = run[:len(run)-1]
	c := bytes.LastIndexByte(run, ':')
	if c <= 0 || c == len(run)-1 {
		return false
	}
	for _, d := range run[c+1:] {
		if d < '0' || d > '9' {
			return false
		}
	}
	return bytes.IndexByte(run[:c], ':') < 0
}

// tgiTextSpan reads the first span of a span list, name{fields}: or name:,
// and returns what follows it.
func tgiTextSpan(list []byte) (s tgiSpan, rest []byte, ok bool) {
	i := 0
	for i < len(list) && list[i] != '{' && list[i] != ':' {
		i++
	}
	if i == 0 || i == len(list) {
		return s, nil, false
	}
	s.name = list[:i]
	if list[i] == '{' {
		end := tgiScan(list, i+1, func(j int) bool { return list[j] == '}' })
		if end >= len(list) {
			return s, nil, false // cut off
		}
		tgiTextFields(list[i+1:end], &s)
		i = end + 1
	}
	if i >= len(list) || list[i] != ':' {
		return s, nil, false
	}
	return s, list[i+1:], true
}

// tgiTextFields reads the timing fields of a span's key=value list. A
// value ends at a space outside brackets and strings that starts the next
// key=, so a Debug value with spaces ("GenerateParameters { … }") is one.
func tgiTextFields(b []byte, s *tgiSpan) {
	for i := 0; i < len(b); {
		for i < len(b) && b[i] == ' ' {
			i++
		}
		eq := bytes.IndexByte(b[i:], '=')
		if eq < 0 {
			return
		}
		key := b[i : i+eq]
		i += eq + 1
		end := tgiScan(b, i, func(j int) bool { return b[j] == ' ' && tgiKeyFollows(b[j+1:]) })
		val := b[i:end]
		i = end
		v := scan.Value{Kind: scan.String, Raw: val}
		if len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' {
			v.Raw = val[1 : len(val)-1]
		}
		s.setDuration(string(key), v)
	}
}

// tgiKeyFollows reports whether b starts with a field name and '='.
func tgiKeyFollows(b []byte) bool {
	for i, c := range b {
		switch {
		case c == '=':
			return i > 0
		case c == '_' || c == '#' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.':
		default:
			return false
		}
	}
	return false
}
