package formats

import (
	"cmp"
	"errors"
	"io"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// otel-client: what a client application traced with OpenTelemetry, as
// OTLP JSON (layouts and pairing in otel_spans.go). Two kinds of span give
// rows:
//
//   - a GenAI inference span: a CLIENT span of the GenAI conventions
//     ({gen_ai.operation.name} {gen_ai.request.model}, with
//     gen_ai.operation.name, gen_ai.provider.name, old gen_ai.system or
//     gen_ai.request.model), or an OpenInference LLM span (Arize Phoenix's
//     instrumentations: openinference.span.kind LLM, kind INTERNAL, or
//     CLIENT): one row, completed from the HTTP CLIENT spans under it (the
//     SDK's HTTP call, instrumented by httpx, requests, otelhttp…), which
//     give no rows of their own. GenAI spans nested in one another (a
//     framework's over the SDK's, LangChain's LLM span over OpenAI's) give
//     one row, see clientRow. OpenInference spans of other kinds (CHAIN,
//     AGENT, TOOL…) give none;
//   - an HTTP CLIENT span (http.request.method, old http.method) that is
//     under no GenAI span: one row, unless its parent is a SERVER span (a
//     service's outbound call, such as a gateway's to its upstream, is not
//     a client's request). HTTP spans under it are merged into it.
//
// Spans of Envoy AI Gateway (scope envoyproxy/ai-gateway) are a gateway's,
// read by otel-gateway: they continue the caller's traceparent, so they
// sit under the client's spans in a shared file, and are never read here.
//
// Mapping (GenAI names first, then OpenLLMetry's, then OpenInference's):
//
//	Start, End    the span's start and end
//	TTFTNS        gen_ai.response.time_to_first_chunk (float seconds), else the time of the
//	              span's first chunk event (OpenLLMetry's llm.content.completion.chunk,
//	              gen_ai.content.chunk, OpenInference's "First Token Stream Event"; see
//	              chunkEvents) − Start; FirstToken = Start + it
//	Model         gen_ai.request.model, else gen_ai.response.model, else llm.model_name
//	PromptTokens  gen_ai.usage.input_tokens, old gen_ai.usage.prompt_tokens, llm.token_count.prompt
//	OutputTokens  gen_ai.usage.output_tokens, old gen_ai.usage.completion_tokens,
//	              llm.token_count.completion
//	Streamed      gen_ai.request.stream, else OpenLLMetry's gen_ai.is_streaming or
//	              llm.is_streaming, else the "stream" member of OpenInference's
//	              llm.invocation_parameters (a JSON object in a string; no other member is
//	              read); true for a span with a chunk event and none of these
//	ResponseID    gen_ai.response.id
//	Status        http.response.status_code (old http.status_code) of the HTTP child that
//	              started last (the SDK's last retry), else of the span itself, else
//	              error.type when it is a three-digit status
//	Error         error.type of the span, else of that child; "error" for a span with
//	              status ERROR and no error.type (status messages can quote the request)
//	RequestID     the attribute named by otel-request-id (default
//	              http.request.header.x-request-id, a string[]: its first value) of that
//	              child, else of the span itself; empty when absent: join on TraceID then
//	TraceID       the trace ID, hex
//	Client        resource service.instance.id, k8s.pod.name, host.name or service.name
//
// Prompts and completions (gen_ai.prompt, gen_ai.input.messages,
// OpenInference's input.value, output.value, llm.input_messages,
// llm.output_messages, the attributes of any event) are never read: of a
// chunk event, only its time.
const formatOTelClient = "otel-client"

func init() {
	registerOTel(record.Client, formatOTelClient, "otel-client-service", otelClientParser)
}

// clSpan is what is kept of a client span until it is paired.
type clSpan struct {
	genAI      bool
	start, end int64
	ttft       *int64
	status     int32
	errType    string
	failed     bool
	requestID  string
	traceID    string
	client     string
	model      string
	responseID string
	streamed   *bool
	prompt     *int32
	output     *int32
}

func otelClientParser(cfg *otelConfig) record.DocParser[record.ClientRow] {
	return func(r io.Reader, file string, out *record.DocOut[record.ClientRow]) error {
		var lb scan.Labels
		var p *spanPairer[clSpan]
		p = newSpanPairer(func(u *heldUnit[clSpan]) error {
			for _, s := range u.parents {
				if s.claimed {
					continue
				}
				if !s.v.genAI && s.hasParent {
					if kind, ok := p.kindOf(s.parent); ok && kind == ptrace.SpanKindServer {
						continue
					}
				}
				clientRow(s, out.Next())
				if !s.v.genAI {
					// A GenAI span under an HTTP span (not how SDKs nest
					// them) keeps a row of its own.
					for _, c := range s.children {
						if c.v.genAI {
							clientRow(c, out.Next())
						}
					}
				}
			}
			if err := out.Done(u.line, nil, nil); err != nil {
				return &fatalErr{err}
			}
			return nil
		})
		type taken struct {
			s    *pendingSpan[clSpan]
			kind ptrace.SpanKind
			row  bool
		}
		var spans []taken
		take := func(line int64, td ptrace.Traces) error {
			spans = spans[:0]
			err := eachSpan(td, cfg, func(sp ptrace.Span, res pcommon.Map, scope pcommon.InstrumentationScope) error {
				kind := sp.Kind()
				a := sp.Attributes()
				ps := &pendingSpan[clSpan]{key: keyOf(sp.TraceID(), sp.SpanID())}
				if !sp.ParentSpanID().IsEmpty() {
					ps.parent, ps.hasParent = keyOf(sp.TraceID(), sp.ParentSpanID()), true
				}
				row := false
				switch {
				case scope.Name() == aiGatewayScope:
					// A gateway's span, under the client's when the
					// client sent a traceparent: read by otel-gateway.
				case (kind == ptrace.SpanKindClient || kind == ptrace.SpanKindInternal) && isOpenInferenceLLM(a),
					kind == ptrace.SpanKindClient && isGenAISpan(a):
					ps.v.genAI, row = true, true
				case kind == ptrace.SpanKindClient && isHTTPSpan(a):
					row = true
				}
				if row {
					if err := clientSpan(sp, res, cfg, &lb, &ps.v); err != nil {
						return spanErr(sp, err)
					}
				}
				spans = append(spans, taken{ps, kind, row})
				return nil
			})
			if err != nil {
				return err
			}
			// The unit is good: only now change the pairing state.
			u := &heldUnit[clSpan]{line: line}
			for _, t := range spans {
				if p.dup(t.s.key, t.kind) || !t.row {
					continue
				}
				if p.child(t.s) {
					continue // under a held span: merged into its row
				}
				p.parent(u, t.s)
			}
			return p.hold(u)
		}
		return otlpDocParser(r, out, take, func() error {
			err := p.flush()
			var fatal *fatalErr
			if errors.As(err, &fatal) {
				return fatal.err
			}
			return err
		})
	}
}

// isGenAISpan: a span of the GenAI conventions.
func isGenAISpan(a pcommon.Map) bool {
	_, _, ok := attrAny(a, "gen_ai.operation.name", "gen_ai.provider.name", "gen_ai.system", "gen_ai.request.model")
	return ok
}

// genAIModel returns the requested model, else the responding one, else
// OpenInference's llm.model_name (which its instrumentations set from the
// response when it names one, else from the request).
func genAIModel(a pcommon.Map) (string, bool) {
	for _, k := range []string{"gen_ai.request.model", "gen_ai.response.model", "llm.model_name"} {
		if s, ok := attrStr(a, k); ok {
			return s, true
		}
	}
	return "", false
}

// genAITokens reads the token counts, new names first, then
// OpenInference's.
func genAITokens(a pcommon.Map) (prompt, output *int32, err error) {
	read := func(keys ...string) *int32 {
		for _, k := range keys {
			n, e := attrCount(a, k)
			if e != nil {
				err = errors.Join(err, e)
				return nil
			}
			if n != nil {
				return n
			}
		}
		return nil
	}
	prompt = read("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt")
	output = read("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens", "llm.token_count.completion")
	return prompt, output, err
}

// clientSpan fills v from a GenAI or HTTP client span.
func clientSpan(sp ptrace.Span, res pcommon.Map, cfg *otelConfig, lb *scan.Labels, v *clSpan) error {
	a := sp.Attributes()
	var err error
	if v.start, v.end, err = spanTimes(sp); err != nil {
		return err
	}
	if v.status, err = attrHTTPStatus(a, "http.response.status_code", "http.status_code"); err != nil {
		return err
	}
	if s, ok := attrText(a, "error.type"); ok {
		v.errType = lb.Intern([]byte(s))
	}
	v.failed = sp.Status().Code() == ptrace.StatusCodeError
	v.requestID = otelRequestID(a, cfg)
	if !sp.TraceID().IsEmpty() {
		v.traceID = sp.TraceID().String()
	}
	if s, ok := resourceLabel(res); ok {
		v.client = lb.Intern([]byte(s))
	}
	if !v.genAI {
		return nil
	}
	if s, ok := genAIModel(a); ok {
		v.model = lb.Intern([]byte(s))
	}
	if s, ok := attrStr(a, "gen_ai.response.id"); ok {
		v.responseID = s
	}
	if v.streamed, err = genAIStreamed(a); err != nil {
		return err
	}
	if v.streamed == nil {
		if v.streamed, err = openInferenceStreamed(a); err != nil {
			return err
		}
	}
	first, chunked, err := firstChunk(sp, v.start, false)
	if err != nil {
		return err
	}
	if first != 0 {
		v.ttft = record.NSPtr(first - v.start)
	}
	if v.streamed == nil && chunked {
		v.streamed = record.BoolPtr(true)
	}
	v.prompt, v.output, err = genAITokens(a)
	return err
}

// genAIStreamed reads whether the request asked for a stream: the GenAI
// conventions' gen_ai.request.stream, else OpenLLMetry's gen_ai.is_streaming
// (its newer name) or llm.is_streaming (its older one).
func genAIStreamed(a pcommon.Map) (*bool, error) {
	for _, k := range []string{"gen_ai.request.stream", "gen_ai.is_streaming", "llm.is_streaming"} {
		b, err := attrBool(a, k)
		if b != nil || err != nil {
			return b, err
		}
	}
	return nil, nil
}

// attrBool reads a boolean attribute (or "true"/"false" in a string).
func attrBool(a pcommon.Map, key string) (*bool, error) {
	v, ok := a.Get(key)
	if !ok {
		return nil, nil
	}
	switch v.Type() {
	case pcommon.ValueTypeBool:
		return record.BoolPtr(v.Bool()), nil
	case pcommon.ValueTypeStr:
		if b, err := strconv.ParseBool(strings.TrimSpace(v.Str())); err == nil {
			return record.BoolPtr(b), nil
		}
		return nil, record.FieldErrorf(key, record.ErrBadValue, "want true or false, got %q", v.Str())
	case pcommon.ValueTypeEmpty:
		return nil, nil
	}
	return nil, record.FieldErrorf(key, record.ErrBadValue, "want true or false, got %s", strings.ToLower(v.Type().String()))
}

// clientRow fills a row from a span and the HTTP spans under it. When a
// framework's GenAI span wraps the SDK's (LangChain over the OpenAI
// instrumentation), the row is the innermost GenAI span's, closest to the
// wire, with the model, tokens and stream flag it lacks taken from the
// outer one.
func clientRow(s *pendingSpan[clSpan], r *record.ClientRow) {
	in := s
	if s.v.genAI {
		in = innermostGenAI(s)
	}
	v := &in.v
	r.Format = formatOTelClient
	r.Start, r.End = v.start, v.end
	r.TTFTNS = v.ttft
	r.FirstToken = after(v.start, v.ttft)
	r.Model, r.ResponseID, r.Streamed = v.model, v.responseID, v.streamed
	r.PromptTokens, r.OutputTokens = v.prompt, v.output
	r.TraceID, r.Client = v.traceID, v.client
	r.Status, r.RequestID, r.Error = v.status, v.requestID, v.errType
	if in != s {
		o := &s.v
		r.Model = cmp.Or(r.Model, o.model)
		r.ResponseID = cmp.Or(r.ResponseID, o.responseID)
		if r.Streamed == nil {
			r.Streamed = o.streamed
		}
		if r.PromptTokens == nil && r.OutputTokens == nil {
			r.PromptTokens, r.OutputTokens = o.prompt, o.output
		}
		r.RequestID = cmp.Or(r.RequestID, o.requestID)
	}
	var last *clSpan
	for _, c := range in.children {
		if !c.v.genAI && (last == nil || c.v.start > last.start) {
			last = &c.v
		}
	}
	if last != nil {
		if last.status != 0 {
			r.Status = last.status
		}
		if last.requestID != "" {
			r.RequestID = last.requestID
		}
		if r.Error == "" {
			r.Error = last.errType
		}
	}
	if r.Status == 0 && len(r.Error) == 3 && allDigits(r.Error) {
		n, _ := strconv.Atoi(r.Error)
		r.Status = int32(n)
	}
	if r.Error == "" && v.failed {
		r.Error = "error"
	}
}

// innermostGenAI follows the GenAI spans under s, the last started at each
// level, down to one with none under it.
func innermostGenAI(s *pendingSpan[clSpan]) *pendingSpan[clSpan] {
	for range 16 {
		var in *pendingSpan[clSpan]
		for _, c := range s.children {
			if c.v.genAI && (in == nil || c.v.start > in.v.start) {
				in = c
			}
		}
		if in == nil {
			break
		}
		s = in
	}
	return s
}
