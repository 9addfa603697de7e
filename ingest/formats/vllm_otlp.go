package formats

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// vLLM's OpenTelemetry traces (--otlp-traces-endpoint): one "llm_request"
// span per finished (or, in newer builds, aborted) request, kind SERVER, no
// child spans, exported as OTLP and written out as JSON by an OpenTelemetry
// Collector. Two readers share one mapping:
//
//   - vllm-otlp: the collector's file exporter, one TracesData object per
//     line (a batch of spans of any services). A line gives one row per
//     llm_request span in it and none for other spans.
//   - vllm-otlp-json: OTLP JSON documents, possibly pretty-printed over many
//     lines, one after another in a file (a saved export, or `jq .` of the
//     file exporter's output). Each document is one input unit.
//
// A span whose vLLM attributes are malformed (a duration that is not a
// number, a negative token count) rejects its whole unit, other spans
// included, with a reason naming the span's request ID. A document is read
// into memory whole. Rows of both readers say format=vllm-otlp. A span is vLLM's when it is named
// llm_request and its instrumentation scope starts with "vllm" (V0 and V1
// use "vllm.llm_engine", the newest tracing package its module name) or it
// carries gen_ai.latency.e2e.
//
// Mapping (durations are float seconds in the span; see secondsToNS for the
// precision of their conversion):
//
//	Arrival         span start (vLLM sets it to int(arrival_time*1e9), wall clock)
//	E2ENS           gen_ai.latency.e2e
//	QueueNS         gen_ai.latency.time_in_queue
//	TTFTNS          gen_ai.latency.time_to_first_token, except 0.0 (V1's value when no token came)
//	PrefillNS       gen_ai.latency.time_in_model_prefill         (V1)
//	DecodeNS        gen_ai.latency.time_in_model_decode          (V1)
//	InferenceNS     gen_ai.latency.time_in_model_inference       (V1), else
//	                gen_ai.latency.time_in_model_execute         (V0, --collect-detailed-traces), else
//	                gen_ai.latency.time_in_model_forward         (V0, GPU forward time only)
//	End             Arrival + e2e, or the span end when e2e is absent or negative
//	Scheduled       Arrival + queue
//	FirstToken      Arrival + TTFT
//	PromptTokens    gen_ai.usage.prompt_tokens
//	OutputTokens    gen_ai.usage.completion_tokens
//	FinishReason    gen_ai.response.finish_reasons (a JSON list in a string, or an array): "length", "stop", "abort"…
//	Error           the status message of a span with status ERROR (vLLM records the error of an
//	                aborted request); Status stays empty: vLLM does not log an HTTP status
//	TraceID         the span's trace ID, hex (from the caller's traceparent when it sent one)
//	EngineRequestID gen_ai.request.id as logged; RequestID is it mapped back, see vllmRequestID
//	Model           gen_ai.response.model (V0) or gen_ai.request.model, on the span or as a resource
//	                attribute; V1 spans carry no model name, so it is empty unless the collector or
//	                OTEL_RESOURCE_ATTRIBUTES adds one (a later command-line flag is to set it)
//	Replica         resource service.instance.id, k8s.pod.name or host.name, whichever comes first
//
// The derived instants mix clocks: Arrival and vLLM's e2e and TTFT are wall
// clock (time.time() differences), but V1's queue, prefill and decode are
// differences of a monotonic clock on the same host. Arrival + queue is
// therefore right as a duration after arrival but not an exact wall-clock
// instant (it is off by however much the wall clock was slewed during the
// request, normally micro- to milliseconds). In V0 the queue time is wall
// clock too. Instants are derived only from non-negative durations, so every
// derived instant is at or after Arrival; a negative duration (a wall clock
// stepped back during the request) is kept as logged in its *NS column.
//
// Not mapped, as ServerRow has no column for them: gen_ai.request.max_tokens,
// temperature, top_p, n, gen_ai.usage.num_sequences (V0),
// gen_ai.usage.cached_tokens and gen_ai.latency.time_in_scheduler (V0).
const (
	formatVLLMOTLP     = "vllm-otlp"
	formatVLLMOTLPJSON = "vllm-otlp-json"
)

func init() {
	record.RegisterLine(record.Server, formatVLLMOTLP, isOTLPLine, func() record.LineParser[record.ServerRow] { return &vllmOTLPLines{} })
	record.RegisterDoc(record.Server, formatVLLMOTLPJSON, sniffOTLPDocument, parseVLLMOTLPDocument)
}

type vllmOTLPLines struct{ labels scan.Labels }

func (p *vllmOTLPLines) ParseLine(line []byte, out *record.RowQueue[record.ServerRow]) error {
	td, err := decodeOTLPTraces(line)
	if err == nil {
		err = vllmSpans(td, &p.labels, out.Next)
	}
	if err != nil {
		return err // rejects.jsonl hides every OTLP string value
	}
	return nil
}

// parseVLLMOTLPDocument reads one or more OTLP JSON documents. A document
// that is not valid JSON ends the file (there is no telling where the next
// one starts); its unit is rejected, and what came before counts.
func parseVLLMOTLPDocument(r io.Reader, file string, out *record.DocOut[record.ServerRow]) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	var lb scan.Labels
	return readOTLPDocuments(data,
		func(line int64, doc []byte) error {
			td, err := decodeOTLPTraces(doc)
			if err == nil {
				err = vllmSpans(td, &lb, out.Next)
			}
			var raw []byte
			if err != nil {
				raw = doc[:min(len(doc), record.RawLimit)]
			}
			return out.Done(line, raw, err)
		},
		func(line int64, raw []byte, err error) error { return out.Done(line, raw, err) })
}

// vllmSpans fills a row, taken from next, for each vLLM llm_request span.
func vllmSpans(td ptrace.Traces, lb *scan.Labels, next func() *record.ServerRow) error {
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		rs := rss.At(i)
		res := rs.Resource().Attributes()
		sss := rs.ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			ss := sss.At(j)
			vllmScope := strings.HasPrefix(ss.Scope().Name(), "vllm")
			spans := ss.Spans()
			for k := 0; k < spans.Len(); k++ {
				sp := spans.At(k)
				if sp.Name() != "llm_request" {
					continue
				}
				if _, e2e := sp.Attributes().Get("gen_ai.latency.e2e"); !vllmScope && !e2e {
					continue
				}
				if err := vllmSpanRow(sp, res, lb, next()); err != nil {
					id, _ := attrStr(sp.Attributes(), "gen_ai.request.id")
					return fmt.Errorf("llm_request span %q: %w", id, err)
				}
			}
		}
	}
	return nil
}

func vllmSpanRow(sp ptrace.Span, res pcommon.Map, lb *scan.Labels, r *record.ServerRow) error {
	a := sp.Attributes()
	r.Format = formatVLLMOTLP
	if id, ok := attrStr(a, "gen_ai.request.id"); ok {
		r.EngineRequestID = id
		r.RequestID = vllmRequestID(id, false)
	}
	if !sp.TraceID().IsEmpty() {
		r.TraceID = sp.TraceID().String()
	}
	start, end := uint64(sp.StartTimestamp()), uint64(sp.EndTimestamp())
	if start != 0 {
		if err := plausibleNS("startTimeUnixNano", start); err != nil {
			return err
		}
		r.Arrival = int64(start)
	}

	var err error
	dur := func(key string, dst **int64) bool {
		ns, ok, e := attrSeconds(a, key)
		if e != nil {
			err = errors.Join(err, e)
		}
		if ok {
			*dst = record.NSPtr(ns)
		}
		return ok
	}
	dur("gen_ai.latency.e2e", &r.E2ENS)
	dur("gen_ai.latency.time_in_queue", &r.QueueNS)
	// vLLM V1 reports a TTFT of exactly 0.0 for a request that never got
	// a first token (its default); no real TTFT is 0 to the nanosecond.
	if dur("gen_ai.latency.time_to_first_token", &r.TTFTNS) && *r.TTFTNS == 0 {
		r.TTFTNS = nil
	}
	dur("gen_ai.latency.time_in_model_prefill", &r.PrefillNS)
	dur("gen_ai.latency.time_in_model_decode", &r.DecodeNS)
	_ = dur("gen_ai.latency.time_in_model_inference", &r.InferenceNS) ||
		dur("gen_ai.latency.time_in_model_execute", &r.InferenceNS) ||
		dur("gen_ai.latency.time_in_model_forward", &r.InferenceNS)
	var e1, e2 error
	r.PromptTokens, e1 = attrCount(a, "gen_ai.usage.prompt_tokens")
	r.OutputTokens, e2 = attrCount(a, "gen_ai.usage.completion_tokens")
	if err = errors.Join(err, e1, e2); err != nil {
		return err
	}

	if r.Arrival != 0 {
		r.Scheduled = after(r.Arrival, r.QueueNS)
		r.FirstToken = after(r.Arrival, r.TTFTNS)
		r.End = after(r.Arrival, r.E2ENS)
		if r.End == 0 && end >= start && end <= math.MaxInt64 {
			r.End = int64(end)
		}
	}

	r.FinishReason = lb.Intern([]byte(finishReasons(a)))
	if sp.Status().Code() == ptrace.StatusCodeError {
		r.Error = sp.Status().Message()
		if r.Error == "" {
			r.Error = "error"
		}
		r.Error = lb.Intern([]byte(r.Error))
	}
	for _, m := range []pcommon.Map{a, res} {
		if r.Model != "" {
			break
		}
		for _, k := range []string{"gen_ai.response.model", "gen_ai.request.model"} {
			if s, ok := attrStr(m, k); ok {
				r.Model = lb.Intern([]byte(s))
				break
			}
		}
	}
	for _, k := range []string{"service.instance.id", "k8s.pod.name", "host.name"} {
		if s, ok := attrStr(res, k); ok {
			r.Replica = lb.Intern([]byte(s))
			break
		}
	}
	return nil
}

// finishReasons renders gen_ai.response.finish_reasons: vLLM writes a JSON
// list in a string ("[\"length\"]"); the GenAI conventions an array of
// strings. Several reasons are joined with ",". A plain string is kept.
func finishReasons(a pcommon.Map) string {
	v, ok := a.Get("gen_ai.response.finish_reasons")
	if !ok {
		return ""
	}
	var list []string
	switch v.Type() {
	case pcommon.ValueTypeStr:
		s := strings.TrimSpace(v.Str())
		if json.Unmarshal([]byte(s), &list) != nil {
			list = []string{s}
		}
	case pcommon.ValueTypeSlice:
		for i := 0; i < v.Slice().Len(); i++ {
			list = append(list, v.Slice().At(i).AsString())
		}
	default:
		list = []string{v.AsString()}
	}
	var keep []string
	for _, s := range list {
		if s != "" && s != "None" && s != "null" {
			keep = append(keep, s)
		}
	}
	return strings.Join(keep, ",")
}

// vllmRequestID maps a request ID as vLLM logged it back to the ID the
// gateway and client saw (the X-Request-Id header, or the body's
// request_id). The OpenAI server builds its ID as "chatcmpl-" + that ID for
// chat and "cmpl-" + that ID for completions, where each prompt of the
// request is then submitted as "cmpl-ID-<index>", even when there is only
// one. Newer engines (InputProcessor.assign_request_id) keep that as the
// external ID and use "<external>-<8 random hex>" internally; with n > 1 the
// children are "<index>_<internal parent>". Spans and the Received,
// Generated, aborted and failed log lines carry the external ID; the Added
// line of newer builds (internal=true) the internal one.
//
// The rule, in order:
//  1. internal only: drop a leading "<digits>_" when a vLLM prefix follows,
//     then a trailing "-" + exactly 8 lowercase hex digits;
//  2. "chatcmpl-X" → X;
//  3. "cmpl-X-<digits>" → X (only the last index, which vLLM always adds);
//  4. anything else is returned unchanged (offline LLM IDs, other endpoints).
//
// Client IDs that end in "-<digits>" or in 8 hex digits survive: the index
// is stripped only after "cmpl-" and exactly once, and the hex suffix only
// from internal IDs. Examples:
//
//	chatcmpl-4f1c2a9e-8b7d-4e21-9c3a-5d6e7f8a9b0c → 4f1c2a9e-8b7d-4e21-9c3a-5d6e7f8a9b0c
//	chatcmpl-job-12                             → job-12
//	cmpl-job-12-0                               → job-12
//	cmpl-b5d0c7e2a1f34e6c9d8b7a6f5e4d3c2b-1     → b5d0c7e2a1f34e6c9d8b7a6f5e4d3c2b (vLLM's random default)
//	chatcmpl-r-deadbeef                         → r-deadbeef
//	chatcmpl-r-deadbeef-0a1b2c3d (internal)     → r-deadbeef
//	1_chatcmpl-r7-0a1b2c3d (internal)           → r7
//
// Known ambiguity: an internal ID logged by an engine that does not add the
// suffix (built before it existed, or VLLM_DISABLE_REQUEST_ID_RANDOMIZATION)
// loses a client suffix of "-" + 8 lowercase hex; the vllm-log reader only
// treats Added lines of the bracketed log format as internal.
func vllmRequestID(id string, internal bool) string {
	if internal {
		if i := strings.IndexByte(id, '_'); i > 0 && allDigits(id[:i]) &&
			(strings.HasPrefix(id[i+1:], "chatcmpl-") || strings.HasPrefix(id[i+1:], "cmpl-")) {
			id = id[i+1:]
		}
		if n := len(id); n > 9 && id[n-9] == '-' && isLowerHex(id[n-8:]) {
			id = id[:n-9]
		}
	}
	switch {
	case strings.HasPrefix(id, "chatcmpl-") && len(id) > len("chatcmpl-"):
		return id[len("chatcmpl-"):]
	case strings.HasPrefix(id, "cmpl-"):
		rest := id[len("cmpl-"):]
		if i := strings.LastIndexByte(rest, '-'); i > 0 && allDigits(rest[i+1:]) {
			return rest[:i]
		}
		if rest != "" {
			return rest
		}
	}
	return id
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return s != ""
}
