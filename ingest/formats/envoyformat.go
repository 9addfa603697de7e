package formats

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// Access-log format strings (Envoy's %OPERATOR% strings, NGINX's $variable
// log_format) are compiled once into a template: literals and fields, in
// order. A line is matched against the template by finding each literal
// after the field before it; a field's value is everything in between. When
// a later literal does not match (a quoted user agent holding the quote and
// space that follow it in the format), the matcher backtracks to the next
// occurrence of the literal, within a fixed step budget, so that a hostile
// line costs bounded time.

// lfPart is one piece of a template: a literal (field < 0) or a field.
type lfPart struct {
	lit   []byte
	field int
}

// lfClass says which values a field can take, so that the matcher can skip
// impossible splits early.
type lfClass uint8

const (
	lfAny     lfClass = iota // anything
	lfNumber                 // a number or "-": digits, sign, point, exponent
	lfToken                  // no spaces
	lfNoQuote                // no '"' but an escaped one (\"): NGINX's escaping
	// lfQuoted: a field between quotes ("%REQ(:AUTHORITY)%" "…") that
	// ends at the first occurrence of the literal after it, so that a
	// line with more quoted fields than its format does not match by
	// taking `a" "b` as one value (Envoy does not escape quotes in text).
	lfQuoted
)

type lfTemplate struct {
	parts []lfPart
	class []lfClass // per field
}

// A match may scan lfWorkPerByte times the line's length (plus
// lfWorkExtra) before it gives up, so that backtracking over a hostile line
// stays linear.
const (
	lfWorkPerByte = 32
	lfWorkExtra   = 4096
)

// addLit appends literal text, merging it with a literal before it.
func (t *lfTemplate) addLit(s string) {
	if s == "" {
		return
	}
	if n := len(t.parts); n > 0 && t.parts[n-1].field < 0 {
		t.parts[n-1].lit = append(t.parts[n-1].lit, s...)
		return
	}
	t.parts = append(t.parts, lfPart{lit: []byte(s), field: -1})
}

// addField appends a field of the given class and returns its index. Two
// fields with no literal between them cannot be told apart, unless the
// first is a number (then it ends where the digits end).
func (t *lfTemplate) addField(c lfClass) (int, error) {
	if n := len(t.parts); n > 0 && t.parts[n-1].field >= 0 && t.class[t.parts[n-1].field] != lfNumber {
		return 0, errors.New("two fields with nothing between them cannot be split")
	}
	i := len(t.class)
	t.class = append(t.class, c)
	t.parts = append(t.parts, lfPart{field: i})
	return i, nil
}

// lfValid reports whether v may be the value of field i; it lets a format
// check a value (a time in a custom layout) while the line is matched.
type lfValid func(field int, v []byte) bool

// match matches s against the template, filling vals (one per field) with
// subslices of s. Fields not in the template stay nil.
func (t *lfTemplate) match(s []byte, vals [][]byte, valid lfValid) bool {
	work := lfWorkPerByte*len(s) + lfWorkExtra
	return t.matchFrom(0, s, vals, valid, &work)
}

func (t *lfTemplate) matchFrom(i int, s []byte, vals [][]byte, valid lfValid, work *int) bool {
	for ; i < len(t.parts); i++ {
		if *work--; *work < 0 {
			return false
		}
		p := t.parts[i]
		if p.field < 0 {
			if !bytes.HasPrefix(s, p.lit) {
				return false
			}
			s = s[len(p.lit):]
			continue
		}
		c := t.class[p.field]
		if i+1 == len(t.parts) { // the last field takes the rest of the line
			if !lfClassOK(c, s, 0, len(s)) || (valid != nil && !valid(p.field, s)) {
				return false
			}
			vals[p.field] = s
			return true
		}
		next := t.parts[i+1]
		if next.field >= 0 { // a number directly followed by another field
			n := 0
			for n < len(s) && lfNumByte(s[n]) {
				n++
			}
			if valid != nil && !valid(p.field, s[:n]) {
				return false
			}
			vals[p.field] = s[:n]
			s = s[n:]
			continue
		}
		for off, checked := 0, 0; ; {
			k := bytes.Index(s[off:], next.lit)
			if k < 0 {
				return false
			}
			end := off + k
			if *work -= k + len(next.lit); *work < 0 {
				return false
			}
			if !lfClassOK(c, s, checked, end) {
				return false // a longer value would hold the same bad byte
			}
			checked = end
			v := s[:end]
			if valid == nil || valid(p.field, v) {
				vals[p.field] = v
				if *work -= len(v); *work < 0 { // what valid may have read
					return false
				}
				if t.matchFrom(i+2, s[end+len(next.lit):], vals, valid, work) {
					return true
				}
			}
			if c == lfQuoted {
				return false // no value past the first closing quote
			}
			off = end + 1
		}
	}
	return len(s) == 0
}

// quoteFields makes each field of any value that stands between a literal
// ending in '"' and one starting with '"' an lfQuoted field.
func (t *lfTemplate) quoteFields() {
	for i := 1; i+1 < len(t.parts); i++ {
		p, before, after := t.parts[i], t.parts[i-1], t.parts[i+1]
		if p.field >= 0 && t.class[p.field] == lfAny && before.field < 0 && after.field < 0 &&
			bytes.HasSuffix(before.lit, []byte{'"'}) && bytes.HasPrefix(after.lit, []byte{'"'}) {
			t.class[p.field] = lfQuoted
		}
	}
}

func lfNumByte(c byte) bool {
	return '0' <= c && c <= '9' || c == '-' || c == '.' || c == '+' || c == 'e' || c == 'E'
}

// lfClassOK checks v[from:to] of a value v that starts a field.
func lfClassOK(c lfClass, v []byte, from, to int) bool {
	switch c {
	case lfNumber:
		for _, b := range v[from:to] {
			if !lfNumByte(b) {
				return false
			}
		}
	case lfToken:
		return bytes.IndexByte(v[from:to], ' ') < 0
	case lfNoQuote:
		for i := from; i < to; i++ {
			if v[i] == '"' && (i == 0 || v[i-1] != '\\') {
				return false
			}
		}
	}
	return true
}

// lfMismatch is a line that does not fit its format; its kind is "syntax".
type lfMismatch struct{ msg string }

func (e *lfMismatch) Error() string { return e.msg }
func (e *lfMismatch) Unwrap() error { return record.ErrSyntax }

// Envoy's format strings: %COMMAND%, %COMMAND(ARG)% or %COMMAND(ARG):LEN%,
// COMMAND of A-Z, 0-9 and _, and %% for a literal % (envoy
// source/common/formatter/substitution_formatter.cc, SubstitutionFormatParser).

// envoyRole is what an operator's value fills in a gateway row.
type envoyRole uint8

const (
	erOpaque        envoyRole = iota
	erStart                   // %START_TIME%
	erEdge                    // a duration between two timing points
	erRequestID               // %REQ(X-REQUEST-ID)%
	erStreamID                // %STREAM_ID%: the request ID when x-request-id is not logged
	erPath                    // %REQ(:PATH)%, %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)%
	erRequestLine             // "METHOD PATH PROTOCOL" in one value (JSON keys only)
	erRouteName               // %ROUTE_NAME%
	erUpstream                // %UPSTREAM_HOST%
	erStatus                  // %RESPONSE_CODE%
	erFlags                   // %RESPONSE_FLAGS%
	erAttempts                // %UPSTREAM_REQUEST_ATTEMPT_COUNT%
	erGateway                 // %HOSTNAME%
	erTraceID                 // %TRACE_ID%
	erTraceparent             // %REQ(TRACEPARENT)%
	erModel                   // %REQ(X-AI-EG-MODEL)%: the model asked for
	erResponseModel           // the model that answered
	erModelOverride           // the model the AI gateway sent upstream
	erInputTokens             // io.envoy.ai_gateway llm_input_token
	erOutputTokens            // io.envoy.ai_gateway llm_output_token
	erTTFT                    // io.envoy.ai_gateway token_latency_ttft, ms
)

// Timing points of %COMMON_DURATION(START:END:PRECISION)% (envoy
// docs/root/configuration/advanced/substitution_formatter.rst), plus
// ptDuration, the end of %DURATION%, which may come after DS_TX_END.
type envoyPoint int8

const (
	ptNone envoyPoint = iota - 1
	ptDSRxBeg
	ptDSRxEnd
	ptUSCxBeg
	ptUSCxEnd
	ptUSHsEnd
	ptUSTxBeg
	ptUSTxEnd
	ptUSRxBeg
	ptUSRxBodyBeg
	ptUSRxEnd
	ptDSTxBeg
	ptDSTxEnd
	ptDuration
	numPoints
)

var envoyPoints = map[string]envoyPoint{
	"DS_RX_BEG": ptDSRxBeg, "DS_RX_END": ptDSRxEnd, "US_CX_BEG": ptUSCxBeg, "US_CX_END": ptUSCxEnd,
	"US_HS_END": ptUSHsEnd, "US_TX_BEG": ptUSTxBeg, "US_TX_END": ptUSTxEnd, "US_RX_BEG": ptUSRxBeg,
	"US_RX_BODY_BEG": ptUSRxBodyBeg, "US_RX_END": ptUSRxEnd, "DS_TX_BEG": ptDSTxBeg, "DS_TX_END": ptDSTxEnd,
}

// envoyOp is one compiled operator.
type envoyOp struct {
	cmd  string // COMMAND
	arg  string // (ARG), if any
	role envoyRole
	// erEdge: the duration runs from one point to another, in units of unit
	// nanoseconds (1e6 for the ms operators).
	from, to envoyPoint
	unit     int64
	// erStart: the layout of a custom %START_TIME(...)%; nil for the default
	// rendering (RFC 3339 with ms, UTC).
	layout *strftime
	local  bool // %START_TIME_LOCAL%: no zone unless the layout has one
	num    bool // an opaque number (a duration to a custom time point)
}

func (op *envoyOp) class() lfClass {
	if op.num {
		return lfNumber
	}
	switch op.role {
	case erEdge, erStatus, erAttempts, erInputTokens, erOutputTokens, erTTFT:
		return lfNumber
	case erStart:
		if op.layout == nil {
			return lfToken
		}
	case erOpaque:
		switch op.cmd {
		case "BYTES_RECEIVED", "BYTES_SENT", "UPSTREAM_WIRE_BYTES_SENT", "UPSTREAM_WIRE_BYTES_RECEIVED",
			"DOWNSTREAM_WIRE_BYTES_SENT", "DOWNSTREAM_WIRE_BYTES_RECEIVED", "REQUEST_HEADERS_BYTES",
			"RESPONSE_HEADERS_BYTES", "RESPONSE_TRAILERS_BYTES", "UPSTREAM_CONNECTION_POOL_READY_DURATION",
			"ROUNDTRIP_DURATION", "DOWNSTREAM_HANDSHAKE_DURATION":
			return lfNumber
		case "PROTOCOL", "UPSTREAM_PROTOCOL", "UPSTREAM_CLUSTER", "UPSTREAM_LOCAL_ADDRESS",
			"DOWNSTREAM_LOCAL_ADDRESS", "DOWNSTREAM_REMOTE_ADDRESS", "RESPONSE_CODE_DETAILS":
			return lfToken
		}
	case erUpstream, erFlags, erRequestID, erStreamID, erTraceID:
		return lfToken
	}
	return lfAny
}

// envoyFormat is a compiled Envoy text format string.
type envoyFormat struct {
	src  string
	ops  []envoyOp // one per field of tmpl
	tmpl lfTemplate
}

// compileEnvoyFormat compiles an Envoy text format string. A trailing line
// end (the "\n" every format string ends with, written as such or as the two
// characters \n) is dropped: ingest reads lines.
func compileEnvoyFormat(src string) (*envoyFormat, error) {
	s := strings.TrimRight(src, "\r\n")
	for strings.HasSuffix(s, `\n`) {
		s = strings.TrimRight(strings.TrimSuffix(s, `\n`), "\r\n")
	}
	f := &envoyFormat{src: src}
	var lit strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c != '%' {
			lit.WriteByte(c)
			i++
			continue
		}
		if i+1 < len(s) && s[i+1] == '%' {
			lit.WriteByte('%')
			i += 2
			continue
		}
		op, n, err := parseEnvoyCommand(s[i:])
		if err != nil {
			return nil, fmt.Errorf("envoy format at offset %d: %w", i, err)
		}
		f.tmpl.addLit(lit.String())
		lit.Reset()
		if _, err := f.tmpl.addField(op.class()); err != nil {
			return nil, fmt.Errorf("envoy format at offset %d (%%%s%%): %w", i, op.cmd, err)
		}
		f.ops = append(f.ops, op)
		i += n
	}
	f.tmpl.addLit(lit.String())
	if len(f.ops) == 0 {
		return nil, errors.New("envoy format has no %OPERATOR%")
	}
	f.tmpl.quoteFields()
	return f, nil
}

// parseEnvoyCommand parses %COMMAND(ARG):LEN% at the start of s and returns
// the operator and the bytes it took.
func parseEnvoyCommand(s string) (envoyOp, int, error) {
	i := 1
	for i < len(s) && (s[i] >= 'A' && s[i] <= 'Z' || s[i] >= '0' && s[i] <= '9' || s[i] == '_') {
		i++
	}
	cmd := s[1:i]
	if cmd == "" {
		return envoyOp{}, 0, errors.New("'%' not followed by a COMMAND of A-Z, 0-9 or _ (write %% for a literal %)")
	}
	var arg string
	if i < len(s) && s[i] == '(' {
		j := strings.IndexByte(s[i:], ')')
		if j < 0 {
			return envoyOp{}, 0, fmt.Errorf("%%%s( has no closing parenthesis", cmd)
		}
		arg = s[i+1 : i+j]
		i += j + 1
	}
	if i < len(s) && s[i] == ':' {
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i+1 {
			return envoyOp{}, 0, fmt.Errorf("%%%s: ':' not followed by a length", cmd)
		}
		i = j
	}
	if i >= len(s) || s[i] != '%' {
		return envoyOp{}, 0, fmt.Errorf("%%%s is not closed by '%%'", cmd)
	}
	op, err := envoyOperator(cmd, arg)
	return op, i + 1, err
}

// envoyOperator gives an operator its role; operators that fill nothing are
// opaque fields.
func envoyOperator(cmd, arg string) (envoyOp, error) {
	op := envoyOp{cmd: cmd, arg: arg}
	edge := func(from, to envoyPoint) {
		op.role, op.from, op.to, op.unit = erEdge, from, to, 1e6
	}
	switch cmd {
	case "START_TIME", "START_TIME_LOCAL":
		op.role = erStart
		op.local = cmd == "START_TIME_LOCAL"
		if arg != "" {
			l, err := compileStrftime(arg)
			if err != nil {
				return op, fmt.Errorf("%%%s(%s)%%: %w", cmd, arg, err)
			}
			if op.local && !l.zone {
				return op, fmt.Errorf("%%%s(%s)%%: a local time without %%z or %%s names no instant", cmd, arg)
			}
			op.layout = l
		}
	case "DURATION":
		edge(ptDSRxBeg, ptDuration)
	case "REQUEST_DURATION":
		edge(ptDSRxBeg, ptDSRxEnd)
	case "REQUEST_TX_DURATION":
		edge(ptDSRxBeg, ptUSTxEnd)
	case "RESPONSE_DURATION":
		edge(ptDSRxBeg, ptUSRxBeg)
	case "RESPONSE_TX_DURATION":
		edge(ptUSRxBeg, ptDSTxEnd)
	case "COMMON_DURATION":
		parts := strings.Split(arg, ":")
		if len(parts) != 3 {
			return op, fmt.Errorf("%%COMMON_DURATION(%s)%%: want START:END:PRECISION", arg)
		}
		units := map[string]int64{"ms": 1e6, "us": 1e3, "ns": 1}
		u, ok := units[parts[2]]
		if !ok {
			return op, fmt.Errorf("%%COMMON_DURATION(%s)%%: precision %q is not ms, us or ns", arg, parts[2])
		}
		from, ok1 := envoyPoints[parts[0]]
		to, ok2 := envoyPoints[parts[1]]
		if !ok1 || !ok2 {
			// A custom time point: a number, but no known instant.
			op.role, op.num = erOpaque, true
			return op, nil
		}
		op.role, op.from, op.to, op.unit = erEdge, from, to, u
	case "REQ", "REQUEST_HEADER":
		switch envoyHeaderRole(arg) {
		case "x-request-id":
			op.role = erRequestID
		case ":path", "x-envoy-original-path":
			op.role = erPath
		case "traceparent":
			op.role = erTraceparent
		case "x-ai-eg-model":
			op.role = erModel
		}
	case "REQ_WITHOUT_QUERY":
		if h := envoyHeaderRole(arg); h == ":path" || h == "x-envoy-original-path" {
			op.role = erPath
		}
	case "RESP", "RESPONSE_HEADER":
		if envoyHeaderRole(arg) == "x-envoy-upstream-service-time" {
			// The router's upstream service time: from the downstream
			// request's end to the upstream response headers, in ms
			// (envoy source/common/router/router.cc, onUpstreamHeaders).
			edge(ptDSRxEnd, ptUSRxBeg)
		}
	case "STREAM_ID":
		op.role = erStreamID
	case "ROUTE_NAME":
		op.role = erRouteName
	case "UPSTREAM_HOST":
		op.role = erUpstream
	case "RESPONSE_CODE":
		op.role = erStatus
	case "RESPONSE_FLAGS", "RESPONSE_FLAGS_LONG":
		op.role = erFlags
	case "UPSTREAM_REQUEST_ATTEMPT_COUNT":
		op.role = erAttempts
	case "HOSTNAME":
		op.role = erGateway
	case "TRACE_ID":
		op.role = erTraceID
	case "DYNAMIC_METADATA", "METADATA":
		ns, key, _ := strings.Cut(strings.TrimPrefix(arg, "DYNAMIC:"), ":")
		if ns == "io.envoy.ai_gateway" {
			op.role = aiGatewayKeyRole(key)
		}
	}
	return op, nil
}

// envoyHeaderRole returns the header an X?Y argument is about, lower case:
// the first of the two that ingest knows.
func envoyHeaderRole(arg string) string {
	main, alt, _ := strings.Cut(strings.ToLower(arg), "?")
	switch main {
	case "x-request-id", ":path", "x-envoy-original-path", "traceparent", "x-ai-eg-model", "x-envoy-upstream-service-time":
		return main
	}
	return alt
}

// aiGatewayKeyRole maps an io.envoy.ai_gateway dynamic metadata key
// (envoyproxy/ai-gateway internal/extproc; the token keys are the
// metadataKey names of the AIGatewayRoute llmRequestCosts, conventionally
// llm_input_token and llm_output_token).
func aiGatewayKeyRole(key string) envoyRole {
	switch key {
	case "llm_input_token", "input_token", "input_tokens":
		return erInputTokens
	case "llm_output_token", "output_token", "output_tokens":
		return erOutputTokens
	case "token_latency_ttft":
		return erTTFT
	case "model_name_override":
		return erModelOverride
	case "response_model":
		return erResponseModel
	}
	return erOpaque
}

// Default formats, matched in this order when no format string is given.
const (
	// envoy docs/root/configuration/observability/access_log/usage.rst,
	// "Default Format String".
	envoyDefaultFormat = `[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" ` +
		`%RESPONSE_CODE% %RESPONSE_FLAGS% %BYTES_RECEIVED% %BYTES_SENT% %DURATION% ` +
		`%RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% "%REQ(X-FORWARDED-FOR)%" "%REQ(USER-AGENT)%" ` +
		`"%REQ(X-REQUEST-ID)%" "%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%"` + "\n"
	// Istio's default text format, the same with details, cluster and
	// addresses.
	istioDefaultFormat = `[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" ` +
		`%RESPONSE_CODE% %RESPONSE_FLAGS% %RESPONSE_CODE_DETAILS% %CONNECTION_TERMINATION_DETAILS% ` +
		`"%UPSTREAM_TRANSPORT_FAILURE_REASON%" %BYTES_RECEIVED% %BYTES_SENT% %DURATION% ` +
		`%RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% "%REQ(X-FORWARDED-FOR)%" "%REQ(USER-AGENT)%" ` +
		`"%REQ(X-REQUEST-ID)%" "%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%" %UPSTREAM_CLUSTER% ` +
		`%UPSTREAM_LOCAL_ADDRESS% %DOWNSTREAM_LOCAL_ADDRESS% %DOWNSTREAM_REMOTE_ADDRESS% ` +
		`%REQUESTED_SERVER_NAME% %ROUTE_NAME%` + "\n"
	// Envoy Gateway's default (envoyproxy/gateway
	// internal/xds/translator/accesslog.go, EnvoyTextLogFormat): a text
	// format shaped like JSON, every value quoted and none escaped.
	envoyGatewayDefaultFormat = `{"start_time":"%START_TIME%","method":"%REQ(:METHOD)%",` +
		`"x-envoy-origin-path":"%REQ(X-ENVOY-ORIGINAL-PATH?:PATH)%","protocol":"%PROTOCOL%",` +
		`"response_code":"%RESPONSE_CODE%","response_flags":"%RESPONSE_FLAGS%",` +
		`"response_code_details":"%RESPONSE_CODE_DETAILS%",` +
		`"connection_termination_details":"%CONNECTION_TERMINATION_DETAILS%",` +
		`"upstream_transport_failure_reason":"%UPSTREAM_TRANSPORT_FAILURE_REASON%",` +
		`"bytes_received":"%BYTES_RECEIVED%","bytes_sent":"%BYTES_SENT%",` +
		`"duration":"%DURATION%","x-envoy-upstream-service-time":"%RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)%",` +
		`"x-forwarded-for":"%REQ(X-FORWARDED-FOR)%","user-agent":"%REQ(USER-AGENT)%",` +
		`"x-request-id":"%REQ(X-REQUEST-ID)%",":authority":"%REQ(:AUTHORITY)%",` +
		`"upstream_host":"%UPSTREAM_HOST%","upstream_cluster":"%UPSTREAM_CLUSTER%",` +
		`"upstream_local_address":"%UPSTREAM_LOCAL_ADDRESS%",` +
		`"downstream_local_address":"%DOWNSTREAM_LOCAL_ADDRESS%",` +
		`"downstream_remote_address":"%DOWNSTREAM_REMOTE_ADDRESS%",` +
		`"requested_server_name":"%REQUESTED_SERVER_NAME%","route_name":"%ROUTE_NAME%"}` + "\n"
)

// strftime is a compiled time layout, for %START_TIME(...)% and NGINX's
// $time_local. It parses what strftime printed with it.
type strftime struct {
	items []strfItem
	zone  bool // the layout names an instant: it has %z, %Z or %s
}

type strfItem struct {
	lit  string
	spec byte // 0 for a literal
	n    int  // digits of %Nf
}

func compileStrftime(layout string) (*strftime, error) {
	l := &strftime{}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			l.items = append(l.items, strfItem{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(layout); i++ {
		c := layout[i]
		if c != '%' {
			lit.WriteByte(c)
			continue
		}
		i++
		if i >= len(layout) {
			return nil, errors.New("layout ends with '%'")
		}
		n := 9
		if d := layout[i]; d >= '1' && d <= '9' && i+1 < len(layout) && layout[i+1] == 'f' {
			n = int(d - '0')
			i++
		}
		if layout[i] == 'E' && i+2 < len(layout) && layout[i+1] >= '1' && layout[i+1] <= '9' && layout[i+2] == 'S' {
			// absl's %E3S: seconds with 3 decimals.
			flush()
			l.items = append(l.items, strfItem{spec: 'S'}, strfItem{lit: "."}, strfItem{spec: 'f', n: int(layout[i+1] - '0')})
			i += 2
			continue
		}
		switch s := layout[i]; s {
		case '%':
			lit.WriteByte('%')
		case 'T':
			flush()
			l.items = append(l.items, strfItem{spec: 'H'}, strfItem{lit: ":"}, strfItem{spec: 'M'}, strfItem{lit: ":"}, strfItem{spec: 'S'})
		case 'F':
			flush()
			l.items = append(l.items, strfItem{spec: 'Y'}, strfItem{lit: "-"}, strfItem{spec: 'm'}, strfItem{lit: "-"}, strfItem{spec: 'd'})
		case 'Y', 'y', 'm', 'd', 'e', 'H', 'M', 'S', 'f', 's', 'z', 'Z', 'b', 'h', 'B', 'a', 'A', 'j', 'p', 'I':
			flush()
			if s == 'h' {
				s = 'b'
			}
			if s == 'z' || s == 'Z' || s == 's' {
				l.zone = true
			}
			l.items = append(l.items, strfItem{spec: s, n: n})
		default:
			return nil, fmt.Errorf("%%%c is not a supported time specifier", s)
		}
	}
	flush()
	return l, nil
}

var monthNames = [12]string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}

// parse returns the Unix nanoseconds of b, read in UTC unless the layout
// has a zone.
func (l *strftime) parse(b []byte) (int64, error) {
	year, month, day, hour, min, sec := 1970, 1, 1, 0, 0, 0
	yday, pm, h12 := 0, -1, false
	var frac, offset int64
	epoch := int64(-1)
	bad := scan.ErrTimeSyntax
	digits := func(max int, exact bool) (int, bool) {
		n, v := 0, 0
		for n < max && n < len(b) && b[n] >= '0' && b[n] <= '9' {
			v = v*10 + int(b[n]-'0')
			n++
		}
		if n == 0 || exact && n != max {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	var ok bool
	for _, it := range l.items {
		if it.spec == 0 {
			if !bytes.HasPrefix(b, []byte(it.lit)) {
				return 0, bad
			}
			b = b[len(it.lit):]
			continue
		}
		switch it.spec {
		case 'Y':
			year, ok = digits(4, true)
		case 'y':
			year, ok = digits(2, true)
			year += 2000
		case 'm':
			month, ok = digits(2, false)
		case 'd':
			day, ok = digits(2, false)
		case 'e':
			if len(b) > 0 && b[0] == ' ' {
				b = b[1:]
			}
			day, ok = digits(2, false)
		case 'H':
			hour, ok = digits(2, false)
		case 'I':
			hour, ok = digits(2, false)
			h12 = true
		case 'M':
			min, ok = digits(2, false)
		case 'S':
			sec, ok = digits(2, false)
		case 'j':
			yday, ok = digits(3, false)
		case 'f':
			n := 0
			frac = 0
			scale := int64(1e8)
			for n < it.n && n < len(b) && b[n] >= '0' && b[n] <= '9' {
				frac += int64(b[n]-'0') * scale
				scale /= 10
				n++
			}
			ok = n > 0
			b = b[n:]
		case 's':
			n := 0
			var v int64
			for n < len(b) && n < 12 && b[n] >= '0' && b[n] <= '9' {
				v = v*10 + int64(b[n]-'0')
				n++
			}
			ok = n > 0
			b = b[n:]
			epoch = v
		case 'z':
			ok = false
			if len(b) > 0 && (b[0] == 'Z' || b[0] == 'z') {
				b, ok = b[1:], true
				break
			}
			if len(b) >= 5 && (b[0] == '+' || b[0] == '-') {
				sign := int64(1)
				if b[0] == '-' {
					sign = -1
				}
				b = b[1:]
				var oh, om int
				if oh, ok = digits(2, true); !ok {
					break
				}
				if len(b) > 0 && b[0] == ':' {
					b = b[1:]
				}
				if om, ok = digits(2, true); ok {
					offset = sign * int64(oh*3600+om*60)
				}
			}
		case 'Z':
			n := 0
			for n < len(b) && (b[n] >= 'A' && b[n] <= 'Z' || b[n] >= 'a' && b[n] <= 'z') {
				n++
			}
			switch strings.ToUpper(string(b[:n])) {
			case "UTC", "GMT", "Z":
				ok = true
			default:
				return 0, fmt.Errorf("time zone %q is not UTC", b[:n])
			}
			b = b[n:]
		case 'b', 'B':
			ok = false
			if len(b) >= 3 {
				for i, m := range monthNames {
					if strings.EqualFold(string(b[:3]), m) {
						month, ok = i+1, true
						n := 3
						if it.spec == 'B' {
							for n < len(b) && (b[n] >= 'a' && b[n] <= 'z' || b[n] >= 'A' && b[n] <= 'Z') {
								n++
							}
						}
						b = b[n:]
						break
					}
				}
			}
		case 'a', 'A', 'p':
			n := 0
			for n < len(b) && (b[n] >= 'a' && b[n] <= 'z' || b[n] >= 'A' && b[n] <= 'Z') {
				n++
			}
			if it.spec == 'p' {
				switch strings.ToUpper(string(b[:n])) {
				case "AM":
					pm = 0
				case "PM":
					pm = 1
				}
			}
			ok = n > 0
			b = b[n:]
		}
		if !ok {
			return 0, bad
		}
	}
	if len(b) != 0 {
		return 0, bad
	}
	if epoch >= 0 {
		if epoch < scan.MinEpochSec || epoch > scan.MaxEpochSec {
			return 0, scan.ErrTimeRange
		}
		return epoch*1e9 + frac, nil
	}
	if h12 && pm >= 0 {
		hour = hour%12 + 12*pm
	}
	if yday > 0 {
		month, day = 1, 1
	}
	if month < 1 || month > 12 || day < 1 || day > scan.DaysIn(month, year) || hour > 23 || min > 59 || sec > 60 {
		return 0, bad
	}
	days := scan.DaysFromCivil(year, month, day) + int64(max(yday-1, 0))
	unix := days*86400 + int64(hour*3600+min*60+sec) - offset
	if unix < scan.MinEpochSec || unix > scan.MaxEpochSec {
		return 0, scan.ErrTimeRange
	}
	return unix*1e9 + frac, nil
}

// parseEnvoyTime parses Envoy's default %START_TIME% rendering,
// 2026-01-15T10:00:00.004Z, and the same with a numeric zone (+0100 or
// +01:00) as %START_TIME_LOCAL% prints it; epoch seconds are accepted too.
func parseEnvoyTime(b []byte) (int64, error) {
	if n := len(b); n > 5 && (b[n-5] == '+' || b[n-5] == '-') && b[n-3] != ':' && b[4] == '-' {
		var buf [48]byte
		if n+1 > len(buf) {
			return 0, scan.ErrTimeSyntax
		}
		c := append(buf[:0], b[:n-2]...)
		c = append(c, ':')
		b = append(c, b[n-2:]...)
	}
	ns, ok, err := scan.ParseTimeText(b)
	if err == nil && !ok {
		err = scan.ErrTimeSyntax
	}
	return ns, err
}

// parseScaledDecimal parses a decimal number (optionally signed, with a
// fraction) times unit nanoseconds, exactly for up to nine decimals.
func parseScaledDecimal(b []byte, unit int64) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	neg := false
	if b[0] == '-' || b[0] == '+' {
		neg = b[0] == '-'
		b = b[1:]
	}
	var whole, frac int64
	i := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		whole = whole*10 + int64(b[i]-'0')
		if whole > (1<<62)/unit {
			return 0, false
		}
	}
	if i == 0 {
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		scale := unit / 10 // digits below one ns are dropped
		n := 0
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			frac += int64(b[i]-'0') * scale
			scale /= 10
			n++
		}
		if n == 0 {
			return 0, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil || f != f || f > 1e12 || f < -1e12 {
			return 0, false
		}
		v := int64(f * float64(unit))
		if neg {
			v = -v
		}
		return v, true
	}
	if i != len(b) {
		return 0, false
	}
	v := whole*unit + frac
	if neg {
		v = -v
	}
	return v, true
}
