package formats

import (
	"bytes"
	"fmt"
	"io"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// LLMPerf (ray-project/llmperf) token_benchmark_ray.py writes
// {model}_{in}_{out}_individual_responses.json: one JSON list of
// per-request metrics, with json.dump(…, indent=4), in completion order
// (src/llmperf/common_metrics.py names the keys):
//
//	[
//	    {
//	        "error_code": null, "error_msg": "",
//	        "inter_token_latency_s": 0.0084, "ttft_s": 0.1876, "end_to_end_latency_s": 2.1522,
//	        "request_output_throughput_token_per_s": 118.95,
//	        "number_total_tokens": 768, "number_output_tokens": 256, "number_input_tokens": 512
//	    }, …
//	]
//
// One unit and row per element. The clients time requests with
// time.monotonic() and store neither a start time nor a request ID, so a
// row has durations only and joins nothing: Start, FirstToken, End and
// RequestID stay empty (LLMPerf sends no X-Request-Id, and the response id
// is not kept). For a request whose error_code is null:
//
//	E2ENS         end_to_end_latency_s (request sent → stream ended)
//	TTFTNS        ttft_s (request sent → first chunk with content), NULL when 0: LLMPerf's
//	              "no content chunk came" (its initial value)
//	PromptTokens  number_input_tokens
//	OutputTokens  number_output_tokens (LLMPerf re-counts the generated text with its tokenizer)
//	Streamed      true when inter_token_latency_s is a list of more than one gap (the
//	              SageMaker and Vertex clients); the OpenAI and LiteLLM clients log a number
//	              (the sum of the gaps, TTFT included, divided by the output tokens), which
//	              says nothing more and is not read
//
// A failed request (error_code set: the HTTP status, -1 when no response
// came, or the error object's code) has Status = error_code when it is an
// HTTP status, Error = the type of the error body error_msg holds
// ({"error":{…,"type":"rate_limit_exceeded",…}}, or vLLM's
// {"object":"error",…,"type":"BadRequestError",…}: a body would otherwise
// be a label of quoted strings, and its message may quote the request),
// else error_msg as a short label (its last line, cut), else
// "error <code>", and PromptTokens only: its durations and output
// tokens are what LLMPerf had when it gave up. request_output_throughput
// and number_total_tokens are derived and not read. The summary file
// ({…}_summary.json, one object) is not this format.
//
// Pretty-printed as LLMPerf writes it (a lone "[" first) or written on one
// line ([{"error_code": …), it is sniffed: a document that starts with "["
// is sniffed from its head joined on one line (ingest's chunker), whose
// first element starts with error_code.

const formatLLMPerf = "llmperf"

func init() {
	record.RegisterDoc(record.Client, formatLLMPerf, sniffLLMPerf, parseLLMPerf)
}

// sniffLLMPerf accepts a list (a pretty-printed one joined on one line)
// whose first element starts with error_code, the first key LLMPerf's
// clients set.
func sniffLLMPerf(line []byte) bool {
	i := scan.SkipSpace(line, 0)
	if i >= len(line) || line[i] != '[' {
		return false
	}
	found := false
	lgSniffMembers(line[scan.SkipSpace(line, i+1):], func(key []byte, _ scan.Value, _ bool) bool {
		found = string(key) == "error_code"
		return false
	})
	return found
}

func parseLLMPerf(r io.Reader, file string, out *record.DocOut[record.ClientRow]) error {
	d := newLgDocReader(r)
	err := d.documents(func() error {
		c, err := d.peekIn()
		if err != nil {
			return err
		}
		if c != '[' {
			return fmt.Errorf("%w: line %d: want the list of individual_responses.json, not %q (the _summary.json file is not read)",
				record.ErrSyntax, d.line, rune(c))
		}
		return d.elements(func(i int) error {
			return d.unit(out, fmt.Appendf(nil, `{"request":%d}`, i), decodeLLMPerf)
		})
	})
	return lgDocEnd(err)
}

func decodeLLMPerf(raw []byte, out *record.DocOut[record.ClientRow]) error {
	var code, msg, ttft, e2e scan.Value
	var prompt, output *int32
	streamed := false
	err := lgMembers("request", scan.Value{Kind: scan.ObjectKind, Raw: raw}, func(key []byte, v scan.Value) error {
		switch string(key) {
		case "error_code":
			code = v
		case "error_msg":
			msg = v
		case "ttft_s":
			ttft = v
		case "end_to_end_latency_s":
			e2e = v
		case "number_input_tokens":
			return scan.Count32("number_input_tokens", v, &prompt)
		case "number_output_tokens":
			return scan.Count32("number_output_tokens", v, &output)
		case "inter_token_latency_s":
			if v.Kind == scan.Array {
				return scan.Elements("inter_token_latency_s", v, func(i int, _ scan.Value) error {
					streamed = streamed || i > 0
					return nil
				})
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	r := record.ClientRow{Format: formatLLMPerf, PromptTokens: prompt}
	if code.Kind != 0 && code.Kind != scan.Null {
		b, _, err := scan.TextBytes("error_code", code)
		if err != nil {
			return err
		}
		if n, ok, _ := scan.Integer("error_code", code, 100, 599); ok {
			r.Status = int32(n)
		}
		label, _, err := scan.TextBytes("error_msg", msg)
		if msg.Kind != 0 && err != nil {
			return err
		}
		if t := llmperfErrorType(label); t != nil {
			label = t
		} else if label = lgErrorLabel(label); len(label) == 0 {
			label = append([]byte("error "), lgErrorLabel(b)...)
		}
		r.Error = string(label)
		*out.Next() = r
		return nil
	}
	if err := lgDurationField("end_to_end_latency_s", e2e, 1e9, &r.E2ENS); err != nil {
		return err
	}
	if err := lgDurationField("ttft_s", ttft, 1e9, &r.TTFTNS); err != nil {
		return err
	}
	if r.TTFTNS != nil && *r.TTFTNS == 0 {
		r.TTFTNS = nil
	}
	r.OutputTokens = output
	if streamed {
		r.Streamed = record.BoolPtr(true)
	}
	*out.Next() = r
	return nil
}

// llmperfErrorType is the type of an error body that LLMPerf's OpenAI
// client copies into error_msg: {"error":{"message":…,"type":…,"code":…}}
// (OpenAI and most providers) or {"object":"error","message":…,"type":…}
// (vLLM). Its type names the failure without quoting the request; the
// rest of the body (whose message may quote it) is not kept. Nil when
// error_msg is not such a body.
func llmperfErrorType(msg []byte) []byte {
	var typ []byte
	pick := func(key []byte, v scan.Value, complete bool) bool {
		if string(key) == "type" && complete && v.Kind == scan.String {
			if b, ok, err := scan.TextBytes("type", v); ok && err == nil && len(bytes.TrimSpace(b)) > 0 {
				typ = b
				return false
			}
		}
		return complete
	}
	lgSniffMembers(msg, func(key []byte, v scan.Value, complete bool) bool {
		if string(key) == "error" && complete && v.Kind == scan.ObjectKind {
			lgSniffMembers(v.Raw, pick)
			return typ == nil
		}
		return pick(key, v, complete)
	})
	if typ == nil {
		return nil
	}
	return lgErrorLabel(typ)
}
