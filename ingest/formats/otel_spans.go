package formats

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/url"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// What the otel-gateway and otel-client formats share: reading a file of
// OTLP JSON traces unit by unit, and pairing a parent span with its child
// spans when the two arrive in different units.
//
// Files. The collector's file exporter writes one TracesData object per
// line; a saved export (or `jq .` of one) is one or more OTLP JSON documents
// spread over many lines. The first non-blank line decides: one that opens
// a document (not a whole JSON value, short, no spans yet: `{`,
// `{"resourceSpans": [`) means consecutive documents, each a unit (the file
// is read into memory whole, and a document that is not valid JSON ends it,
// as in vllm-otlp-json); anything else means one object per line, each line
// a unit, and a line cut short is rejected alone. Blank lines are not units.
// The sniffer sees the first line (a lone `{` joined with the next one), so
// a document whose first member is not resourceSpans must be named
// (otel-gateway:GLOB).
//
// Why document formats, although the exporter writes lines: pairing needs a
// file's units in order, which the parallel line readers do not give, and
// emitting SERVER and CLIENT spans as separate rows for the analysis to
// pair would need span and parent span IDs in the tables, which have no
// such columns. Old collectors wrote "instrumentationLibrarySpans"
// (and "instrumentationLibrary"), which pdata no longer reads: they are
// renamed to scopeSpans and scope before decoding.
//
// Pairing. A request is a parent span (the gateway's SERVER span, the
// client's GenAI span) with child spans (the gateway's CLIENT span to the
// upstream, the HTTP client span under the GenAI span), matched by trace ID
// and parent span ID, never by time. A tracer exports a span when it ends
// and a child ends before its parent, so the child normally comes first or
// in the same batch; collectors that receive concurrent exports can still
// put a parent a few batches before its child. So a unit's parents are held
// while otelHoldUnits more units are read (or until more than
// otelMaxPending parents are held, or the end of the file), and only then
// turned into rows, all in that unit; a child that arrives first waits for
// its parent among at most otelMaxOrphans others (the oldest is dropped
// first). With one object per line, memory is bounded by these counts and
// one line, never by the size of the file. Pairs are only made within one file: a request split
// by a file rotation keeps its parent's row without the child's data.
//
// A span seen again (a batch exported twice, a file concatenated with
// itself) is ignored when one of the last otelSeenWindow spans had its
// trace and span ID.
const (
	otelHoldUnits  = 8
	otelMaxPending = 1 << 16
	otelMaxOrphans = 1 << 16
	otelSeenWindow = 1 << 17
)

// otelDefaultRequestID is the attribute the request ID is read from unless
// the otel-request-id option names another: the X-Request-Id request
// header as the HTTP semantic conventions capture it (opt-in, a string[]).
const otelDefaultRequestID = "http.request.header.x-request-id"

// otelConfig holds the options of the OTel formats for one run.
type otelConfig struct {
	// requestID is the span attribute holding the request ID
	// (option otel-request-id).
	requestID string
	// services, when not empty, keeps only spans whose resource
	// service.name is one of them (options otel-gateway-service,
	// otel-client-service, comma separated).
	services map[string]bool
}

func newOTelConfig(opts map[string]string, serviceKey string) (*otelConfig, error) {
	c := &otelConfig{requestID: otelDefaultRequestID}
	if v := strings.TrimSpace(opts["otel-request-id"]); v != "" { // "": the default
		if strings.ContainsAny(v, " \t\r\n\"") {
			return nil, fmt.Errorf("--otel-request-id %q: want a span attribute name such as %s", v, otelDefaultRequestID)
		}
		c.requestID = v
	}
	if v := strings.TrimSpace(opts[serviceKey]); v != "" {
		c.services = map[string]bool{}
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				c.services[s] = true
			}
		}
	}
	return c, nil
}

// keepResource applies the service filter.
func (c *otelConfig) keepResource(res pcommon.Map) bool {
	if len(c.services) == 0 {
		return true
	}
	s, _ := attrStr(res, "service.name")
	return c.services[s]
}

// sniffOTLPTraces claims what vllm-otlp and vllm-otlp-json claim on the
// server tier: a file exporter line, or the first line of a document.
func sniffOTLPTraces(first []byte) bool {
	return isOTLPLine(first) || sniffOTLPDocument(first)
}

// readOTLPUnits calls unit for each unit of an OTLP JSON traces file with
// its first line number and bytes (valid until unit returns). A unit that
// cannot be read at all (too long, bad JSON in a document) is handed to
// bad, which rejects it; a document file ends there.
func readOTLPUnits(r io.Reader, unit func(line int64, data []byte) error, bad func(line int64, raw []byte, err error) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var lineNo int64
	decided := false
	for {
		l, err := readLine(br)
		if l != nil {
			lineNo++
			if !decided {
				t := bytes.TrimSpace(l.data)
				if len(t) == 0 && !l.tooLong {
					if err == nil {
						continue
					}
					return ignoreEOF(err)
				}
				decided = true
				if looksLikeDocumentStart(t, l.tooLong) {
					rest, rerr := io.ReadAll(br)
					if rerr != nil {
						return rerr
					}
					data := bytes.Repeat([]byte{'\n'}, int(lineNo-1))
					data = append(data, l.data...)
					if l.nl {
						data = append(data, '\n')
					}
					return readOTLPDocuments(append(data, rest...), unit, bad)
				}
			}
			if err := lineUnit(l, lineNo, unit, bad); err != nil {
				return err
			}
		}
		if err != nil {
			return ignoreEOF(err)
		}
	}
}

func ignoreEOF(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}

// looksLikeDocumentStart tells the first line of a pretty-printed document
// (`{`, `{"resourceSpans": [`) from a line of the file exporter, whole or
// cut short: the latter is valid JSON, or long, or already holds spans.
func looksLikeDocumentStart(first []byte, tooLong bool) bool {
	return !tooLong && !json.Valid(first) && len(first) < 1024 && !bytes.Contains(first, []byte(`"spans"`))
}

type otlpLine struct {
	data    []byte // the line without its '\n' (the first RawLimit bytes when tooLong)
	nl      bool   // it ended with '\n'
	tooLong bool
}

// readLine reads one line of at most MaxLineBytes; a longer one is read to
// its end and returned cut, marked tooLong. nil at the end of input.
func readLine(br *bufio.Reader) (*otlpLine, error) {
	var buf []byte
	l := &otlpLine{}
	for {
		frag, err := br.ReadSlice('\n')
		if !l.tooLong {
			if len(buf)+len(frag) > record.MaxLineBytes+1 {
				l.tooLong = true
				buf = append(buf, frag[:min(len(frag), max(0, record.RawLimit-len(buf)))]...)
			} else {
				buf = append(buf, frag...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(frag) > 0 && frag[len(frag)-1] == '\n' {
			l.nl = true
			if !l.tooLong {
				buf = buf[:len(buf)-1]
			}
		}
		if len(buf) > 0 && buf[len(buf)-1] == '\r' && !l.tooLong {
			buf = buf[:len(buf)-1]
		}
		l.data = buf
		if err != nil && len(frag) == 0 && len(buf) == 0 && !l.tooLong {
			return nil, err
		}
		return l, err
	}
}

func lineUnit(l *otlpLine, no int64, unit func(int64, []byte) error, bad func(int64, []byte, error) error) error {
	if l.tooLong {
		return bad(no, l.data, fmt.Errorf("%w: longer than %d bytes", record.ErrLineTooLong, record.MaxLineBytes))
	}
	if len(bytes.TrimSpace(l.data)) == 0 {
		return nil
	}
	return unit(no, l.data)
}

// registerOTel registers an OTel document format of tier t whose parser
// takes the otel-request-id setting and the service names in serviceKey.
func registerOTel[T record.Row](t record.Tier, name, serviceKey string, parser func(*otelConfig) record.DocParser[T]) {
	record.RegisterOption(record.Option{Name: "otel-request-id", Value: "ATTRIBUTE",
		Usage: "span attribute holding the request ID in OTLP traces (default: the x-request-id header attribute)"})
	if serviceKey != "" {
		record.RegisterOption(record.Option{Name: serviceKey, Value: "NAMES",
			Usage: "service.name values (comma-separated) whose spans are the " + strings.TrimSuffix(strings.TrimPrefix(serviceKey, "otel-"), "-service") + "'s, in mixed OTLP files"})
	}
	def, _ := newOTelConfig(nil, "")
	record.Register(&record.Format{
		Tier:  t,
		Name:  name,
		Sniff: sniffOTLPTraces,
		Doc:   parser(def),
		Options: func(opts map[string]string) (any, error) {
			c, err := newOTelConfig(opts, serviceKey)
			if err != nil {
				return nil, err
			}
			return parser(c), nil
		},
	})
}

// readOTLPDocuments reads consecutive JSON documents.
func readOTLPDocuments(data []byte, unit func(int64, []byte) error, bad func(int64, []byte, error) error) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		off := scan.SkipSpace(data, int(dec.InputOffset()))
		if off >= len(data) {
			return nil
		}
		line := int64(bytes.Count(data[:off], []byte{'\n'})) + 1
		var doc json.RawMessage
		if err := dec.Decode(&doc); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				err = errors.New("unexpected end of input (truncated document?)")
			}
			return bad(line, data[off:min(len(data), off+record.RawLimit)], fmt.Errorf("%w: %v", record.ErrSyntax, err))
		}
		if err := unit(line, doc); err != nil {
			return err
		}
	}
}

// decodeOTLPTraces decodes one unit: an OTLP JSON object (metrics and logs
// decode to no spans), with the pre-1.0 member names renamed.
func decodeOTLPTraces(data []byte) (ptrace.Traces, error) {
	if err := checkOTLPObject(data); err != nil {
		return ptrace.Traces{}, err
	}
	if bytes.Contains(data, []byte(`"instrumentationLibrarySpans"`)) {
		var err error
		if data, err = renameInstrumentationLibrary(data); err != nil {
			return ptrace.Traces{}, err
		}
	}
	return unmarshalOTLP(data)
}

// renameInstrumentationLibrary rewrites, in each element of resourceSpans,
// the member instrumentationLibrarySpans to scopeSpans (appended after any
// scopeSpans already there) and, in each of its elements,
// instrumentationLibrary to scope. Everything else is kept byte for byte.
func renameInstrumentationLibrary(data []byte) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("%w: %v", record.ErrSyntax, err)
	}
	var rss []map[string]json.RawMessage
	if raw, ok := top["resourceSpans"]; !ok || json.Unmarshal(raw, &rss) != nil {
		return data, nil // pdata says what is wrong
	}
	changed := false
	for _, rs := range rss {
		raw, ok := rs["instrumentationLibrarySpans"]
		if !ok {
			continue
		}
		var ils, ss []map[string]json.RawMessage
		if err := json.Unmarshal(raw, &ils); err != nil {
			return nil, fmt.Errorf("%w: instrumentationLibrarySpans: %v", record.ErrSyntax, err)
		}
		if old, ok := rs["scopeSpans"]; ok {
			if err := json.Unmarshal(old, &ss); err != nil {
				return nil, fmt.Errorf("%w: scopeSpans: %v", record.ErrSyntax, err)
			}
		}
		for _, e := range ils {
			if lib, ok := e["instrumentationLibrary"]; ok {
				if _, has := e["scope"]; !has {
					e["scope"] = lib
				}
				delete(e, "instrumentationLibrary")
			}
			ss = append(ss, e)
		}
		b, err := json.Marshal(ss)
		if err != nil {
			return nil, err
		}
		rs["scopeSpans"] = b
		delete(rs, "instrumentationLibrarySpans")
		changed = true
	}
	if !changed {
		return data, nil
	}
	b, err := json.Marshal(rss)
	if err != nil {
		return nil, err
	}
	top["resourceSpans"] = b
	return json.Marshal(top)
}

// spanKey is a span's trace ID and span ID.
type spanKey [24]byte

func keyOf(t pcommon.TraceID, s pcommon.SpanID) spanKey {
	var k spanKey
	copy(k[:16], t[:])
	copy(k[16:], s[:])
	return k
}

// pendingSpan is a span waiting to be paired: what a format keeps of it
// (never a pdata value: the unit it came from is not kept).
type pendingSpan[S any] struct {
	key, parent spanKey
	hasParent   bool
	claimed     bool // a child that a parent took: no row of its own
	children    []*pendingSpan[S]
	v           S
}

type heldUnit[S any] struct {
	line    int64
	n       int64 // units read before it
	parents []*pendingSpan[S]
}

// spanPairer pairs parents and children and holds units until their
// parents are final. S is what a format keeps of a span.
type spanPairer[S any] struct {
	n       int64 // units read
	held    []*heldUnit[S]
	pending int
	parents map[spanKey]*pendingSpan[S]
	orphans map[spanKey][]*pendingSpan[S] // children by parent key
	orphanQ []spanKey
	nOrphan int
	seen    map[spanKey]ptrace.SpanKind
	seenQ   []spanKey
	seenAt  int
	// emit turns a held unit into rows.
	emit func(u *heldUnit[S]) error
}

func newSpanPairer[S any](emit func(*heldUnit[S]) error) *spanPairer[S] {
	return &spanPairer[S]{
		parents: map[spanKey]*pendingSpan[S]{},
		orphans: map[spanKey][]*pendingSpan[S]{},
		seen:    map[spanKey]ptrace.SpanKind{},
		emit:    emit,
	}
}

// dup records a span and reports whether it was seen recently. A span
// without a span ID (not valid OTLP) is never a repeat.
func (p *spanPairer[S]) dup(k spanKey, kind ptrace.SpanKind) bool {
	if [8]byte(k[16:]) == ([8]byte{}) {
		return false
	}
	if _, ok := p.seen[k]; ok {
		return true
	}
	if len(p.seenQ) < otelSeenWindow {
		p.seenQ = append(p.seenQ, k)
	} else {
		delete(p.seen, p.seenQ[p.seenAt])
		p.seenQ[p.seenAt] = k
		p.seenAt = (p.seenAt + 1) % otelSeenWindow
	}
	p.seen[k] = kind
	return false
}

// kindOf returns the kind of a recently seen span.
func (p *spanPairer[S]) kindOf(k spanKey) (ptrace.SpanKind, bool) {
	kind, ok := p.seen[k]
	return kind, ok
}

// parent registers a span that may become a row, taking the children that
// came before it.
func (p *spanPairer[S]) parent(u *heldUnit[S], s *pendingSpan[S]) {
	if kids, ok := p.orphans[s.key]; ok {
		s.children = append(s.children, kids...)
		for _, c := range kids {
			c.claimed = true
		}
		delete(p.orphans, s.key)
		p.nOrphan -= len(kids)
	}
	p.parents[s.key] = s
	u.parents = append(u.parents, s)
}

// child attaches a span to its held parent or keeps it for a parent to
// come. It reports whether a parent took it.
func (p *spanPairer[S]) child(s *pendingSpan[S]) bool {
	if !s.hasParent {
		return false
	}
	if par, ok := p.parents[s.parent]; ok {
		par.children = append(par.children, s)
		s.claimed = true
		return true
	}
	for p.nOrphan >= otelMaxOrphans && len(p.orphanQ) > 0 {
		old := p.orphanQ[0]
		p.orphanQ = p.orphanQ[1:]
		p.nOrphan -= len(p.orphans[old])
		delete(p.orphans, old)
	}
	if _, ok := p.orphans[s.parent]; !ok {
		p.orphanQ = append(p.orphanQ, s.parent)
	}
	p.orphans[s.parent] = append(p.orphans[s.parent], s)
	p.nOrphan++
	return false
}

// hold queues a unit (or emits it at once when it has no parents, but it
// still counts) and emits the units that are due: those read
// otelHoldUnits units ago.
func (p *spanPairer[S]) hold(u *heldUnit[S]) error {
	p.n++
	u.n = p.n
	if len(u.parents) == 0 {
		if err := p.emit(u); err != nil {
			return err
		}
	} else {
		p.held = append(p.held, u)
		p.pending += len(u.parents)
	}
	for len(p.held) > 0 && (p.n-p.held[0].n >= otelHoldUnits || p.pending > otelMaxPending) {
		if err := p.release(); err != nil {
			return err
		}
	}
	return nil
}

func (p *spanPairer[S]) release() error {
	u := p.held[0]
	p.held[0] = nil
	p.held = p.held[1:]
	p.pending -= len(u.parents)
	for _, s := range u.parents {
		if p.parents[s.key] == s {
			delete(p.parents, s.key)
		}
	}
	return p.emit(u)
}

// flush emits every held unit, at the end of the file.
func (p *spanPairer[S]) flush() error {
	for len(p.held) > 0 {
		if err := p.release(); err != nil {
			return err
		}
	}
	return nil
}

// spanTimes checks and returns a span's start and end; end is 0 when it is
// before the start.
func spanTimes(sp ptrace.Span) (start, end int64, err error) {
	s, e := uint64(sp.StartTimestamp()), uint64(sp.EndTimestamp())
	if s == 0 {
		return 0, 0, record.Missing("startTimeUnixNano")
	}
	if err := plausibleNS("startTimeUnixNano", s); err != nil {
		return 0, 0, err
	}
	if e == 0 || e < s {
		return int64(s), 0, nil
	}
	if err := plausibleNS("endTimeUnixNano", e); err != nil {
		return 0, 0, err
	}
	return int64(s), int64(e), nil
}

// attrAny returns the first present attribute of keys.
func attrAny(m pcommon.Map, keys ...string) (pcommon.Value, string, bool) {
	for _, k := range keys {
		if v, ok := m.Get(k); ok && v.Type() != pcommon.ValueTypeEmpty {
			return v, k, true
		}
	}
	return pcommon.Value{}, "", false
}

// attrText returns a string attribute, the first non-empty string of a
// string[] (how the HTTP conventions capture a header), or an int as text.
func attrText(m pcommon.Map, key string) (string, bool) {
	v, ok := m.Get(key)
	if !ok {
		return "", false
	}
	switch v.Type() {
	case pcommon.ValueTypeStr:
		s := strings.TrimSpace(v.Str())
		return s, s != "" && s != "-"
	case pcommon.ValueTypeSlice:
		sl := v.Slice()
		for i := 0; i < sl.Len(); i++ {
			if e := sl.At(i); e.Type() == pcommon.ValueTypeStr {
				if s := strings.TrimSpace(e.Str()); s != "" && s != "-" {
					return s, true
				}
			}
		}
	case pcommon.ValueTypeInt:
		return strconv.FormatInt(v.Int(), 10), true
	}
	return "", false
}

// attrHTTPStatus reads an HTTP status code: an int, or digits in a string
// (Envoy writes every tag as a string). 0 is no status.
func attrHTTPStatus(m pcommon.Map, keys ...string) (int32, error) {
	v, key, ok := attrAny(m, keys...)
	if !ok {
		return 0, nil
	}
	var n int64
	switch v.Type() {
	case pcommon.ValueTypeInt:
		n = v.Int()
	case pcommon.ValueTypeStr:
		s := strings.TrimSpace(v.Str())
		if s == "" || s == "-" {
			return 0, nil
		}
		var err error
		if n, err = strconv.ParseInt(s, 10, 64); err != nil {
			return 0, record.FieldErrorf(key, record.ErrBadValue, "want an HTTP status, got %q", s)
		}
	case pcommon.ValueTypeDouble:
		f := v.Double()
		if f != math.Trunc(f) || f < 0 || f > 999 {
			return 0, record.FieldErrorf(key, record.ErrBadValue, "want an HTTP status, got %v", f)
		}
		n = int64(f)
	default:
		return 0, record.FieldErrorf(key, record.ErrBadValue, "want an HTTP status, got %s", strings.ToLower(v.Type().String()))
	}
	if n < 0 || n > 999 {
		return 0, record.FieldErrorf(key, record.ErrBadValue, "HTTP status %d is outside 0..999", n)
	}
	return int32(n), nil
}

// attrHostPort joins an address attribute and a port attribute (an int or
// digits); the port is left out when absent.
func attrHostPort(m pcommon.Map, hostKey, portKey string) (string, bool) {
	host, ok := attrStr(m, hostKey)
	if !ok {
		return "", false
	}
	port, ok := attrText(m, portKey)
	if !ok {
		return host, true
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return host, true
	}
	return net.JoinHostPort(strings.Trim(host, "[]"), port), true
}

// urlPath returns the path of a URL or of a request target, without the
// query: "" when there is none.
func urlPath(s string) string {
	s = string(scan.URLLabel([]byte(s)))
	if strings.HasPrefix(s, "/") {
		return s
	}
	if u, err := url.Parse(s); err == nil && u.Host != "" {
		if u.Path == "" {
			return "/"
		}
		return u.Path
	}
	return ""
}

// urlHost returns host[:port] of an absolute URL.
func urlHost(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Host
	}
	return ""
}

// resourceLabel names the host or instance that logged a span:
// service.instance.id, k8s.pod.name or host.name, else service.name.
func resourceLabel(res pcommon.Map) (string, bool) {
	for _, k := range []string{"service.instance.id", "k8s.pod.name", "host.name", "service.name"} {
		if s, ok := attrStr(res, k); ok {
			return s, true
		}
	}
	return "", false
}

// eventTime returns the time of the first span event named one of names.
func eventTime(sp ptrace.Span, names ...string) int64 {
	evs := sp.Events()
	for i := 0; i < evs.Len(); i++ {
		ev := evs.At(i)
		for _, n := range names {
			if ev.Name() == n {
				t := uint64(ev.Timestamp())
				if plausibleNS("timeUnixNano", t) == nil {
					return int64(t)
				}
			}
		}
	}
	return 0
}

// chunkEvents are the span events that mark a streamed chunk of the
// response. OpenLLMetry (traceloop) adds llm.content.completion.chunk to its
// GenAI span for every chunk of a stream, with no attributes in Python and
// only chunk.type in JavaScript; gen_ai.content.chunk is the name other
// SDKs give the same event. OpenInference (Arize Phoenix's
// instrumentations) adds one "First Token Stream Event", without
// attributes, to its LLM span when the first chunk arrives (its Python
// openai and mistralai instrumentations on the first chunk of the stream,
// llama-index on the first streaming event). The GenAI semantic
// conventions define no chunk event (their events,
// gen_ai.client.inference.operation.details and the deprecated
// gen_ai.choice, gen_ai.content.completion…, carry content and come once
// the response is complete), so none of theirs marks a first token. Only
// the event's time is read, never its attributes.
//
// Not read: the Vercel AI SDK's ai.stream.firstChunk, on INTERNAL spans
// (ai.streamText.doStream) that are not read, and which its OpenTelemetry
// integration adds when the step ends, not at the first chunk; first_token
// and llm.first_token, which no instrumentation was found to emit (only
// applications, on spans of their own).
var chunkEvents = []string{"llm.content.completion.chunk", "gen_ai.content.chunk", openInferenceFirstToken}

// openInferenceFirstToken is OpenInference's first chunk event.
const openInferenceFirstToken = "First Token Stream Event"

// aiGatewayScope is the instrumentation scope of Envoy AI Gateway's spans
// (its extproc's tracer). Its OpenInference recorders add
// openInferenceFirstToken when the span ends, after the last chunk (the
// chunks are kept and recorded at the end, since v0.3.0, the first release
// with tracing), so on its spans the event says the response was streamed
// and nothing of when the first chunk came.
const aiGatewayScope = "envoyproxy/ai-gateway"

// firstChunk returns the time of the span's first chunk: the span start
// plus gen_ai.response.time_to_first_chunk when set, else the earliest
// chunk event no earlier than the span start; 0 when neither. chunked
// tells whether the span has a chunk event (it was streamed). lateFirst
// says the span's openInferenceFirstToken was stamped at its end (an Envoy
// AI Gateway span): it counts as a chunk event, but not its time.
func firstChunk(sp ptrace.Span, start int64, lateFirst bool) (t int64, chunked bool, err error) {
	ns, ok, err := attrSeconds(sp.Attributes(), "gen_ai.response.time_to_first_chunk")
	if err != nil {
		return 0, false, err
	}
	if ok {
		t = after(start, &ns)
	}
	evs := sp.Events()
	for i := 0; i < evs.Len(); i++ {
		ev := evs.At(i)
		if !isChunkEvent(ev.Name()) {
			continue
		}
		chunked = true
		e := uint64(ev.Timestamp())
		if ok || lateFirst && ev.Name() == openInferenceFirstToken || plausibleNS("timeUnixNano", e) != nil || int64(e) < start {
			continue
		}
		if t == 0 || int64(e) < t {
			t = int64(e)
		}
	}
	return t, chunked, nil
}

func isChunkEvent(name string) bool {
	for _, n := range chunkEvents {
		if name == n {
			return true
		}
	}
	return false
}

// isOpenInferenceLLM: a span of an LLM call in the OpenInference
// conventions (openinference.span.kind LLM; its other kinds, CHAIN, AGENT,
// TOOL, EMBEDDING, RETRIEVER…, are not LLM calls).
func isOpenInferenceLLM(a pcommon.Map) bool {
	s, ok := attrStr(a, "openinference.span.kind")
	return ok && strings.EqualFold(s, "LLM")
}

// openInferenceStreamed reads whether an OpenInference LLM span's request
// asked for a stream: the "stream" member of llm.invocation_parameters, a
// JSON object of the request's parameters as a string. Only that member
// is interpreted; the others (which can hold a JSON schema or tool
// definitions) are split off as raw bytes and dropped. nil when absent or
// null.
func openInferenceStreamed(a pcommon.Map) (*bool, error) {
	const key = "llm.invocation_parameters"
	v, ok := a.Get(key)
	if !ok || v.Type() == pcommon.ValueTypeEmpty {
		return nil, nil
	}
	if v.Type() != pcommon.ValueTypeStr {
		return nil, record.FieldErrorf(key, record.ErrBadValue, "want a JSON object in a string, got %s", strings.ToLower(v.Type().String()))
	}
	s := strings.TrimSpace(v.Str())
	if s == "" {
		return nil, nil
	}
	var p map[string]json.RawMessage // member names matched exactly
	// Errors are not quoted: their text can hold a piece of the value.
	if !strings.HasPrefix(s, "{") || json.Unmarshal([]byte(s), &p) != nil {
		return nil, record.FieldErrorf(key, record.ErrBadValue, "want a JSON object")
	}
	switch string(p["stream"]) {
	case "", "null":
		return nil, nil
	case "true":
		return record.BoolPtr(true), nil
	case "false":
		return record.BoolPtr(false), nil
	}
	return nil, record.FieldErrorf(key, record.ErrBadValue, "its stream member is not true or false")
}

// isHTTPSpan: a span of the HTTP conventions, old or new names.
func isHTTPSpan(a pcommon.Map) bool {
	_, _, ok := attrAny(a, "http.request.method", "http.method")
	return ok
}

// spanErr names a span by its ID in a reason (names and attributes can
// hold user text).
func spanErr(sp ptrace.Span, err error) error {
	return fmt.Errorf("span %s: %w", sp.SpanID(), err)
}

// otlpDocParser is the docParser shared by the OTel formats: decode each
// unit, let the format take its spans (a *ParseError-free error rejects the
// unit, and the format must not have changed its state), then flush.
func otlpDocParser[T record.Row](r io.Reader, out *record.DocOut[T], take func(line int64, td ptrace.Traces) error, flush func() error) error {
	bad := func(line int64, raw []byte, err error) error {
		if err := out.Done(line, raw[:min(len(raw), record.RawLimit)], err); err != nil {
			return &fatalErr{err}
		}
		return nil
	}
	err := readOTLPUnits(r, func(line int64, data []byte) error {
		td, err := decodeOTLPTraces(data)
		if err == nil {
			err = take(line, td)
		}
		if err != nil {
			var fatal *fatalErr
			if errors.As(err, &fatal) {
				return err
			}
			return bad(line, data, err)
		}
		return nil
	}, bad)
	var fatal *fatalErr
	if errors.As(err, &fatal) {
		return fatal.err
	}
	// A read error (a gzip stream cut short) ends the file, but the units
	// read before it still count: their held spans are written.
	return errors.Join(flush(), err)
}

// fatalErr is an error of the output, not of the input: it ends the file.
type fatalErr struct{ err error }

func (e *fatalErr) Error() string { return e.err.Error() }
