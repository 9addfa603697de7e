package formats

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// vllm-otel-console: vLLM's llm_request spans as the OpenTelemetry Python
// SDK's ConsoleSpanExporter prints them (OTEL_TRACES_EXPORTER=console, newest
// vLLM): each span is ReadableSpan.to_json(), a JSON object indented by four
// spaces, followed by a line break, one after another on stdout:
//
//	{
//	    "name": "llm_request",
//	    "context": {
//	        "trace_id": "0x4bf92f3577b34da6a3ce929d0e0e4736",
//	        "span_id": "0x1a2b3c4d5e6f7081",
//	        "trace_state": "[]"
//	    },
//	    "kind": "SpanKind.SERVER",
//	    "parent_id": "0x00f067aa0ba902b7",
//	    "start_time": "2025-01-01T00:00:00.000000Z",
//	    "end_time": "2025-01-01T00:00:02.640500Z",
//	    "status": {
//	        "status_code": "UNSET"
//	    },
//	    "attributes": {
//	        "gen_ai.latency.e2e": 2.6398,
//	        "gen_ai.usage.prompt_tokens": 512,
//	        ...
//	    },
//	    "events": [],
//	    "links": [],
//	    "resource": {
//	        "attributes": {
//	            "service.name": "unknown_service"
//	        },
//	        "schema_url": ""
//	    }
//	}
//
// Each span is one input unit, from a line that is exactly "{" to the next
// line that is exactly "}" (indented lines inside cannot be either); a span
// printed on one line (a formatter with indent=None) is a unit too. Lines
// outside spans are skipped: vLLM logs to the same stdout, so a captured
// console holds its log lines between the spans. A span longer than
// MaxLineBytes, or cut short by the end of the file or by the next span, is
// rejected.
//
// The span goes through the same mapping as vllm-otlp (see vllm_otlp.go),
// and its rows say format=vllm-otlp. Attributes are a plain JSON object:
// a number with a fraction or an exponent is a double (Python's json
// writes every float so), one without an int, lists are arrays. The
// console prints no instrumentation scope, so a span is vLLM's when it is
// named llm_request and carries gen_ai.latency.e2e or gen_ai.request.id.
// Times are printed by the SDK's ns_to_iso_str, in microseconds from a float
// division, so arrival is good to about a microsecond here; the durations
// keep their full precision. status_code ERROR with its description is
// the span's error, as in OTLP. Python prints a NaN or infinite float bare
// (NaN, Infinity), which is not JSON: such a span is rejected.
const formatVLLMConsole = "vllm-otel-console"

func init() {
	record.RegisterDoc(record.Server, formatVLLMConsole, sniffVLLMConsole, parseVLLMConsole)
}

// sniffVLLMConsole claims the start of a printed llm_request span: `{` then
// `"name": "llm_request",` (the first line the sniffer sees joins a lone `{`
// with the next line), or the same span printed on one line.
func sniffVLLMConsole(first []byte) bool {
	const head = `{"name": "llm_request",`
	if !bytes.HasPrefix(first, []byte(head)) {
		return false
	}
	rest := bytes.TrimLeft(first[len(head):], " ")
	return len(rest) == 0 || bytes.HasPrefix(rest, []byte(`"context": {"trace_id": "0x`))
}

func parseVLLMConsole(r io.Reader, file string, out *record.DocOut[record.ServerRow]) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var lb scan.Labels
	var span []byte // the lines of the span being read
	var start int64 // its first line; 0: outside a span
	tooLong := false
	unit := func(line int64, data []byte) error {
		err := vllmConsoleSpan(data, &lb, out.Next)
		var raw []byte
		if err != nil {
			raw = data[:min(len(data), record.RawLimit)]
		}
		return out.Done(line, raw, err)
	}
	cut := func(why string) error {
		err := fmt.Errorf("%w: span cut short: %s", record.ErrSyntax, why)
		if tooLong {
			err = fmt.Errorf("%w: span longer than %d bytes", record.ErrLineTooLong, record.MaxLineBytes)
		}
		return out.Done(start, span[:min(len(span), record.RawLimit)], err)
	}
	var no int64
	for {
		l, rerr := readLine(br)
		if l != nil {
			no++
			text := l.data
			if l.tooLong {
				text = nil
			}
			switch {
			case start != 0 && !l.tooLong && string(text) == "}":
				span = append(span, '}')
				var err error
				if tooLong {
					err = cut("")
				} else {
					err = unit(start, span)
				}
				if err != nil {
					return err
				}
				start, span, tooLong = 0, span[:0], false
			case !l.tooLong && string(text) == "{":
				if start != 0 {
					if err := cut(fmt.Sprintf("a new span starts at line %d", no)); err != nil {
						return err
					}
				}
				start, span, tooLong = no, append(span[:0], '{', '\n'), false
			case start != 0:
				if tooLong || l.tooLong || len(span)+len(text)+1 > record.MaxLineBytes {
					tooLong = true // the span is rejected at its end; its head is kept
				} else {
					span = append(append(span, text...), '\n')
				}
			case !l.tooLong && bytes.HasPrefix(text, []byte(`{"name": `)):
				if err := unit(no, text); err != nil {
					return err
				}
			}
		}
		if rerr != nil {
			if rerr == io.EOF {
				rerr = nil
			}
			if start != 0 {
				if err := cut("the file ends inside it"); err != nil {
					return err
				}
			}
			return rerr
		}
	}
}

// consoleSpan is what the reader keeps of a printed span.
type consoleSpan struct {
	Name    string `json:"name"`
	Context *struct {
		TraceID string `json:"trace_id"`
	} `json:"context"`
	StartTime *string `json:"start_time"`
	EndTime   *string `json:"end_time"`
	Status    *struct {
		Code        string `json:"status_code"`
		Description string `json:"description"`
	} `json:"status"`
	Attributes map[string]any `json:"attributes"`
	Resource   *struct {
		Attributes map[string]any `json:"attributes"`
	} `json:"resource"`
}

// vllmConsoleSpan fills a row, taken from next, from one printed span when
// it is vLLM's.
func vllmConsoleSpan(data []byte, lb *scan.Labels, next func() *record.ServerRow) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var cs consoleSpan
	if err := dec.Decode(&cs); err != nil {
		return fmt.Errorf("%w: not a printed span: %v", record.ErrSyntax, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: not a printed span: more after it", record.ErrSyntax)
	}
	if cs.Name != "llm_request" {
		return nil
	}
	_, e2e := cs.Attributes["gen_ai.latency.e2e"]
	_, id := cs.Attributes["gen_ai.request.id"]
	if !e2e && !id {
		return nil
	}
	sp := ptrace.NewSpan()
	sp.SetName(cs.Name)
	putConsoleAttrs(sp.Attributes(), cs.Attributes)
	res := pcommon.NewMap()
	if cs.Resource != nil {
		putConsoleAttrs(res, cs.Resource.Attributes)
	}
	err := func() error {
		if cs.Context != nil && cs.Context.TraceID != "" {
			s := strings.TrimPrefix(cs.Context.TraceID, "0x")
			var tid pcommon.TraceID
			if b, err := hex.DecodeString(s); err != nil || len(b) != len(tid) {
				return record.FieldErrorf("context.trace_id", record.ErrBadValue, "want 0x and 32 hex digits, got %q", cs.Context.TraceID)
			} else {
				copy(tid[:], b)
			}
			sp.SetTraceID(tid)
		}
		for _, t := range []struct {
			name string
			v    *string
			set  func(pcommon.Timestamp)
		}{{"start_time", cs.StartTime, sp.SetStartTimestamp}, {"end_time", cs.EndTime, sp.SetEndTimestamp}} {
			if t.v == nil || *t.v == "" {
				continue
			}
			ns, err := scan.ParseRFC3339([]byte(*t.v))
			if err != nil || ns < 0 {
				return record.FieldErrorf(t.name, record.ErrBadTime, "%q: want an ISO 8601 time such as 2025-01-01T00:00:00.000000Z", *t.v)
			}
			t.set(pcommon.Timestamp(ns))
		}
		if cs.Status != nil && cs.Status.Code == "ERROR" {
			sp.Status().SetCode(ptrace.StatusCodeError)
			sp.Status().SetMessage(cs.Status.Description)
		}
		return vllmSpanRow(sp, res, lb, next())
	}()
	if err != nil {
		rid, _ := attrStr(sp.Attributes(), "gen_ai.request.id")
		return fmt.Errorf("llm_request span %q: %w", rid, err)
	}
	return nil
}

// putConsoleAttrs copies a printed attribute dict into m: json.Number with
// a fraction or exponent as a double, else an int (a double when it does not
// fit); strings, booleans and lists as themselves; null is left out, and an
// object (not an attribute value in Python) is kept as its JSON text.
func putConsoleAttrs(m pcommon.Map, attrs map[string]any) {
	for k, v := range attrs {
		if v == nil {
			continue
		}
		putConsoleValue(m.PutEmpty(k), v)
	}
}

func putConsoleValue(dst pcommon.Value, v any) {
	switch x := v.(type) {
	case string:
		dst.SetStr(x)
	case bool:
		dst.SetBool(x)
	case json.Number:
		s := x.String()
		if !strings.ContainsAny(s, ".eE") {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				dst.SetInt(n)
				return
			}
		}
		f, _ := strconv.ParseFloat(s, 64)
		dst.SetDouble(f)
	case []any:
		sl := dst.SetEmptySlice()
		for _, e := range x {
			if e != nil {
				putConsoleValue(sl.AppendEmpty(), e)
			}
		}
	default:
		b, _ := json.Marshal(x)
		dst.SetStr(string(b))
	}
}
