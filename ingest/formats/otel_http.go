package formats

import (
	"errors"
	"io"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// otel-gateway: a gateway's OpenTelemetry traces, as OTLP JSON written by
// the collector's file exporter (one TracesData per line) or saved as
// documents (see otel_spans.go for the layouts and for how spans are
// paired). A request is the gateway's HTTP SERVER span and the HTTP CLIENT
// spans under it that went to the upstream: one row per SERVER span that
// has an HTTP method (http.request.method, old http.method), with or without
// children. Other spans (internal, gRPC, an inference server's llm_request)
// give no rows. If the file also holds other services' HTTP server spans
// (a collector that writes everything to one file), name the gateway's
// service.name with the otel-gateway-service option to keep only its own.
//
// Envoy AI Gateway traces each request in its extproc with one
// OpenInference LLM span (scope envoyproxy/ai-gateway, kind INTERNAL,
// "ChatCompletion", "Message"…), or, with AI_GATEWAY_TRACING_SEMCONV=gen_ai
// (v1.1.0 on), one GenAI CLIENT span ("chat {model}", "text_completion
// {model}"; spans of its other operations give no rows). The span
// continues the traceparent the caller sent: its parent is the caller's
// span, so it is a sibling of Envoy's own SERVER span (ingress) of the
// request when Envoy traces too. Such a span is paired with a SERVER span
// that is its parent or its sibling (same trace and parent span), giving
// that row its model and tokens; otherwise it is a row of its own, the
// extproc's view of the request: Start is when the extproc got the request
// body (Envoy had received all of it), End when it had the last chunk of
// the response body. Of that row, status, route, upstream, upstream times,
// attempts and TTFT are unknown (NULL): the span has no HTTP attributes,
// and its "First Token Stream Event" is stamped as the span ends
// (chunkEvents). A caller that sends no traceparent puts the extproc's
// span and Envoy's in different traces, which cannot be paired: when both
// tracers export to the file, keep one with otel-gateway-service (the
// extproc's service.name is ai-gateway unless OTEL_SERVICE_NAME says
// otherwise).
//
// Mapping (new semantic-convention names first, then the old ones, then
// Envoy's own tags, which its OpenTelemetry tracer writes as strings):
//
//	Start, End        the SERVER span's start and end
//	UpstreamStart/End the start and end of the upstream CLIENT span: a child of the SERVER
//	                  span (same trace, parentSpanId = its spanId) with HTTP or peer attributes
//	                  and no rpc.system (an ext_authz or rate-limit gRPC call is not the
//	                  upstream). With several (retries), the one that started last. A GenAI
//	                  CLIENT span (a gateway calling its model through an SDK that OpenLLMetry or
//	                  the GenAI instrumentations trace), or an OpenInference LLM span (INTERNAL
//	                  or CLIENT), is the upstream span when the SERVER span has no HTTP child
//	                  (the SDK's HTTP spans are then under it); an Envoy AI Gateway span never is
//	Attempts          the number of such children, when there is at least one
//	UpstreamFirstByte the first byte of the upstream response, from a span event: Envoy's
//	                  first_upstream_rx_byte_received (verbose tracing; Envoy's Zipkin tracer
//	                  writes it as an annotation, which the collector's zipkin receiver turns
//	                  into an event; the OpenTelemetry tracer of the versions checked drops
//	                  span logs) on the upstream span or the SERVER span, or Go's otelhttptrace
//	                  http.receive.start (WithoutSubSpans; GotFirstResponseByte) on the
//	                  upstream span. Empty otherwise: no convention marks it
//	Status            http.response.status_code, http.status_code
//	Route             http.route, else url.path, else http.target or the path of
//	                  http.url / url.full, without the query
//	Upstream          the upstream span's server.address:server.port, net.peer.name:net.peer.port,
//	                  upstream_address, peer.address or the host of url.full / http.url;
//	                  else the SERVER span's upstream_address
//	RequestID         the attribute named by otel-request-id (default
//	                  http.request.header.x-request-id, a string[]: its first value) on the
//	                  SERVER span, else on the upstream span, else on the Envoy AI Gateway span
//	                  (which has it when spanRequestHeaderAttributes maps the header, as
//	                  x-request-id:http.request.header.x-request-id); with the default, Envoy's
//	                  guid:x-request-id too. Empty when absent: join on TraceID then
//	TraceID           the trace ID, hex
//	Gateway           resource service.instance.id, k8s.pod.name, host.name or service.name
//	ResponseFlags     response_flags (Envoy)
//	Model, tokens     gen_ai.request.model (or response model), else llm.model_name;
//	                  gen_ai.usage.input_tokens / output_tokens (old prompt_tokens /
//	                  completion_tokens), else llm.token_count.prompt / completion, for LLM
//	                  gateways: of the SERVER span, else of its last GenAI child, else of the
//	                  upstream span, else of the Envoy AI Gateway span
//	TTFTNS            the first streamed chunk − Start: the SERVER span's start plus its
//	                  gen_ai.response.time_to_first_chunk, or its first chunk event
//	                  (llm.content.completion.chunk, gen_ai.content.chunk, "First Token Stream
//	                  Event": see chunkEvents); else the same of its last GenAI child, else of
//	                  the upstream span. An Envoy AI Gateway span's "First Token Stream Event"
//	                  is never read (it comes as the span ends). A stream flag has no gateway
//	                  column
//
// All times are the gateway's own span times. Span events and attributes
// other than those above are never copied; an OpenInference span's content
// (input.value, output.value, llm.input_messages, llm.output_messages) is
// never read.
const formatOTelGateway = "otel-gateway"

// envoyFirstUpstreamByte is the event Envoy's verbose tracing logs when the
// first byte of the upstream response arrives (Tracing::Logs).
const envoyFirstUpstreamByte = "first_upstream_rx_byte_received"

// otelhttptraceFirstByte is the event Go's otelhttptrace adds, without
// sub-spans, to the span of the request's context (the otelhttp client span)
// when the first byte of the response headers arrives.
const otelhttptraceFirstByte = "http.receive.start"

func init() {
	registerOTel(record.Gateway, formatOTelGateway, "otel-gateway-service", otelGatewayParser)
}

// gwSpan is what is kept of a gateway span until it is paired.
type gwSpan struct {
	server     bool
	start, end int64
	firstByte  int64
	status     int32
	route      string
	upstream   string
	requestID  string
	traceID    string
	gateway    string
	flags      string
	model      string
	prompt     *int32
	output     *int32
	firstChunk int64 // the first streamed chunk, see firstChunk; 0 when unknown
	genAI      bool  // an upstream span of the GenAI or OpenInference conventions
	extproc    bool  // an Envoy AI Gateway span: its extproc's view of the request
}

func otelGatewayParser(cfg *otelConfig) record.DocParser[record.GatewayRow] {
	return func(r io.Reader, file string, out *record.DocOut[record.GatewayRow]) error {
		var lb scan.Labels
		// Held SERVER spans and unclaimed Envoy AI Gateway spans by their
		// parent (trace ID and parent span ID), to pair the two when they
		// are siblings: both continue the caller's traceparent.
		servers := map[spanKey]*pendingSpan[gwSpan]{}
		extprocs := map[spanKey][]*pendingSpan[gwSpan]{}
		p := newSpanPairer(func(u *heldUnit[gwSpan]) error {
			for _, s := range u.parents {
				if s.hasParent {
					if s.v.server && servers[s.parent] == s {
						delete(servers, s.parent)
					}
					if s.v.extproc {
						dropSpan(extprocs, s.parent, s)
					}
				}
				if !s.claimed {
					gatewayRow(s, out.Next())
				}
			}
			if err := out.Done(u.line, nil, nil); err != nil {
				return &fatalErr{err}
			}
			return nil
		})
		type taken struct {
			s    *pendingSpan[gwSpan]
			kind ptrace.SpanKind
		}
		var spans []taken
		take := func(line int64, td ptrace.Traces) error {
			spans = spans[:0]
			err := eachSpan(td, cfg, func(sp ptrace.Span, res pcommon.Map, scope pcommon.InstrumentationScope) error {
				kind := sp.Kind()
				a := sp.Attributes()
				child := !sp.ParentSpanID().IsEmpty()
				var v gwSpan
				switch {
				case kind == ptrace.SpanKindServer && isHTTPSpan(a):
					v.server = true
				case scope.Name() == aiGatewayScope && (isOpenInferenceLLM(a) || isGenAIInference(a)):
					v.extproc = true
				case kind == ptrace.SpanKindClient && isGenAISpan(a) && child,
					(kind == ptrace.SpanKindClient || kind == ptrace.SpanKindInternal) && isOpenInferenceLLM(a) && child:
					v.genAI = true
				case kind == ptrace.SpanKindClient && isUpstreamSpan(a) && child:
				default:
					spans = append(spans, taken{&pendingSpan[gwSpan]{key: keyOf(sp.TraceID(), sp.SpanID())}, kind})
					return nil
				}
				if err := gatewaySpan(sp, res, cfg, &lb, &v); err != nil {
					return spanErr(sp, err)
				}
				ps := &pendingSpan[gwSpan]{key: keyOf(sp.TraceID(), sp.SpanID()), v: v}
				if child {
					ps.parent, ps.hasParent = keyOf(sp.TraceID(), sp.ParentSpanID()), true
				}
				spans = append(spans, taken{ps, kind})
				return nil
			})
			if err != nil {
				return err
			}
			// The unit is good: only now change the pairing state.
			u := &heldUnit[gwSpan]{line: line}
			for _, t := range spans {
				s := t.s
				if p.dup(s.key, t.kind) {
					continue
				}
				switch {
				case s.v.server:
					p.parent(u, s)
					if s.hasParent {
						servers[s.parent] = s
						for _, e := range extprocs[s.parent] {
							if !e.claimed {
								e.claimed = true
								s.children = append(s.children, e)
							}
						}
						delete(extprocs, s.parent)
					}
				case s.v.extproc:
					if p.child(s) {
						continue // under a held SERVER span
					}
					if sib, ok := servers[s.parent]; ok && s.hasParent {
						s.claimed = true
						sib.children = append(sib.children, s)
						continue
					}
					// A row of its own unless a SERVER span takes it
					// while it is held.
					p.parent(u, s)
					if s.hasParent {
						extprocs[s.parent] = append(extprocs[s.parent], s)
					}
				case t.kind != ptrace.SpanKindServer && s.hasParent:
					p.child(s)
				}
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

// isGenAIInference: a GenAI-convention span of a chat or text completion
// (not embeddings, rerank, speech…), as Envoy AI Gateway writes with
// AI_GATEWAY_TRACING_SEMCONV=gen_ai: the counterpart of an OpenInference
// LLM span.
func isGenAIInference(a pcommon.Map) bool {
	s, _ := attrStr(a, "gen_ai.operation.name")
	return s == "chat" || s == "text_completion"
}

// dropSpan removes s from m[k].
func dropSpan[S any](m map[spanKey][]*pendingSpan[S], k spanKey, s *pendingSpan[S]) {
	l := m[k]
	for i, e := range l {
		if e == s {
			l = append(l[:i:i], l[i+1:]...)
			break
		}
	}
	if len(l) == 0 {
		delete(m, k)
	} else {
		m[k] = l
	}
}

// eachSpan calls fn for each span of the resources cfg keeps.
func eachSpan(td ptrace.Traces, cfg *otelConfig, fn func(ptrace.Span, pcommon.Map, pcommon.InstrumentationScope) error) error {
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		rs := rss.At(i)
		res := rs.Resource().Attributes()
		if !cfg.keepResource(res) {
			continue
		}
		sss := rs.ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			scope := sss.At(j).Scope()
			spans := sss.At(j).Spans()
			for k := 0; k < spans.Len(); k++ {
				if err := fn(spans.At(k), res, scope); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// isUpstreamSpan: a CLIENT span that can be the call to the upstream: HTTP
// or peer attributes, and not an RPC.
func isUpstreamSpan(a pcommon.Map) bool {
	if _, ok := a.Get("rpc.system"); ok {
		return false
	}
	_, _, ok := attrAny(a, "http.request.method", "http.method", "url.full", "http.url",
		"server.address", "net.peer.name", "upstream_address")
	return ok
}

// gatewaySpan fills v from a SERVER or upstream CLIENT span.
func gatewaySpan(sp ptrace.Span, res pcommon.Map, cfg *otelConfig, lb *scan.Labels, v *gwSpan) error {
	a := sp.Attributes()
	var err error
	if v.start, v.end, err = spanTimes(sp); err != nil {
		return err
	}
	switch {
	case v.server:
		v.firstByte = eventTime(sp, envoyFirstUpstreamByte)
	case !v.extproc:
		v.firstByte = eventTime(sp, envoyFirstUpstreamByte, otelhttptraceFirstByte)
	}
	if v.firstChunk, _, err = firstChunk(sp, v.start, v.extproc); err != nil {
		return err
	}
	v.requestID = otelRequestID(a, cfg)
	if v.extproc {
		if !sp.TraceID().IsEmpty() {
			v.traceID = sp.TraceID().String()
		}
		if s, ok := resourceLabel(res); ok {
			v.gateway = lb.Intern([]byte(s))
		}
		if s, ok := genAIModel(a); ok {
			v.model = lb.Intern([]byte(s))
		}
		v.prompt, v.output, err = genAITokens(a)
		return err
	}
	if s, ok := attrStr(a, "upstream_address"); ok {
		v.upstream = lb.Intern(scan.URLLabel([]byte(s)))
	}
	if !v.server {
		for _, u := range []func() (string, bool){
			func() (string, bool) { return attrHostPort(a, "server.address", "server.port") },
			func() (string, bool) { return attrHostPort(a, "net.peer.name", "net.peer.port") },
			func() (string, bool) { return attrStr(a, "upstream_address") },
			func() (string, bool) { return attrStr(a, "peer.address") },
			func() (string, bool) { return urlAttrHost(a) },
		} {
			if s, ok := u(); ok {
				v.upstream = lb.Intern(scan.URLLabel([]byte(s)))
				break
			}
		}
		if s, ok := genAIModel(a); ok {
			v.model = lb.Intern([]byte(s))
		}
		v.prompt, v.output, err = genAITokens(a)
		return err
	}
	if v.status, err = attrHTTPStatus(a, "http.response.status_code", "http.status_code"); err != nil {
		return err
	}
	if s, ok := attrStr(a, "http.route"); ok {
		v.route = lb.Intern(scan.URLLabel([]byte(s)))
	} else {
		for _, k := range []string{"url.path", "http.target", "url.full", "http.url"} {
			if s, ok := attrStr(a, k); ok {
				if path := urlPath(s); path != "" {
					v.route = lb.Intern([]byte(path))
					break
				}
			}
		}
	}
	if !sp.TraceID().IsEmpty() {
		v.traceID = sp.TraceID().String()
	}
	if s, ok := resourceLabel(res); ok {
		v.gateway = lb.Intern([]byte(s))
	}
	if s, ok := attrStr(a, "response_flags"); ok && s != "-" {
		v.flags = lb.Intern([]byte(s))
	}
	if s, ok := genAIModel(a); ok {
		v.model = lb.Intern([]byte(s))
	}
	v.prompt, v.output, err = genAITokens(a)
	return err
}

func urlAttrHost(a pcommon.Map) (string, bool) {
	for _, k := range []string{"url.full", "http.url"} {
		if s, ok := attrStr(a, k); ok {
			if h := urlHost(s); h != "" {
				return h, true
			}
		}
	}
	return "", false
}

// otelRequestID reads the request ID attribute cfg names.
func otelRequestID(a pcommon.Map, cfg *otelConfig) string {
	if s, ok := attrText(a, cfg.requestID); ok {
		return s
	}
	if cfg.requestID == otelDefaultRequestID {
		if s, ok := attrText(a, "guid:x-request-id"); ok { // Envoy's tag
			return s
		}
	}
	return ""
}

// gatewayRow fills a row from a SERVER span (or an Envoy AI Gateway span
// that no SERVER span took) and the spans paired with it.
func gatewayRow(s *pendingSpan[gwSpan], r *record.GatewayRow) {
	v := &s.v
	r.Format = formatOTelGateway
	r.Start, r.End = v.start, v.end
	r.Status, r.Route, r.RequestID, r.TraceID = v.status, v.route, v.requestID, v.traceID
	r.Gateway, r.ResponseFlags, r.Model = v.gateway, v.flags, v.model
	r.PromptTokens, r.OutputTokens = v.prompt, v.output
	r.Upstream = v.upstream
	r.UpstreamFirstByte = v.firstByte
	// The upstream attempts are the HTTP children; the GenAI children are
	// when there are none (the SDK's HTTP spans are under its GenAI span).
	// A GenAI child gives the model, tokens and first chunk either way; an
	// Envoy AI Gateway span the model and tokens only (it is no attempt,
	// and its first chunk is not known).
	var lastHTTP, lastGenAI, lastExtproc *gwSpan
	nHTTP, nGenAI := 0, 0
	for _, c := range s.children {
		switch {
		case c.v.server:
		case c.v.extproc:
			if lastExtproc == nil || c.v.start > lastExtproc.start {
				lastExtproc = &c.v
			}
		case c.v.genAI:
			nGenAI++
			if lastGenAI == nil || c.v.start > lastGenAI.start {
				lastGenAI = &c.v
			}
		default:
			nHTTP++
			if lastHTTP == nil || c.v.start > lastHTTP.start {
				lastHTTP = &c.v
			}
		}
	}
	last, n := lastHTTP, nHTTP
	if last == nil {
		last, n = lastGenAI, nGenAI
	}
	gen := lastGenAI
	if gen == nil {
		gen = last
	}
	r.TTFTNS = gatewayTTFT(v.start, v, gen)
	for _, g := range []*gwSpan{gen, lastExtproc} {
		if g == nil {
			continue
		}
		if r.Model == "" {
			r.Model = g.model
		}
		if r.PromptTokens == nil && r.OutputTokens == nil {
			r.PromptTokens, r.OutputTokens = g.prompt, g.output
		}
	}
	if lastExtproc != nil && r.RequestID == "" {
		r.RequestID = lastExtproc.requestID
	}
	if last == nil {
		return
	}
	r.Attempts = record.Int32Ptr(int32(min(n, 1<<16-1)))
	r.UpstreamStart, r.UpstreamEnd = last.start, last.end
	if last.upstream != "" {
		r.Upstream = last.upstream
	}
	if last.firstByte != 0 {
		r.UpstreamFirstByte = last.firstByte
	}
	if r.RequestID == "" {
		r.RequestID = last.requestID
	}
}

// gatewayTTFT is the time from the SERVER span's start to the first
// streamed chunk, of the SERVER span, else of the upstream span gen.
func gatewayTTFT(start int64, server, gen *gwSpan) *int64 {
	first := server.firstChunk
	if first == 0 && gen != nil {
		first = gen.firstChunk
	}
	if first == 0 || start == 0 || first < start {
		return nil
	}
	return record.NSPtr(first - start)
}
