package formats

// The envoy gateway format: Envoy access logs, one request per line.
//
// Text lines are matched against Envoy format strings, in order: the
// user's (--envoy-format '…', Options.FormatOptions["envoy-format"]), if
// given, then Envoy's default format, Istio's default and Envoy Gateway's
// default. JSON lines (json_format, typed or all-strings, Envoy
// Gateway, Envoy AI Gateway) are read by member name: the names the user's
// JSON format object gives to each operator, or without one the
// conventional names of Envoy's and the gateways' docs (envoyJSONKeys),
// snake_case or lowerCamelCase ("start_time", "startTime").
//
// Matching is strict: a quoted value ("%REQ(:AUTHORITY)%") ends at the
// first quote that the format's next literal follows, so a line with a
// field more than its format ("%UPSTREAM_HOST%" "%UPSTREAM_CLUSTER%"
// against the default) matches no format rather than reading `host"
// "cluster` as one value and the cluster as the upstream host; its reject
// says how far the line matched and that it goes on.
//
// Every time of a row is on the gateway's clock: Start is %START_TIME% (the
// first byte of the request received) and the others are Start plus an
// offset Envoy measured, taken from the richest operators logged:
//
//	End               Start + COMMON_DURATION(DS_RX_BEG:DS_TX_END) when it is
//	                  logged finer than ms, else + DURATION (last byte out)
//	UpstreamStart     Start + US_TX_BEG (first byte sent upstream), else
//	                  + REQUEST_TX_DURATION (last byte sent upstream), else,
//	                  when an upstream response time is placed (so the
//	                  request did go out), + REQUEST_DURATION (last byte
//	                  received from downstream: received ≈ forwarded)
//	UpstreamFirstByte Start + US_RX_BODY_BEG (first body byte: the first
//	                  token of a streamed response), else + US_RX_BEG, which
//	                  RESPONSE_DURATION is, or which REQUEST_DURATION plus
//	                  x-envoy-upstream-service-time reaches
//	UpstreamEnd       Start + US_RX_END; only COMMON_DURATION logs it
//
// COMMON_DURATION points are chained: %COMMON_DURATION(US_TX_BEG:US_RX_END:us)%
// places US_RX_END once US_TX_BEG is placed. A time that no logged operator
// places is left NULL, never guessed. Envoy truncates its ms operators to
// whole milliseconds, and the default %START_TIME% too, so each of them
// makes a derived time up to 1 ms early; a layout such as
// %START_TIME(%s.%6f)% and COMMON_DURATION in us or ns avoid that.
//
// RequestID is x-request-id (%STREAM_ID% when it is not logged). A line
// whose format logs the ID but holds "-" or null there is rejected: Envoy
// sets it on every request it proxies unless told not to, so it is a probe
// or a local reply. A format that logs neither (a json_format of its own
// without the member, a text format without the operator) keeps its rows
// without an ID, for the analysis to match them by time as it does NGINX's. Status is
// %RESPONSE_CODE% (0 or "-" is NULL), ResponseFlags %RESPONSE_FLAGS% ("-"
// is NULL), Upstream %UPSTREAM_HOST%, Route the request path without its
// query (%ROUTE_NAME% without a path), Attempts
// %UPSTREAM_REQUEST_ATTEMPT_COUNT%, Gateway %HOSTNAME%, TraceID %TRACE_ID%
// or the traceparent header's. From Envoy AI Gateway's io.envoy.ai_gateway
// dynamic metadata: Model (the x-ai-eg-model request header, else the
// response model, else the model name override), PromptTokens and
// OutputTokens (llm_input_token, llm_output_token) and TTFTNS
// (token_latency_ttft, ms, streamed requests only).

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

const formatEnvoy = "envoy"

// envoyDefaultConfig reads lines when no --envoy-format is given.
var envoyDefaultConfig = mustEnvoyConfig("")

func init() {
	record.RegisterOption(record.Option{Name: "envoy-format", Value: "FORMAT",
		Usage: "Envoy access log format string (or JSON format object) of envoy gateway logs, when not Envoy's default"})
	def := envoyDefaultConfig
	record.Register(&record.Format{
		Tier:      record.Gateway,
		Name:      formatEnvoy,
		Sniff:     sniffEnvoy,
		NewParser: func() record.LineParser[record.GatewayRow] { return newEnvoyParser(def) },
		Options:   envoyOptions,
		// An access log of an unknown format may be Envoy with a format
		// string of its own: named after nginx.
		AccessLogHint: &record.AccessLogHint{Flag: "--envoy-format", Rank: 2},
	})
}

func envoyOptions(opts map[string]string) (any, error) {
	cfg, err := compileEnvoyConfig(opts["envoy-format"])
	if err != nil {
		return nil, fmt.Errorf("--envoy-format: %w", err)
	}
	return func() record.LineParser[record.GatewayRow] { return newEnvoyParser(cfg) }, nil
}

// envoyConfig is what one run reads Envoy lines with; shared by workers,
// never written after it is made.
type envoyConfig struct {
	// text formats, tried in order: the user's, if any, then the defaults
	// (so that a file in a default format still reads)
	text []*envoyFormat
	user int            // how many of text are the user's
	json *envoyJSONNode // the user's JSON format; nil: conventional names
}

// textName names text format i, for messages.
func (c *envoyConfig) textName(i int) string {
	if i < c.user {
		return "the --envoy-format string"
	}
	return [...]string{"Envoy's default format", "Istio's default format", "Envoy Gateway's default format"}[i-c.user]
}

// envoyJSONNode maps the member names of a JSON format object to the format
// of their values.
type envoyJSONNode struct {
	members map[string]*envoyJSONMember
}

type envoyJSONMember struct {
	format *envoyFormat   // the value's format string
	nested *envoyJSONNode // a nested object
}

func mustEnvoyConfig(src string) *envoyConfig {
	c, err := compileEnvoyConfig(src)
	if err != nil {
		panic(err)
	}
	return c
}

// compileEnvoyConfig compiles a user's format: a text format string, or a
// JSON object of operators (json_format, or Envoy Gateway's JSON-shaped
// text format). Empty: the default formats.
func compileEnvoyConfig(src string) (*envoyConfig, error) {
	c := &envoyConfig{}
	if strings.TrimSpace(src) != "" {
		if t := strings.TrimSpace(src); strings.HasPrefix(t, "{") {
			if node, err := compileEnvoyJSON([]byte(t), 0); err == nil {
				c.json = node
			}
		}
		// A JSON-shaped text format prints values unescaped, so a line may
		// not be JSON: it is then matched as text too.
		f, err := compileEnvoyFormat(src)
		if err != nil && c.json == nil {
			return nil, err
		}
		if err == nil {
			c.text, c.user = append(c.text, f), 1
		}
	}
	for _, s := range []string{envoyDefaultFormat, istioDefaultFormat, envoyGatewayDefaultFormat} {
		f, err := compileEnvoyFormat(s)
		if err != nil {
			return nil, err
		}
		c.text = append(c.text, f)
	}
	return c, nil
}

func compileEnvoyJSON(obj []byte, depth int) (*envoyJSONNode, error) {
	if depth > 8 {
		return nil, fmt.Errorf("JSON format nested too deeply")
	}
	node := &envoyJSONNode{members: map[string]*envoyJSONMember{}}
	err := scan.Object(obj, func(k []byte, esc bool, v scan.Value) error {
		key := string(scan.MemberKey(k, esc))
		switch v.Kind {
		case scan.String:
			s, ok := scan.Unquote(v.Raw, v.Escaped)
			if !ok {
				return fmt.Errorf("member %q: bad escape", key)
			}
			if !bytes.Contains(s, []byte("%")) {
				return nil // a constant
			}
			f, err := compileEnvoyFormat(string(s))
			if err != nil {
				return fmt.Errorf("member %q: %w", key, err)
			}
			node.members[key] = &envoyJSONMember{format: f}
		case scan.ObjectKind:
			n, err := compileEnvoyJSON(v.Raw, depth+1)
			if err != nil {
				return fmt.Errorf("member %q: %w", key, err)
			}
			node.members[key] = &envoyJSONMember{nested: n}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(node.members) == 0 && depth == 0 {
		return nil, fmt.Errorf("JSON format has no %%OPERATOR%%")
	}
	return node, nil
}

// envoyJSONKeys are the member names read from JSON lines when no format is
// given: those of Envoy's docs, Envoy Gateway's default format, Envoy AI
// Gateway's docs (both spellings of the token and model keys) and the
// operator names themselves in lower case.
var envoyJSONKeys = func() map[string]envoyOp {
	m := map[string]envoyOp{}
	op := func(cmd, arg string) envoyOp {
		o, err := envoyOperator(cmd, arg)
		if err != nil {
			panic(err)
		}
		return o
	}
	role := func(r envoyRole) envoyOp { return envoyOp{role: r} }
	m["start_time"] = op("START_TIME", "")
	for k, cmd := range map[string]string{"duration": "DURATION", "request_duration": "REQUEST_DURATION",
		"request_tx_duration": "REQUEST_TX_DURATION", "response_duration": "RESPONSE_DURATION",
		"response_tx_duration": "RESPONSE_TX_DURATION"} {
		m[k] = op(cmd, "")
	}
	for _, k := range []string{"x-envoy-upstream-service-time", "x_envoy_upstream_service_time", "upstream_service_time"} {
		m[k] = op("RESP", "X-ENVOY-UPSTREAM-SERVICE-TIME")
	}
	// us_rx_body_beg_ms and the like: COMMON_DURATION(DS_RX_BEG:POINT:unit).
	for name := range envoyPoints {
		for _, u := range []string{"ms", "us", "ns"} {
			m[strings.ToLower(name)+"_"+u] = op("COMMON_DURATION", "DS_RX_BEG:"+name+":"+u)
		}
	}
	set := func(r envoyRole, keys ...string) {
		for _, k := range keys {
			m[k] = role(r)
		}
	}
	set(erRequestID, "x-request-id", "x_request_id", "request_id", "requestid", "request-id")
	set(erStreamID, "stream_id")
	set(erPath, "path", "x-envoy-origin-path", "x-envoy-original-path", "x_envoy_original_path", ":path", "request_path", "uri")
	set(erRequestLine, "request")
	set(erRouteName, "route_name")
	set(erUpstream, "upstream_host")
	set(erStatus, "response_code", "status", "status_code")
	set(erFlags, "response_flags")
	set(erAttempts, "upstream_request_attempt_count")
	set(erGateway, "hostname")
	set(erTraceID, "trace_id")
	set(erTraceparent, "traceparent")
	set(erModel, "genai_model_name", "gen_ai.request.model", "x-ai-eg-model", "model", "request_model")
	set(erResponseModel, "genai_response_model", "gen_ai.response.model", "response_model")
	set(erModelOverride, "genai_model_name_override", "gen_ai.request.model_override", "model_name_override")
	set(erInputTokens, "genai_tokens_input", "gen_ai.usage.input_tokens", "llm_input_token", "input_tokens")
	set(erOutputTokens, "genai_tokens_output", "gen_ai.usage.output_tokens", "llm_output_token", "output_tokens")
	set(erTTFT, "token_latency_ttft", "genai_token_latency_ttft")
	// json_format objects written in lowerCamelCase ("startTime",
	// "responseCode", "upstreamServiceTime", "xRequestId"): every name
	// of words joined by '_' or '-' is also read in that spelling.
	for k, o := range m {
		if c := lowerCamel(k); c != k {
			if _, taken := m[c]; !taken {
				m[c] = o
			}
		}
	}
	return m
}()

// lowerCamel spells a name of words joined by '_' or '-' in lowerCamelCase
// ("x-request-id" → "xRequestId"); any other name is returned as it is.
func lowerCamel(name string) string {
	if strings.ContainsAny(name, ".: ") || !strings.ContainsAny(name, "_-") {
		return name
	}
	var b strings.Builder
	up := false
	for _, r := range name {
		switch {
		case r == '_' || r == '-':
			up = b.Len() > 0
		case up:
			b.WriteRune(unicode.ToUpper(r))
			up = false
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// sniffEnvoy accepts a line of one of the default text formats, or a JSON
// object with start_time and an x-request-id-like member (and no NGINX
// msec).
func sniffEnvoy(line []byte) bool {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return false
	}
	c := envoyDefaultConfig // the defaults only
	if line[0] == '{' {
		var start, id, ngx bool
		err := scan.Object(line, func(k []byte, esc bool, _ scan.Value) error {
			switch string(scan.MemberKey(k, esc)) {
			case "start_time", "startTime":
				start = true
			case "x-request-id", "x_request_id", "request_id", "xRequestId", "requestId":
				id = true
			case "msec", "request_time":
				ngx = true
			}
			return nil
		})
		if err == nil {
			return start && id && !ngx
		}
		// Envoy Gateway's JSON-shaped text, not valid JSON.
		return c.text[2].matchText(line, make([][]byte, len(c.text[2].ops)))
	}
	if line[0] != '[' {
		return false
	}
	for _, f := range c.text[:2] {
		if f.matchText(line, make([][]byte, len(f.ops))) {
			return true
		}
	}
	return false
}

// matchText matches a line and checks its start time.
func (f *envoyFormat) matchText(line []byte, vals [][]byte) bool {
	clear(vals)
	return f.tmpl.match(line, vals, f.valid)
}

// valid checks the values the template alone cannot: start times.
func (f *envoyFormat) valid(i int, v []byte) bool {
	op := &f.ops[i]
	if op.role != erStart || (len(v) == 1 && v[0] == '-') {
		return true
	}
	if op.layout != nil {
		_, err := op.layout.parse(v)
		return err == nil
	}
	_, err := parseEnvoyTime(v)
	return err == nil
}

type envoyParser struct {
	cfg    *envoyConfig
	labels scan.Labels
	vals   [][]byte
	rec    envoyRec
}

func newEnvoyParser(cfg *envoyConfig) *envoyParser {
	n := 0
	var count func(node *envoyJSONNode)
	count = func(node *envoyJSONNode) {
		for _, m := range node.members {
			if m.format != nil {
				n = max(n, len(m.format.ops))
			} else {
				count(m.nested)
			}
		}
	}
	for _, f := range cfg.text {
		n = max(n, len(f.ops))
	}
	if cfg.json != nil {
		count(cfg.json)
	}
	return &envoyParser{cfg: cfg, vals: make([][]byte, n)}
}

// envoyEdge is a measured duration between two timing points.
type envoyEdge struct {
	from, to envoyPoint
	ns       int64
	unit     int64
}

// envoyRec gathers the values of one line before the row is derived.
type envoyRec struct {
	start       int64
	startDigits int // fraction digits of the start time kept
	hasStart    bool
	edges       [40]envoyEdge
	nedges      int
	rid, sid    []byte
	idLogged    bool // the line's format logs a request or stream ID, "-" or not
	path, route []byte
	upstream    []byte
	flags       []byte
	gateway     []byte
	traceID     []byte
	model       [3][]byte // asked for, answered, sent upstream
	status      int32
	attempts    int32
	hasAttempts bool
	in, out     int32
	hasIn       bool
	hasOut      bool
	ttft        int64
	hasTTFT     bool
}

func (p *envoyParser) ParseLine(line []byte, out *record.RowQueue[record.GatewayRow]) error {
	p.rec = envoyRec{}
	r := &p.rec
	if t := bytes.TrimSpace(line); len(t) > 0 && t[0] == '{' {
		var err error
		if p.cfg.json != nil {
			err = p.jsonNode(t, p.cfg.json, 0)
		} else {
			err = p.jsonConventional(t)
		}
		if _, syntax := err.(*scan.SyntaxError); syntax {
			// Not JSON: a JSON-shaped text format with an unescaped value?
			*r = envoyRec{}
			if p.text(line) == nil {
				err = nil
			}
		}
		if err != nil {
			return err
		}
	} else if err := p.text(line); err != nil {
		return err
	}
	return p.row(out.Next())
}

func (p *envoyParser) text(line []byte) error {
	for _, f := range p.cfg.text {
		vals := p.vals[:len(f.ops)]
		if !f.matchText(line, vals) {
			continue
		}
		for i := range f.ops {
			if vals[i] != nil {
				if err := p.set(&f.ops[i], vals[i]); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if name, extra := p.trailing(line); extra > 0 {
		return &lfMismatch{msg: fmt.Sprintf("line matches %s, then goes on for %d more bytes (a field the format does not have, such as %%UPSTREAM_CLUSTER%% after %%UPSTREAM_HOST%%); give its format string with --envoy-format", name, extra)}
	}
	if p.cfg.user == 0 {
		return &lfMismatch{msg: "line does not match Envoy's, Istio's or Envoy Gateway's default format; give its format string with --envoy-format"}
	}
	return &lfMismatch{msg: "line does not match the --envoy-format string, nor a default format"}
}

// trailing tells a line that one of the formats matches up to one of its
// last few spaces: the format it matches and how many bytes follow. It is
// looked for only once a line has matched no format, so that an extra
// field is said as such rather than as a line of another format.
func (p *envoyParser) trailing(line []byte) (name string, extra int) {
	end := len(line)
	for try := 0; try < 4; try++ {
		k := bytes.LastIndexByte(line[:end], ' ')
		if k <= 0 {
			return "", 0
		}
		for i, f := range p.cfg.text {
			if f.matchText(line[:k], p.vals[:len(f.ops)]) {
				return p.cfg.textName(i), len(line) - k
			}
		}
		end = k
	}
	return "", 0
}

func (p *envoyParser) jsonConventional(line []byte) error {
	return scan.Object(line, func(k []byte, esc bool, v scan.Value) error {
		key := scan.MemberKey(k, esc)
		op, ok := envoyJSONKeys[string(key)]
		if !ok {
			if !bytes.HasPrefix(key, []byte("start_time")) {
				return nil
			}
			op = envoyJSONKeys["start_time"] // start_time_us and the like
		}
		p.sawOp(&op)
		b, ok, err := memberText(key, v)
		if !ok || err != nil {
			return err
		}
		return p.set(&op, b)
	})
}

func (p *envoyParser) jsonNode(obj []byte, node *envoyJSONNode, depth int) error {
	return scan.Object(obj, func(k []byte, esc bool, v scan.Value) error {
		m := node.members[string(scan.MemberKey(k, esc))]
		if m == nil {
			return nil
		}
		if m.nested != nil {
			if v.Kind != scan.ObjectKind || depth > 8 {
				return nil
			}
			return p.jsonNode(v.Raw, m.nested, depth+1)
		}
		for i := range m.format.ops {
			p.sawOp(&m.format.ops[i])
		}
		b, ok, err := memberText(scan.MemberKey(k, esc), v)
		if !ok || err != nil {
			return err
		}
		f := m.format
		if len(f.ops) == 1 && len(f.tmpl.parts) == 1 {
			return p.set(&f.ops[0], b)
		}
		vals := p.vals[:len(f.ops)]
		if !f.matchText(b, vals) {
			return &lfMismatch{msg: fmt.Sprintf("member %q does not match its format %q", scan.MemberKey(k, esc), f.src)}
		}
		for i := range f.ops {
			if vals[i] != nil {
				if err := p.set(&f.ops[i], vals[i]); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// set records one operator's value; "-" and "" are Envoy's missing value.
func (p *envoyParser) set(op *envoyOp, v []byte) error {
	p.sawOp(op)
	if len(v) == 0 || len(v) == 1 && v[0] == '-' {
		return nil
	}
	r := &p.rec
	name := op.cmd
	if name == "" {
		name = "value"
	}
	switch op.role {
	case erStart:
		var ns int64
		var err error
		if op.layout != nil {
			ns, err = op.layout.parse(v)
		} else {
			ns, err = parseEnvoyTime(v)
		}
		if err != nil {
			return record.FieldErrorf("START_TIME", record.ErrBadTime, "%q: %v", v, err)
		}
		d := 0
		if i := bytes.IndexByte(v, '.'); i >= 0 {
			for j := i + 1; j < len(v) && v[j] >= '0' && v[j] <= '9'; j++ {
				d++
			}
		}
		if !r.hasStart || d > r.startDigits {
			r.start, r.startDigits, r.hasStart = ns, d, true
		}
	case erEdge:
		ns, ok := parseScaledDecimal(v, op.unit)
		if !ok {
			return record.FieldErrorf(envoyOpName(op), record.ErrBadValue, "want a duration, got %q", v)
		}
		if r.nedges < len(r.edges) {
			r.edges[r.nedges] = envoyEdge{from: op.from, to: op.to, ns: ns, unit: op.unit}
			r.nedges++
		}
	case erStatus:
		n, ok := parseScaledDecimal(v, 1)
		if !ok || n < 0 || n > 999 {
			return record.FieldErrorf("RESPONSE_CODE", record.ErrBadValue, "want an HTTP status, got %q", v)
		}
		r.status = int32(n)
	case erAttempts, erInputTokens, erOutputTokens:
		n, ok := parseScaledDecimal(v, 1)
		if !ok || n < 0 || n > 1<<31-1 {
			return record.FieldErrorf(envoyOpName(op), record.ErrBadValue, "want a count, got %q", v)
		}
		switch op.role {
		case erAttempts:
			r.attempts, r.hasAttempts = int32(n), true
		case erInputTokens:
			r.in, r.hasIn = int32(n), true
		default:
			r.out, r.hasOut = int32(n), true
		}
	case erTTFT:
		ns, ok := parseScaledDecimal(v, 1e6)
		if !ok || ns < 0 {
			return record.FieldErrorf("token_latency_ttft", record.ErrBadValue, "want milliseconds, got %q", v)
		}
		r.ttft, r.hasTTFT = ns, true
	case erRequestID:
		r.rid = v
	case erStreamID:
		r.sid = v
	case erPath:
		r.path = v
	case erRequestLine:
		// METHOD PATH PROTOCOL
		if _, rest, ok := bytes.Cut(v, []byte(" ")); ok {
			path, _, _ := bytes.Cut(rest, []byte(" "))
			r.path = path
		}
	case erRouteName:
		r.route = v
	case erUpstream:
		r.upstream = v
	case erFlags:
		r.flags = v
	case erGateway:
		r.gateway = v
	case erTraceID:
		r.traceID = v
	case erTraceparent:
		if id := traceparentID(v); id != nil && r.traceID == nil {
			r.traceID = id
		}
	case erModel:
		r.model[0] = v
	case erResponseModel:
		r.model[1] = v
	case erModelOverride:
		r.model[2] = v
	}
	return nil
}

func envoyOpName(op *envoyOp) string {
	if op.arg != "" {
		return op.cmd + "(" + op.arg + ")"
	}
	if op.cmd == "" {
		return "value"
	}
	return op.cmd
}

// points places the timing points the edges reach from DS_RX_BEG (the
// start): off is a point's offset from the start in ns, unit the coarsest
// unit of the measurements on the way to it (0: not placed). Each point is
// placed by the finest path, and among equally fine ones the shortest, as
// every ms operator adds its own truncation.
func (r *envoyRec) points() (off [numPoints]int64, unit [numPoints]int64) {
	edges := r.edges[:r.nedges]
	var hops [numPoints]int
	unit[ptDSRxBeg] = 1
	for {
		best, bestUnit, bestHops, forward := -1, int64(0), 0, false
		for i, e := range edges {
			if e.from < 0 || e.to < 0 {
				continue
			}
			var u int64
			var h int
			var fw bool
			switch {
			case unit[e.from] != 0 && unit[e.to] == 0:
				u, h, fw = max(unit[e.from], e.unit), hops[e.from]+1, true
			case unit[e.to] != 0 && unit[e.from] == 0:
				u, h = max(unit[e.to], e.unit), hops[e.to]+1
			default:
				continue
			}
			if best < 0 || u < bestUnit || u == bestUnit && h < bestHops {
				best, bestUnit, bestHops, forward = i, u, h, fw
			}
		}
		if best < 0 {
			return off, unit
		}
		e := edges[best]
		if forward {
			off[e.to], unit[e.to], hops[e.to] = off[e.from]+e.ns, bestUnit, bestHops
		} else {
			off[e.from], unit[e.from], hops[e.from] = off[e.to]-e.ns, bestUnit, bestHops
		}
	}
}

// sawOp notes that the line's format logs a request or stream ID, whatever
// its value.
func (p *envoyParser) sawOp(op *envoyOp) {
	if op.role == erRequestID || op.role == erStreamID {
		p.rec.idLogged = true
	}
}

func (p *envoyParser) row(row *record.GatewayRow) error {
	r := &p.rec
	if !r.hasStart {
		return record.Missing("START_TIME")
	}
	id := r.rid
	if id == nil {
		id = r.sid
	}
	if id == nil && r.idLogged {
		// A line of a format that logs the ID, without it: a probe or a
		// local reply Envoy was told not to trace, not a proxied request.
		return record.Missing("x-request-id")
	}
	off, unit := r.points()
	at := func(pts ...envoyPoint) int64 {
		for _, pt := range pts {
			if unit[pt] != 0 {
				return r.start + off[pt]
			}
		}
		return 0
	}
	for _, b := range [...][]byte{id, r.path, r.route, r.upstream, r.gateway, r.flags, r.traceID, r.model[0], r.model[1], r.model[2]} {
		if !utf8.Valid(b) {
			return record.FieldErrorf("value", record.ErrBadValue, "%q is not valid UTF-8", b)
		}
	}
	row.RequestID = string(id)
	row.Start = r.start
	if unit[ptDSTxEnd] != 0 && unit[ptDSTxEnd] < 1e6 {
		row.End = at(ptDSTxEnd)
	} else {
		row.End = at(ptDuration, ptDSTxEnd)
	}
	row.UpstreamStart = at(ptUSTxBeg, ptUSTxEnd)
	if row.UpstreamStart == 0 && (unit[ptUSRxBeg] != 0 || unit[ptUSRxBodyBeg] != 0 || unit[ptUSRxEnd] != 0) {
		// The upstream answered, so the request went out: about when it
		// had been received.
		row.UpstreamStart = at(ptDSRxEnd)
	}
	row.UpstreamFirstByte = at(ptUSRxBodyBeg, ptUSRxBeg)
	row.UpstreamEnd = at(ptUSRxEnd)
	row.Status = r.status
	if r.path != nil {
		row.Route = p.labels.Intern(scan.URLLabel(r.path))
	} else if r.route != nil {
		row.Route = p.labels.Intern(scan.URLLabel(r.route))
	}
	if r.upstream != nil {
		row.Upstream = p.labels.Intern(scan.URLLabel(r.upstream))
	}
	if r.gateway != nil {
		row.Gateway = p.labels.Intern(r.gateway)
	}
	if r.flags != nil {
		row.ResponseFlags = p.labels.Intern(r.flags)
	}
	if r.hasAttempts {
		row.Attempts = record.Int32Ptr(r.attempts)
	}
	for _, m := range r.model {
		if m != nil {
			row.Model = p.labels.Intern(m)
			break
		}
	}
	if r.hasIn {
		row.PromptTokens = record.Int32Ptr(r.in)
	}
	if r.hasOut {
		row.OutputTokens = record.Int32Ptr(r.out)
	}
	if r.hasTTFT {
		row.TTFTNS = record.NSPtr(r.ttft)
	}
	if r.traceID != nil {
		row.TraceID = string(r.traceID)
	}
	row.Format = formatEnvoy
	return nil
}
