package formats

// The nginx gateway format: NGINX access logs, one request per line,
// written with a log_format given by --nginx-format
// (Options.FormatOptions["nginx-format"]): the format string with $variables
// and ${variables}, as in nginx.conf, quoted pieces, "escape=" and a
// trailing ";" allowed. Without one, lines are read as the predefined
// "combined" format, and JSON lines (escape=json formats) by member names:
// a member named like a variable (msec, request_time, upstream_addr…; "-"
// read as "_") holds that variable, and x_request_id / x-request-id the
// client's request ID.
//
// NGINX logs a request when it has sent the last byte, and all its times
// are on the gateway's clock:
//
//	End      $msec, the time of the log write (seconds with ms resolution);
//	         without it $time_iso8601 or $time_local (whole seconds)
//	Start    End − $request_time (from the first byte read from the client)
//
// The upstream variables hold one value per attempt: ", " separates servers
// tried in one upstream group, " : " an internal redirect to another group,
// "-" a missing value. Attempts counts them; the times are of the last
// attempt, the one whose response the client got. Each upstream time is
// measured from that attempt's own start, which NGINX does not log, so the
// attempt is placed to end at the log write:
//
//	UpstreamEnd       End (assumes the response is logged as soon as the
//	                  upstream response is finished, as it is when NGINX
//	                  streams it)
//	UpstreamStart     UpstreamEnd − last $upstream_response_time, not before
//	                  Start
//	UpstreamFirstByte UpstreamStart + last $upstream_header_time (response
//	                  headers, not the first token of a stream)
//
// So UpstreamStart − Start holds all the gateway's own time: reading the
// request, the failed attempts before the last and the (usually short)
// flush of the response after the upstream finished; the last attempt's
// length is exact to the ms. Upstream is the last $upstream_addr, Status
// $status, Route the path of $request_uri, $request or $uri without its
// query, Gateway $hostname, TraceID that of $http_traceparent.
//
// RequestID is chosen by Options.FormatOptions["nginx-request-id"]:
// "http_x_request_id" (the client's X-Request-ID), "request_id" (NGINX's
// own, which only joins if NGINX forwards it upstream) or "auto" (the
// default): $req_id when the line has one, else $http_x_request_id, else
// $request_id. $req_id is the ID ingress-nginx logs (its upstreaminfo
// format ends with it) and forwards upstream as X-Request-ID: the
// client's X-Request-ID, else $request_id (map $http_x_request_id
// $req_id { default $http_x_request_id; "" $request_id; }, a map many
// nginx.conf files copy). A line with none is rejected, except a line of a
// format that logs no ID variable at all (combined, or a timing format such as
// `... rt=$request_time urt="$upstream_response_time"`): its row is kept
// without one. The analysis matches such a row to a server record by time
// when its format logs a duration ($request_time), and counts it
// otherwise; a combined row has no start (no $request_time, only
// $time_local, the second the response ended) and is counted, never
// joined. Such a line without its time ("[]") is rejected: nothing of its
// row would be known. A format with neither an ID nor a time variable is
// refused.

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

const formatNginx = "nginx"

// The predefined combined format (nginx ngx_http_log_module).
const nginxCombined = `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"`

var nginxDefaultConfig = mustNginxConfig("", "")

func init() {
	record.RegisterOption(record.Option{Name: "nginx-format", Value: "FORMAT",
		Usage: "NGINX log_format string of nginx gateway logs (default: combined, or escape=json lines)"})
	record.RegisterOption(record.Option{Name: "nginx-request-id", Value: "VARIABLE", Default: "auto",
		Usage: "which NGINX variable is the request ID: auto, http_x_request_id or request_id"})
	def := nginxDefaultConfig
	record.Register(&record.Format{
		Tier:      record.Gateway,
		Name:      formatNginx,
		Sniff:     sniffNginx,
		NewParser: func() record.LineParser[record.GatewayRow] { return newNginxParser(def) },
		Options:   nginxOptions,
		// An access log of an unknown format is most often NGINX with a
		// log_format of its own: named first.
		AccessLogHint: &record.AccessLogHint{Flag: "--nginx-format", Rank: 1, Suggest: suggestNginxFormat},
	})
}

func nginxOptions(opts map[string]string) (any, error) {
	cfg, err := compileNginxConfig(opts["nginx-format"], opts["nginx-request-id"])
	if err != nil {
		return nil, err
	}
	return func() record.LineParser[record.GatewayRow] { return newNginxParser(cfg) }, nil
}

func mustNginxConfig(src, id string) *nginxConfig {
	c, err := compileNginxConfig(src, id)
	if err != nil {
		panic(err)
	}
	return c
}

// nginxVar is what a variable fills in a gateway row.
type nginxVar uint8

const (
	nvOpaque nginxVar = iota
	nvMsec
	nvRequestTime
	nvTimeISO
	nvTimeLocal
	nvRequestID
	nvXRequestID
	nvStatus
	nvRequest
	nvRequestURI
	nvURI
	nvUpstreamAddr
	nvUpstreamConnect
	nvUpstreamHeader
	nvUpstreamResponse
	nvHostname
	nvTraceparent
	nvReqID
)

var nginxVars = map[string]nginxVar{
	"msec": nvMsec, "request_time": nvRequestTime, "time_iso8601": nvTimeISO, "time_local": nvTimeLocal,
	"request_id": nvRequestID, "http_x_request_id": nvXRequestID, "status": nvStatus, "request": nvRequest,
	"request_uri": nvRequestURI, "uri": nvURI, "document_uri": nvURI, "upstream_addr": nvUpstreamAddr,
	"upstream_connect_time": nvUpstreamConnect, "upstream_header_time": nvUpstreamHeader,
	"upstream_response_time": nvUpstreamResponse, "hostname": nvHostname, "http_traceparent": nvTraceparent,
	"req_id": nvReqID,
}

// nginxClass is the value class of a variable in a line.
func nginxClass(name string) lfClass {
	switch name {
	case "msec", "request_time", "status", "body_bytes_sent", "bytes_sent", "request_length",
		"connection", "connection_requests", "content_length", "server_port", "remote_port":
		return lfNumber
	case "request_id", "remote_addr", "remote_user", "server_addr", "scheme", "server_protocol",
		"request_method", "hostname", "host", "uri", "request_uri":
		return lfToken
	}
	return lfAny
}

// Request-ID choices.
const (
	nginxIDAuto = iota
	nginxIDClient
	nginxIDOwn
)

type nginxConfig struct {
	src   string
	tmpl  lfTemplate
	vars  []nginxVar // per field
	names []string   // per field
	json  bool       // escape=json: values are JSON-escaped
	// conventional: no format was given, so JSON lines are read by member
	// names.
	conventional bool
	id           int
	lists        []bool  // per field: an upstream list
	valid        lfValid // checks the lists while matching; nil without them
	// noID: the format has no $request_id, $http_x_request_id or $req_id
	// (combined, or a timing format without an ID): its rows are kept
	// without one.
	noID bool
}

// compileNginxConfig compiles a log_format (empty: combined) and the
// request-ID choice.
func compileNginxConfig(src, id string) (*nginxConfig, error) {
	c := &nginxConfig{}
	switch strings.TrimPrefix(strings.ToLower(strings.TrimSpace(id)), "$") {
	case "", "auto":
		c.id = nginxIDAuto
	case "http_x_request_id", "x-request-id", "x_request_id":
		c.id = nginxIDClient
	case "request_id":
		c.id = nginxIDOwn
	default:
		return nil, fmt.Errorf("--nginx-request-id %q: want auto, http_x_request_id or request_id", id)
	}
	format, escape, err := nginxFormatString(src)
	if err != nil {
		return nil, fmt.Errorf("--nginx-format: %w", err)
	}
	c.json = escape == "json"
	if format == "" || format == "combined" {
		c.conventional = strings.TrimSpace(src) == ""
		format = nginxCombined
	}
	c.src = format
	var lit strings.Builder
	for i := 0; i < len(format); {
		if format[i] != '$' {
			lit.WriteByte(format[i])
			i++
			continue
		}
		name, n := nginxVarName(format[i:])
		if name == "" {
			return nil, fmt.Errorf("--nginx-format at offset %d: '$' not followed by a variable name", i)
		}
		name = strings.ToLower(name)
		c.tmpl.addLit(lit.String())
		lit.Reset()
		class := nginxClass(name)
		if class == lfAny && escape != "none" {
			class = lfNoQuote
		}
		if _, err := c.tmpl.addField(class); err != nil {
			return nil, fmt.Errorf("--nginx-format at offset %d ($%s): %w", i, name, err)
		}
		c.vars = append(c.vars, nginxVars[name])
		c.names = append(c.names, name)
		list := strings.HasPrefix(name, "upstream_") && !strings.HasPrefix(name, "upstream_http_") &&
			!strings.HasPrefix(name, "upstream_cookie_") && !strings.HasPrefix(name, "upstream_trailer_")
		c.lists = append(c.lists, list)
		if list {
			c.valid = c.listValid
		}
		i += n
	}
	c.tmpl.addLit(lit.String())
	if strings.TrimSpace(src) != "" && !c.conventional {
		has := func(v nginxVar) bool {
			for _, x := range c.vars {
				if x == v {
					return true
				}
			}
			return false
		}
		switch {
		case c.id == nginxIDClient && !has(nvXRequestID):
			return nil, fmt.Errorf("--nginx-request-id http_x_request_id: the log_format has no $http_x_request_id")
		case c.id == nginxIDOwn && !has(nvRequestID):
			return nil, fmt.Errorf("--nginx-request-id request_id: the log_format has no $request_id")
		case !has(nvXRequestID) && !has(nvRequestID) && !has(nvReqID) && !has(nvMsec) && !has(nvTimeLocal) && !has(nvTimeISO):
			return nil, fmt.Errorf("--nginx-format logs no request ID and no time ($msec, $time_local or $time_iso8601): its rows could join nothing; add $request_id or $http_x_request_id, and $msec")
		}
	}
	c.noID = !slices.Contains(c.vars, nvRequestID) && !slices.Contains(c.vars, nvXRequestID) && !slices.Contains(c.vars, nvReqID)
	return c, nil
}

// timeName names the time variable a line of the format must have when
// it has no ID: the first of msec, time_iso8601 and time_local it logs.
func (c *nginxConfig) timeName() string {
	for _, v := range []nginxVar{nvMsec, nvTimeISO, nvTimeLocal} {
		if i := slices.Index(c.vars, v); i >= 0 {
			return c.names[i]
		}
	}
	return "msec"
}

// listValid says whether v can be the value of field i: an upstream list
// has spaces only in its separators, ", " and " : ", so that an unquoted
// list is not cut at its first space.
func (c *nginxConfig) listValid(i int, v []byte) bool {
	if !c.lists[i] {
		return true
	}
	for j := 0; j < len(v); j++ {
		if v[j] != ' ' {
			continue
		}
		switch {
		case j > 0 && v[j-1] == ',':
		case j+2 < len(v) && v[j+1] == ':' && v[j+2] == ' ':
			j += 2
		default:
			return false
		}
	}
	return len(v) == 0 || v[len(v)-1] != ','
}

// nginxVarName reads $name or ${name} at the start of s.
func nginxVarName(s string) (string, int) {
	if len(s) > 1 && s[1] == '{' {
		j := strings.IndexByte(s, '}')
		if j < 3 || !nginxNameOK(s[2:j]) {
			return "", 0
		}
		return s[2:j], j + 1
	}
	j := 1
	for j < len(s) && nginxNameByte(s[j]) {
		j++
	}
	return s[1:j], j
}

func nginxNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func nginxNameOK(s string) bool {
	for i := 0; i < len(s); i++ {
		if !nginxNameByte(s[i]) {
			return false
		}
	}
	return s != ""
}

// nginxFormatString accepts a log_format as written in nginx.conf: an
// optional "log_format NAME", an optional escape=default|json|none, then
// the format as one bare string or as quoted pieces ('…' "…") that NGINX
// joins, and an optional ";". It returns the format and the escaping.
func nginxFormatString(src string) (format, escape string, err error) {
	s := strings.TrimSpace(src)
	s = strings.TrimSpace(strings.TrimSuffix(s, ";"))
	if rest, ok := strings.CutPrefix(s, "log_format"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n') {
		rest = strings.TrimSpace(rest)
		if i := strings.IndexAny(rest, " \t\n"); i >= 0 {
			s = strings.TrimSpace(rest[i:])
		} else {
			s = "" // log_format NAME: nothing else
		}
	}
	if rest, ok := strings.CutPrefix(s, "escape="); ok {
		i := strings.IndexAny(rest, " \t\n")
		if i < 0 {
			i = len(rest)
		}
		escape = rest[:i]
		if escape != "default" && escape != "json" && escape != "none" {
			return "", "", fmt.Errorf("escape=%s: want default, json or none", escape)
		}
		s = strings.TrimSpace(rest[i:])
	}
	if s == "" || (s[0] != '\'' && s[0] != '"') {
		return s, escape, nil
	}
	var b strings.Builder
	for s != "" {
		q := s[0]
		if q != '\'' && q != '"' {
			return "", "", fmt.Errorf("text %q between quoted pieces", s)
		}
		i := 1
		for ; i < len(s) && s[i] != q; i++ {
			if s[i] == '\\' && i+1 < len(s) {
				i++
				switch s[i] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				case 'r':
					b.WriteByte('\r')
				default:
					b.WriteByte(s[i])
				}
				continue
			}
			b.WriteByte(s[i])
		}
		if i >= len(s) {
			return "", "", fmt.Errorf("unterminated %c quote", q)
		}
		s = strings.TrimSpace(s[i+1:])
	}
	return b.String(), escape, nil
}

// The log_format shapes most NGINX access logs are written in, for the
// suggestion of an unrecognised log (suggestNginxFormat), most specific
// first: nginx.conf's main (combined and $http_x_forwarded_for), main or
// combined with the timings of NGINX's monitoring guide (rt=, uct=, uht=,
// urt=) or the same times quoted, and combined itself. None logs a request
// ID: their rows are matched by time where they log $request_time, and the
// suggestion is also the place to add $request_id.
const nginxMain = nginxCombined + ` "$http_x_forwarded_for"`

const nginxTimingsNamed = ` rt=$request_time uct="$upstream_connect_time" uht="$upstream_header_time" urt="$upstream_response_time"`

const nginxTimingsQuoted = ` "$request_time" "$upstream_connect_time" "$upstream_header_time" "$upstream_response_time"`

var nginxCommonFormats = []string{
	nginxMain + nginxTimingsNamed,
	nginxCombined + nginxTimingsNamed,
	nginxMain + nginxTimingsQuoted,
	nginxCombined + nginxTimingsQuoted,
	nginxMain + " $request_time",
	nginxCombined + " $request_time",
	nginxMain,
	"combined",
}

// suggestNginxFormat returns the first of nginxCommonFormats that reads
// every non-blank one of lines into a row (at least one), else "".
func suggestNginxFormat(lines [][]byte) string {
	for _, src := range nginxCommonFormats {
		p := newNginxParser(mustNginxConfig(src, ""))
		n, ok := 0, true
		for _, l := range lines {
			if len(bytes.TrimSpace(l)) == 0 {
				continue
			}
			var q record.RowQueue[record.GatewayRow]
			if err := p.ParseLine(l, &q); err != nil || len(q.Rows) == 0 {
				ok = false
				break
			}
			n++
		}
		if ok && n > 0 {
			return src
		}
	}
	return ""
}

// sniffNginx accepts a JSON object with msec and request_time members, or a
// line of the combined format.
func sniffNginx(line []byte) bool {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return false
	}
	if line[0] == '{' {
		var msec, rt bool
		err := scan.Object(line, func(k []byte, esc bool, _ scan.Value) error {
			switch string(scan.MemberKey(k, esc)) {
			case "msec":
				msec = true
			case "request_time":
				rt = true
			}
			return nil
		})
		return err == nil && msec && rt
	}
	c := nginxDefaultConfig
	vals := make([][]byte, len(c.vars))
	if !c.tmpl.match(line, vals, nil) {
		return false
	}
	for i, v := range c.vars {
		if v == nvTimeLocal {
			if _, err := nginxTimeLocal.parse(vals[i]); err != nil {
				return false
			}
		}
	}
	return true
}

var nginxTimeLocal, _ = compileStrftime("%d/%b/%Y:%H:%M:%S %z")

type nginxParser struct {
	cfg    *nginxConfig
	labels scan.Labels
	vals   [][]byte
	rec    nginxRec
}

func newNginxParser(cfg *nginxConfig) *nginxParser {
	return &nginxParser{cfg: cfg, vals: make([][]byte, len(cfg.vars))}
}

type nginxRec struct {
	end, coarseEnd, rt       int64
	hasEnd, hasCoarse, hasRT bool
	rid, xrid, reqid         []byte
	request, requestURI, uri []byte
	hostname, traceparent    []byte
	addr, header, resp       []byte
	status                   int32
	noID                     bool // the format logs no ID: none to require
}

func (p *nginxParser) ParseLine(line []byte, out *record.RowQueue[record.GatewayRow]) error {
	p.rec = nginxRec{}
	c := p.cfg
	if c.conventional {
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] == '{' {
			if err := p.jsonLine(t); err != nil {
				return err
			}
			return p.row(out.Next())
		}
	}
	vals := p.vals
	clear(vals)
	if !c.tmpl.match(line, vals, c.valid) {
		if c.conventional {
			return &lfMismatch{msg: "line does not match the combined format; give its log_format with --nginx-format"}
		}
		return &lfMismatch{msg: "line does not match the --nginx-format log_format"}
	}
	p.rec.noID = c.noID
	for i, v := range c.vars {
		if vals[i] == nil || v == nvOpaque {
			continue
		}
		b := vals[i]
		if bytes.IndexByte(b, '\\') >= 0 {
			b = nginxUnescape(b, c.json)
		}
		if err := p.set(v, c.names[i], b); err != nil {
			return err
		}
	}
	return p.row(out.Next())
}

func (p *nginxParser) jsonLine(line []byte) error {
	return scan.Object(line, func(k []byte, esc bool, v scan.Value) error {
		key := scan.MemberKey(k, esc)
		var nv nginxVar
		var ok bool
		switch string(key) {
		case "x_request_id", "x-request-id", "xrid":
			nv, ok = nvXRequestID, true
		default:
			nv, ok = nginxVars[string(key)]
			if !ok && bytes.IndexByte(key, '-') >= 0 {
				nv, ok = nginxVars[strings.ReplaceAll(string(key), "-", "_")]
			}
		}
		if !ok {
			return nil
		}
		b, ok, err := memberText(key, v)
		if !ok || err != nil {
			return err
		}
		return p.set(nv, string(key), b)
	})
}

// nginxUnescape undoes NGINX's escaping of a value: \xHH by default, JSON's
// escapes with escape=json. A malformed escape is left as it is.
func nginxUnescape(b []byte, json bool) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' || i+1 >= len(b) {
			out = append(out, c)
			continue
		}
		switch n := b[i+1]; {
		case !json && n == 'x' && i+3 < len(b) && scan.IsHex(b[i+2]) && scan.IsHex(b[i+3]):
			out = append(out, byte(scan.Hex4(b[i+2:i+4])))
			i += 3
		case json && n == 'u' && i+5 < len(b) && scan.IsHex(b[i+2]) && scan.IsHex(b[i+3]) && scan.IsHex(b[i+4]) && scan.IsHex(b[i+5]):
			out = utf8.AppendRune(out, scan.Hex4(b[i+2:i+6]))
			i += 5
		case json && strings.IndexByte(`"\/`, n) >= 0:
			out = append(out, n)
			i++
		case json && strings.IndexByte("bfnrt", n) >= 0:
			out = append(out, "\b\f\n\r\t"[strings.IndexByte("bfnrt", n)])
			i++
		default:
			out = append(out, c)
		}
	}
	return out
}

// set records one variable's value; "-" and "" are NGINX's missing value.
func (p *nginxParser) set(v nginxVar, name string, b []byte) error {
	r := &p.rec
	if len(b) == 0 || len(b) == 1 && b[0] == '-' {
		return nil
	}
	switch v {
	case nvMsec:
		ns, err := scan.ParseEpochSeconds(b)
		if err != nil {
			return record.FieldErrorf("msec", record.ErrBadTime, "%q: %v", b, err)
		}
		r.end, r.hasEnd = ns, true
	case nvRequestTime:
		ns, ok := parseScaledDecimal(b, 1e9)
		if !ok || ns < 0 {
			return record.FieldErrorf("request_time", record.ErrBadValue, "want seconds, got %q", b)
		}
		r.rt, r.hasRT = ns, true
	case nvTimeISO, nvTimeLocal:
		var ns int64
		var err error
		if v == nvTimeISO {
			ns, err = scan.ParseRFC3339(b)
		} else {
			ns, err = nginxTimeLocal.parse(b)
		}
		if err != nil {
			return record.FieldErrorf(name, record.ErrBadTime, "%q: %v", b, err)
		}
		r.coarseEnd, r.hasCoarse = ns, true
	case nvStatus:
		n, ok := parseScaledDecimal(b, 1)
		if !ok || n < 0 || n > 999 {
			return record.FieldErrorf("status", record.ErrBadValue, "want an HTTP status, got %q", b)
		}
		r.status = int32(n)
	case nvRequestID:
		r.rid = b
	case nvXRequestID:
		r.xrid = b
	case nvReqID:
		r.reqid = b
	case nvRequest:
		r.request = b
	case nvRequestURI:
		r.requestURI = b
	case nvURI:
		r.uri = b
	case nvUpstreamAddr:
		r.addr = b
	case nvUpstreamConnect:
		// within $upstream_header_time: nothing more to place
	case nvUpstreamHeader:
		r.header = b
	case nvUpstreamResponse:
		r.resp = b
	case nvHostname:
		r.hostname = b
	case nvTraceparent:
		r.traceparent = b
	}
	return nil
}

// nginxList reads an upstream variable's list: its number of elements and
// the last one. Elements are separated by ", " (servers of one group) and
// " : " (groups, after an internal redirect); "-" is a missing value.
func nginxList(b []byte) (n int, last []byte) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return 0, nil
	}
	for {
		i := bytes.Index(b, []byte(", "))
		j := bytes.Index(b, []byte(" : "))
		k, w := i, 2
		if j >= 0 && (i < 0 || j < i) {
			k, w = j, 3
		}
		n++
		if k < 0 {
			last = bytes.TrimSpace(b)
			break
		}
		b = b[k+w:]
	}
	if len(last) == 1 && last[0] == '-' {
		last = nil
	}
	return n, last
}

func (p *nginxParser) row(row *record.GatewayRow) error {
	r := &p.rec
	var id []byte
	switch p.cfg.id {
	case nginxIDAuto:
		id = r.reqid
		if id == nil {
			id = r.xrid
		}
		if id == nil {
			id = r.rid
		}
	case nginxIDClient:
		id = r.xrid
	case nginxIDOwn:
		id = r.rid
	}
	if id == nil && r.noID && !r.hasEnd && !r.hasCoarse {
		// A line of a format without an ID and without its time (a
		// combined line's "[]") would be a row of nothing known.
		return record.Missing(p.cfg.timeName())
	}
	if id == nil && !r.noID {
		switch p.cfg.id {
		case nginxIDClient:
			return record.Missing("http_x_request_id")
		case nginxIDOwn:
			return record.Missing("request_id")
		}
		if slices.Contains(p.cfg.vars, nvReqID) {
			return record.Missing("req_id, http_x_request_id or request_id")
		}
		return record.Missing("request_id or http_x_request_id")
	}
	switch {
	case r.hasEnd:
		row.End = r.end
	case r.hasCoarse:
		row.End = r.coarseEnd
	}
	if row.End != 0 && r.hasRT {
		row.Start = row.End - r.rt
	}
	attempts, addr := nginxList(r.addr)
	nResp, lastResp := nginxList(r.resp)
	if attempts == 1 && addr == nil { // "-": no upstream
		attempts = 0
	}
	if attempts == 0 && lastResp != nil {
		attempts = nResp
	}
	if attempts > 0 {
		row.Attempts = record.Int32Ptr(int32(min(attempts, 1<<20)))
	}
	if lastResp != nil && row.End != 0 {
		rt, ok := parseScaledDecimal(lastResp, 1e9)
		if !ok || rt < 0 {
			return record.FieldErrorf("upstream_response_time", record.ErrBadValue, "want seconds, got %q", lastResp)
		}
		row.UpstreamEnd = row.End
		row.UpstreamStart = row.End - rt
		if row.Start != 0 && row.UpstreamStart < row.Start {
			row.UpstreamStart = row.Start // ms rounding of two values
		}
		if _, lastHdr := nginxList(r.header); lastHdr != nil {
			ht, ok := parseScaledDecimal(lastHdr, 1e9)
			if !ok || ht < 0 {
				return record.FieldErrorf("upstream_header_time", record.ErrBadValue, "want seconds, got %q", lastHdr)
			}
			row.UpstreamFirstByte = min(row.UpstreamStart+ht, row.UpstreamEnd)
		}
	}
	path := r.requestURI
	if path == nil && r.request != nil {
		// METHOD URI PROTOCOL
		if _, rest, ok := bytes.Cut(r.request, []byte(" ")); ok {
			path, _, _ = bytes.Cut(rest, []byte(" "))
		}
	}
	if path == nil {
		path = r.uri
	}
	path = scan.URLLabel(path)
	trace := traceparentID(r.traceparent)
	for _, b := range [...][]byte{id, path, addr, r.hostname, trace} {
		if !utf8.Valid(b) {
			return record.FieldErrorf("value", record.ErrBadValue, "%q is not valid UTF-8", b)
		}
	}
	row.RequestID = string(id)
	row.Status = r.status
	if len(path) > 0 {
		row.Route = p.labels.Intern(path)
	}
	if addr != nil {
		row.Upstream = p.labels.Intern(scan.URLLabel(addr))
	}
	if r.hostname != nil {
		row.Gateway = p.labels.Intern(r.hostname)
	}
	if trace != nil {
		row.TraceID = string(trace)
	}
	row.Format = formatNginx
	return nil
}
