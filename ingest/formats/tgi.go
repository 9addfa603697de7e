package formats

import (
	"bytes"
	"unicode/utf8"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// The tgi server format: the JSON lines of the Hugging Face
// text-generation-inference router run with --json-output (tracing-subscriber
// JSON with flattened events), as the launcher forwards them:
//
//	{"timestamp":"2026-11-30T10:00:02.639812Z","level":"INFO","message":"Success",
//	 "target":"text_generation_router::server","filename":"router/src/server.rs","line_number":432,
//	 "span":{"parameters":"GenerateParameters { … }","total_time":"2.639712331s",
//	         "validation_time":"13.106171ms","queue_time":"351.2048ms",
//	         "inference_time":"2.275403112s","time_per_token":"17.776586ms","seed":"None","name":"generate"},
//	 "spans":[{… the same fields …,"name":"generate"}]}
//
// A "Success" event is one finished request. Its handler span (generate,
// generate_stream, chat_completions, completions) carries the timings the
// router measured on its monotonic clock, recorded as Rust Duration Debug
// strings; they are read by key from "span", else from the innermost entry
// of "spans" that has them. Only the event timestamp is wall time (UTC, µs).
// A row has:
//
//	End          timestamp (router host's wall clock, when it logged Success)
//	E2ENS        total_time (from handler entry, after the request JSON was parsed)
//	Arrival      End − total_time: derived, on the router host's wall clock,
//	             and a little late (the handler starts after the body is read)
//	QueueNS      queue_time (appended to the batching queue → first added to a batch)
//	Scheduled    Arrival + validation_time + queue_time (derived)
//	InferenceNS  inference_time: prefill and decode together
//	OutputTokens round(inference_time / time_per_token), when both are > 0:
//	             derived and lossy (time_per_token is truncated to whole ns)
//
// TGI logs no request ID, model, token counts, TTFT or prefill/decode
// split, and no status: RequestID, EngineRequestID, Model, PromptTokens,
// TTFTNS, PrefillNS, DecodeNS, FirstToken and Status stay NULL. The handler
// name, which tells /generate_stream from /generate, has no column and is
// not kept. The analysis matches TGI rows to gateway records by time: End
// and E2ENS (with Arrival derived from them) are what it can rely on.
//
// An ERROR event inside a request handler span (validation errors from
// text_generation_router::infer, "Incomplete generation"…) is a failed
// request: a row with End = timestamp and Error = the message, cut to 200
// bytes (it is TGI's error text, not user input). Every other line (startup,
// warmup, shard logs, other levels) gives zero rows. The "parameters" span
// field is never read.

const formatTGI = "tgi"

func init() {
	record.RegisterLine(record.Server, formatTGI, sniffTGI, func() record.LineParser[record.ServerRow] { return &tgiParser{} })
	if f, err := record.Lookup(record.Server, formatTGI); err == nil {
		f.NoRowsHint = "is this TGI's text output?" // TGI's default output is text
	}
}

// sniffTGI accepts a tracing-subscriber JSON line of a TGI component. The
// first line may be cut at 64 KiB, so it looks at bytes, not parsed JSON.
func sniffTGI(line []byte) bool {
	line = bytes.TrimSpace(line)
	return bytes.HasPrefix(line, []byte(`{"timestamp":"`)) &&
		bytes.Contains(line, []byte(`"level":"`)) &&
		bytes.Contains(line, []byte(`"target":"text_generation`))
}

// tgiErrorMax is how much of an error message a row keeps.
const tgiErrorMax = 200

type tgiParser struct{}

// tgiSpan is one span object of a line: its name and the timings TGI
// records on the handler span.
type tgiSpan struct {
	name                                       []byte
	total, validation, queue, inference, perTk scan.Value
}

func (s *tgiSpan) read(raw []byte) error {
	*s = tgiSpan{}
	return scan.Object(raw, func(k []byte, esc bool, v scan.Value) error {
		switch key := string(scan.MemberKey(k, esc)); key {
		case "name":
			if v.Kind == scan.String {
				s.name, _ = scan.Unquote(v.Raw, v.Escaped)
			}
		default:
			s.setDuration(key, v)
		}
		return nil
	})
}

func tgiHandler(name []byte) bool {
	switch string(name) {
	case "generate", "generate_stream", "chat_completions", "completions":
		return true
	}
	return false
}

func (p *tgiParser) ParseLine(line []byte, out *record.RowQueue[record.ServerRow]) error {
	var ts, span, spans, msgV scan.Value
	var level []byte
	err := scan.Object(line, func(k []byte, esc bool, v scan.Value) error {
		switch string(scan.MemberKey(k, esc)) {
		case "timestamp":
			ts = v
		case "level":
			if v.Kind == scan.String {
				level = v.Raw
			}
		case "message":
			msgV = v
		case "fields": // an event that was not flattened
			if v.Kind == scan.ObjectKind && msgV.Kind == 0 {
				return scan.Object(v.Raw, func(k []byte, esc bool, v scan.Value) error {
					if string(scan.MemberKey(k, esc)) == "message" {
						msgV = v
					}
					return nil
				})
			}
		case "span":
			span = v
		case "spans":
			spans = v
		}
		return nil
	})
	if err != nil {
		return err
	}
	var msg []byte
	if msgV.Kind != 0 {
		if msg, _, err = scan.TextBytes("message", msgV); err != nil {
			return err
		}
	}
	switch {
	case string(level) == "INFO" && string(msg) == "Success":
		return p.success(ts, span, spans, out)
	case string(level) == "ERROR":
		return p.failure(ts, span, spans, msg, out)
	}
	return nil
}

// timingSpan finds the span that carries total_time: "span" (the current
// span) first, else the innermost such entry of "spans".
func (p *tgiParser) timingSpan(span, spans scan.Value, s *tgiSpan) (bool, error) {
	if span.Kind == scan.ObjectKind {
		if err := s.read(span.Raw); err != nil {
			return false, err
		}
		if s.total.Kind != 0 {
			return true, nil
		}
	}
	if spans.Kind != scan.Array {
		return false, nil
	}
	found := false
	var cand tgiSpan
	err := srvEachValue(spans.Raw, func(v scan.Value) error {
		if v.Kind != scan.ObjectKind {
			return nil
		}
		if err := cand.read(v.Raw); err != nil {
			return err
		}
		if cand.total.Kind != 0 {
			*s, found = cand, true
		}
		return nil
	})
	return found, err
}

func (p *tgiParser) success(ts, span, spans scan.Value, out *record.RowQueue[record.ServerRow]) error {
	var s tgiSpan
	found, err := p.timingSpan(span, spans, &s)
	if err != nil {
		return err
	}
	if !found {
		return record.Missing("span.total_time")
	}
	var end int64
	if err := tgiTime(ts, &end); err != nil {
		return err
	}
	return tgiSuccessRow(formatTGI, end, &s, out)
}

// tgiSuccessRow fills the row of a Success event logged at end from the
// timings of its handler span; the JSON and the text output share it.
func tgiSuccessRow(format string, end int64, s *tgiSpan, out *record.RowQueue[record.ServerRow]) error {
	r := out.Next()
	r.Format = format
	r.End = end
	total, ok, err := scan.RustDurationField("total_time", s.total)
	if err != nil {
		return err
	}
	if !ok {
		return record.Missing("span.total_time")
	}
	r.E2ENS = record.NSPtr(total)
	r.Arrival = r.End - total
	if r.Arrival < scan.MinEpochSec*1e9 {
		return record.FieldErrorf("total_time", record.ErrBadValue, "%d ns is longer than the time since 2000", total)
	}
	validation, okV, err := scan.RustDurationField("validation_time", s.validation)
	if err != nil {
		return err
	}
	queue, okQ, err := scan.RustDurationField("queue_time", s.queue)
	if err != nil {
		return err
	}
	if okQ {
		r.QueueNS = record.NSPtr(queue)
	}
	if okV && okQ {
		// Both are parts of total_time: the request reached a batch
		// before the handler measured it.
		if validation > total || queue > total-validation {
			return record.FieldErrorf("queue_time", record.ErrBadValue, "validation_time + queue_time exceed total_time")
		}
		r.Scheduled = r.Arrival + validation + queue
	}
	inference, okI, err := scan.RustDurationField("inference_time", s.inference)
	if err != nil {
		return err
	}
	if okI {
		r.InferenceNS = record.NSPtr(inference)
	}
	perTk, okT, err := scan.RustDurationField("time_per_token", s.perTk)
	if err != nil {
		return err
	}
	if okI && okT && inference > 0 && perTk > 0 {
		n := inference / perTk
		if inference%perTk >= perTk-perTk/2 { // round half up
			n++
		}
		if n <= 1<<31-1 {
			r.OutputTokens = record.Int32Ptr(int32(n))
		}
	}
	return nil
}

func (p *tgiParser) failure(ts, span, spans scan.Value, msg []byte, out *record.RowQueue[record.ServerRow]) error {
	inRequest := false
	var s tgiSpan
	if span.Kind == scan.ObjectKind {
		if err := s.read(span.Raw); err != nil {
			return err
		}
		inRequest = tgiHandler(s.name)
	}
	if !inRequest && spans.Kind == scan.Array {
		err := srvEachValue(spans.Raw, func(v scan.Value) error {
			if v.Kind == scan.ObjectKind && !inRequest {
				if err := s.read(v.Raw); err != nil {
					return err
				}
				inRequest = tgiHandler(s.name)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	if !inRequest {
		return nil // not about a request: startup, shard, connection errors
	}
	r := out.Next()
	r.Format = formatTGI
	if err := tgiTime(ts, &r.End); err != nil {
		return err
	}
	if len(msg) == 0 {
		msg = []byte("error")
	}
	r.Error = string(srvCutUTF8(msg, tgiErrorMax))
	return nil
}

// tgiTime reads the event timestamp, which every row needs.
func tgiTime(ts scan.Value, dst *int64) error {
	if ts.Kind != 0 {
		if err := scan.Timestamp("timestamp", ts, dst); err != nil {
			return err
		}
	}
	if *dst == 0 {
		return record.Missing("timestamp")
	}
	return nil
}

// srvCutUTF8 cuts b to at most n bytes without splitting a character.
func srvCutUTF8(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return b[:n]
}

// srvEachValue calls fn for each element of the JSON array raw (as scanned
// by scanValue, brackets included).
func srvEachValue(raw []byte, fn func(v scan.Value) error) error {
	i := scan.SkipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return scan.SyntaxErr(i, "expected an array")
	}
	i = scan.SkipSpace(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return nil
	}
	for {
		v, next, err := scan.ValueAt(raw, i)
		if err != nil {
			return err
		}
		if err := fn(v); err != nil {
			return err
		}
		i = scan.SkipSpace(raw, next)
		if i >= len(raw) {
			return scan.SyntaxErr(i, scan.ErrUnexpectedEnd.Error())
		}
		switch raw[i] {
		case ',':
			i = scan.SkipSpace(raw, i+1)
		case ']':
			return nil
		default:
			return scan.SyntaxErr(i, "expected ',' or ']' in an array")
		}
	}
}

// setDuration keeps v when key is one of the span's duration fields; the
// JSON and text forms name them alike.
func (s *tgiSpan) setDuration(key string, v scan.Value) {
	switch key {
	case "total_time":
		s.total = v
	case "validation_time":
		s.validation = v
	case "queue_time":
		s.queue = v
	case "inference_time":
		s.inference = v
	case "time_per_token":
		s.perTk = v
	}
}
