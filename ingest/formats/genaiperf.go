package formats

import (
	"bytes"
	"fmt"
	"io"

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
			return scan.Elements("response_timestamps", v, func(i int, e scan.Value) error {
				var ns int64
				if err := lgEpochField("response_timestamps", e, 1, &ns); err != nil || ns == 0 {
					return err
				}
				if n > 0 && ns < last {
					// GenAI-Perf appends each response's time as it
					// arrives: out of order, neither the first token nor
					// the end can be told.
					return fmt.Errorf("response_timestamps: element %d (%d) is earlier than the one before it (%d): not in arrival order", i, ns, last)
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
