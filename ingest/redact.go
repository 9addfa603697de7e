package ingest

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/infertrace/infertrace/ingest/scan"
)

// Redaction of rejected lines for rejects.jsonl. Logs carry user text
// (prompts, completions, request bodies, error messages quoting them) under
// any name and in any spelling, so a rejected line keeps only what cannot
// be such text: its structure, its numbers, and the string values of the
// members the formats read as IDs, times, numbers and labels. Every other
// string, and in a text line every run of words that is not a number, a
// time or an ID, is replaced by its length.

// keptValueMax is the longest string value kept: longer ones are not IDs,
// times or labels, whatever their member is called.
const keptValueMax = 128

// readPaths are the paths of the members whose string values the formats
// read as IDs, times, numbers (as strings) and labels, each where a format
// reads it: "request_id" at the top of a record, "span.name" in a TGI
// event, "resourceSpans[].scopeSpans[].spans[].traceId" in OTLP ("[]" is
// any element of an array; the records of a document that is an array
// are at its top). The name and spelling must match exactly: "id" under
// "user" or "name" under "messages[]" are user data, as is any member no
// format reads. Free-text members the formats read (error, message, uri,
// path) are not here: they can quote a request.
var readPaths = map[string]bool{}

// readNames are the last names of readPaths: member names shown as they
// are even when they look like an ID.
var readNames = map[string]bool{}

func init() {
	var top []string
	for _, names := range [][]string{
		// request, response, trace and span IDs
		{"request_id", "x_request_id", "x-request-id", "xrid", "http_x_request_id", "id", "rid", "response_id",
			"litellm_call_id", "trace_id", "span_id", "parent_id", "traceId", "spanId", "parentSpanId", "traceparent",
			"TRACE_ID", "STREAM_ID", "request_id_prefix"},
		// times and durations
		{"start", "end", "first_token", "arrival", "scheduled", "upstream_start", "upstream_end", "timestamp",
			"time", "date", "start_time", "end_time", "startTime", "endTime", "completionStartTime", "started_at",
			"time_iso8601", "time_local", "msec", "request_time", "upstream_response_time", "upstream_connect_time",
			"upstream_header_time", "duration", "request_start_ns", "request_end_ns", "request_start_time",
			"request_end_time", "first_token_time", "last_token_time", "arrival_time", "first_scheduled_time",
			"request_received_ts", "request_finished_ts", "response_sent_to_client_ts", "forward_entry_time",
			"prefill_finished_time", "e2e_latency", "queue_time", "inference_time", "validation_time", "total_time",
			"time_per_token", "START_TIME", "DURATION", "REQUEST_DURATION", "RESPONSE_DURATION", "ttft",
			"time_to_first_token", "request_latency", "token_latency_ttft", "created_at", "total_duration",
			"load_duration", "prompt_eval_duration", "eval_duration", "ttft_s", "end_to_end_latency_s",
			"inter_token_latency_s"},
		// numbers logged as strings
		{"status", "status_code", "response_code", "upstream_status", "prompt_tokens", "completion_tokens",
			"output_tokens", "input_tokens", "RESPONSE_CODE", "bytes_sent", "body_bytes_sent", "request_length",
			"tries", "prompt_eval_count", "eval_count", "number_input_tokens", "number_output_tokens", "error_code"},
		// labels
		{"model", "model_name", "model_group", "model_id", "model_version", "request_model", "response_model",
			"use_case", "client", "region", "route", "upstream", "upstream_addr", "gateway", "replica",
			"finish_reason", "call_type", "streamed", "method", "request_method", "name", "type", "object", "level",
			"event", "metric", "unit", "code", "kind", "backend", "endpoint_type", "x-ai-eg-model", "ROUTE_NAME",
			"UPSTREAM_HOST", "HOSTNAME", "RESPONSE_FLAGS", "done_reason"},
	} {
		top = append(top, names...)
	}
	nested := []string{
		// TGI: the span of an event, and its parents
		"span.name", "span.total_time", "span.queue_time", "span.inference_time", "span.validation_time",
		"span.time_per_token", "spans[].name", "spans[].total_time", "spans[].queue_time",
		"spans[].inference_time", "spans[].validation_time", "spans[].time_per_token",
		// vLLM's console span exporter
		"context.trace_id", "context.span_id", "status.status_code",
		// k6
		"data.time", "data.tags.request_id", "data.tags.x_request_id", "data.tags.status",
		"data.tags.error_code", "data.tags.method", "data.tags.name", "data.metadata.request_id",
		// Kong
		"request.id", "request.method", "request.headers.x-request-id", "response.status", "tries[].ip",
		"tries[].port", "started_at",
		// SGLang
		"finish_reason.type", "finish_reason.status_code", "meta_info.id", "meta_info.finish_reason.type",
		"out.meta_info.id", "out.meta_info.finish_reason.type",
		// AIPerf
		"metadata.x_request_id", "metadata.request_start_ns", "metadata.request_end_ns", "error.code", "error.type",
		// Triton
		"timestamps[].name", "timestamps[].ns",
		// TensorRT-LLM
		"perf_metrics.timing_metrics.arrival_time", "perf_metrics.timing_metrics.first_scheduled_time",
		"perf_metrics.timing_metrics.first_token_time", "perf_metrics.timing_metrics.last_token_time",
	}
	for _, m := range []string{"time_to_first_token", "ttft", "request_latency", "input_sequence_length", "error_isl",
		"output_sequence_length", "output_token_count"} {
		nested = append(nested, "metrics."+m+".value", "metrics."+m+".unit")
	}
	// OTLP JSON: spans, their events and links, log records, and the
	// attributes of each and of their resource.
	otlp := []string{"resourceSpans[].resource", "resourceLogs[].resource"}
	for _, sp := range []string{"resourceSpans[].scopeSpans[]", "resourceSpans[].instrumentationLibrarySpans[]"} {
		nested = append(nested, sp+".scope.name", sp+".scope.version")
		s := sp + ".spans[]"
		for _, n := range []string{"traceId", "spanId", "parentSpanId", "name", "kind", "startTimeUnixNano",
			"endTimeUnixNano", "status.code", "events[].name", "events[].timeUnixNano"} {
			nested = append(nested, s+"."+n)
		}
		otlp = append(otlp, s, s+".events[]", s+".links[]")
	}
	for _, l := range []string{"resourceLogs[].scopeLogs[].logRecords[]"} {
		for _, n := range []string{"timeUnixNano", "observedTimeUnixNano", "traceId", "spanId", "severityText",
			"severityNumber"} {
			nested = append(nested, l+"."+n)
		}
		otlp = append(otlp, l)
	}
	for _, o := range otlp {
		nested = append(nested, o+".attributes[].key", o+".attributes[].value.intValue",
			o+".attributes[].value.doubleValue", o+".attributes[].value.boolValue")
	}
	for _, p := range append(top, nested...) {
		readPaths[p] = true
		readNames[p[strings.LastIndexAny(p, ".]")+1:]] = true
	}
	for _, n := range []string{"resourceSpans", "scopeSpans", "spans", "resource", "attributes", "key", "value",
		"stringValue", "intValue", "doubleValue", "boolValue", "arrayValue", "kvlistValue", "values", "events",
		"links", "scope", "resourceLogs", "scopeLogs", "logRecords", "body"} {
		readNames[n] = true
	}
}

// redact returns raw with everything that could be user text replaced by
// its length. It works on text that may not be valid JSON (a truncated
// line) or not JSON at all (a text log line in a file of a JSON format, the
// first line of a file whose format was not recognised). paths are the
// format's own read paths besides readPaths (a mapping's).
func redact(raw []byte, paths []string) []byte {
	// JSON is an object or an array of composites or strings; "[2026-…]"
	// starts an Envoy text line, and an array of numbers reads the same
	// either way.
	if i := scan.SkipSpace(raw, 0); i < len(raw) && raw[i] == '{' {
		return redactJSON(raw, paths)
	} else if i < len(raw) && raw[i] == '[' {
		if j := scan.SkipSpace(raw, i+1); j < len(raw) && bytes.IndexByte([]byte(`{["]`), raw[j]) >= 0 {
			return redactJSON(raw, paths)
		}
	}
	return redactText(raw)
}

func appendRedacted(b []byte, n int) []byte {
	return fmt.Appendf(b, "<redacted %d bytes>", n)
}

// redactJSON keeps the brackets, the member names that are names a format
// reads or plain words, numbers and literals of a JSON line, and the string
// values at readPaths (or paths); an array's elements count as values of
// its member.
func redactJSON(raw []byte, paths []string) []byte {
	type frame struct {
		object bool
		path   string // of this object or array
		value  string // of its current member, or its elements
	}
	var stack []frame
	valuePath := func() string {
		if len(stack) == 0 {
			return ""
		}
		return stack[len(stack)-1].value
	}
	endMember := func() {
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].value = "\x00" // no path: nothing below is read
		}
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '{':
			stack = append(stack, frame{object: true, path: valuePath()})
			out = append(out, c)
			i++
		case c == '[':
			p := valuePath()
			stack = append(stack, frame{path: p, value: p + "[]"})
			out = append(out, c)
			i++
		case c == '}' || c == ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			endMember()
			out = append(out, c)
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ':':
			out = append(out, c)
			i++
		case c == ',':
			// A member's value ends at the comma: a string after it that
			// is not followed by a colon is not that member's value (a
			// line cut into pieces, words planted between members).
			endMember()
			out = append(out, c)
			i++
		case c == '"':
			end, escaped, err := scan.StringAt(raw, i+1)
			next := end + 1
			if err != nil { // cut off, or a bad escape: the rest of the line
				end, next, escaped = len(raw), len(raw), true
			}
			content := raw[i+1 : end]
			isName := err == nil && len(stack) > 0 && stack[len(stack)-1].object &&
				scan.SkipSpace(raw, next) < len(raw) && raw[scan.SkipSpace(raw, next)] == ':'
			switch {
			case isName:
				name, ok := scan.Unquote(content, escaped)
				if !ok {
					name = nil
				}
				f := &stack[len(stack)-1]
				f.value = "\x00" // a name that cannot be read: no path below it is
				if ok {
					f.value = joinPath(f.path, string(name))
				}
				if ok && shownName(name, paths) {
					out = append(append(append(out, '"'), name...), '"')
				} else {
					out = append(appendRedacted(append(out, '"'), len(content)), '"')
				}
			case !escaped && keptValue(valuePath(), content, paths):
				out = append(out, raw[i:next]...)
				endMember()
			default:
				out = append(appendRedacted(append(out, '"'), len(content)), '"')
				endMember()
			}
			i = next
		default:
			if e, ok := jsonScalar(raw, i); ok {
				out = append(out, raw[i:e]...)
				endMember()
				i = e
				continue
			}
			// Not JSON here: up to the next delimiter, hidden.
			e := i + 1
			for e < len(raw) && bytes.IndexByte([]byte("{}[]\":, \t\r\n"), raw[e]) < 0 {
				e++
			}
			out = appendRedacted(out, e-i)
			i = e
		}
	}
	return out
}

// joinPath is the path of member name of the object at path.
func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// readPath reports whether the value at path is one a format reads. The
// records of a document that is an array are at its top, and an array's
// elements are read as its member is.
func readPath(path string, paths []string) bool {
	for strings.HasPrefix(path, "[].") {
		path = path[len("[]."):]
	}
	if readPaths[path] || slices.Contains(paths, path) {
		return true
	}
	if p, ok := strings.CutSuffix(path, "[]"); ok {
		return readPath(p, paths)
	}
	return false
}

// jsonScalar returns the end of the number or literal at raw[i].
func jsonScalar(raw []byte, i int) (int, bool) {
	if c := raw[i]; c == '-' || '0' <= c && c <= '9' {
		e, err := scan.NumberAt(raw, i)
		return e, err == nil
	}
	for _, lit := range []string{"true", "false", "null"} {
		if bytes.HasPrefix(raw[i:], []byte(lit)) {
			return i + len(lit), true
		}
	}
	return 0, false
}

// shownName reports whether a member name is shown as is: a name the
// formats read, or a plain word that cannot be a key or a token (no digits,
// or a dotted lower-case attribute name like gen_ai.latency.e2e); any other
// name (a secret or a user's name used as a key) is hidden like a value.
func shownName(name []byte, paths []string) bool {
	if readNames[string(name)] {
		return true
	}
	for _, p := range paths {
		if strings.HasSuffix(p, string(name)) && (len(p) == len(name) || bytes.IndexByte([]byte(".]"), p[len(p)-len(name)-1]) >= 0) {
			return true
		}
	}
	if len(name) == 0 || len(name) > 40 {
		return false
	}
	digits := 0
	for _, c := range name {
		if !isIdentByte(c) {
			return false
		}
		if '0' <= c && c <= '9' {
			digits++
		}
	}
	return digits == 0 || attributeName(name)
}

// attributeName reports whether name is a dotted lower-case name whose
// parts have few digits: an OpenTelemetry attribute (gen_ai.prompt).
func attributeName(name []byte) bool {
	for _, part := range bytes.Split(name, []byte(".")) {
		digits := 0
		if len(part) == 0 || part[0] < 'a' || part[0] > 'z' {
			return false
		}
		for _, c := range part {
			switch {
			case '0' <= c && c <= '9':
				digits++
			case 'a' <= c && c <= 'z', c == '_', c == '-':
			default:
				return false
			}
		}
		if digits > 3 {
			return false
		}
	}
	return bytes.IndexByte(name, '.') >= 0
}

func isIdentByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '_' || c == '-' || c == '.' || c == ':' || c == '@' || c == '/' || c == '$'
}

// keptValue reports whether the (unescaped) string value at path is kept:
// a read value, short, without control characters and without what a URL
// carries secrets in (a query, a fragment, a user and password). OTLP
// attribute keys are kept when they are attribute names.
func keptValue(path string, v []byte, paths []string) bool {
	if len(v) > keptValueMax || !utf8.Valid(v) || len(scan.URLLabel(v)) != len(v) || hasCredential(v) {
		return false
	}
	for _, c := range v {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	if strings.HasSuffix(path, ".attributes[].key") {
		return attributeName(v) && readPath(path, paths)
	}
	return readPath(path, paths)
}

// hasCredential reports whether text holds a credential as redactText
// finds them ("Bearer …", "api_key=…").
func hasCredential(v []byte) bool {
	for i := 0; i < len(v); {
		if !isWordByte(v[i]) {
			i++
			continue
		}
		w, e := textWord(v, i)
		if w > i {
			if _, _, ok := secretAfter(v, i, w); ok {
				return true
			}
		}
		i = max(e, i+1)
	}
	return false
}

// redactText keeps, of a line that is not JSON, the punctuation and the
// words that are numbers, times or IDs. Every quoted string (a Python repr,
// an NGINX "$request") is hidden unless it is one such word, and every other
// run of words is replaced by its length, the spaces between them included.
// What is a credential whatever it looks like is hidden too: the value after
// a credential's name (api_key=…, token: …, password=…), after an
// authentication scheme (Bearer …, Basic …), the rest of an Authorization or
// Cookie header, a URL's query, and the ident and user of a Common Log
// Format line.
func redactText(raw []byte) []byte {
	out := make([]byte, 0, len(raw))
	if ident, user, ok := clfUser(raw); ok {
		out = redactText(raw[:ident[0]])
		for k, f := range [][2]int{ident, user} {
			if k == 1 {
				out = append(out, raw[ident[1]:user[0]]...)
			}
			if string(raw[f[0]:f[1]]) == "-" {
				out = append(out, '-')
			} else {
				out = appendRedacted(out, f[1]-f[0])
			}
		}
		return append(out, redactText(raw[user[1]:])...)
	}
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '"' || c == '\'':
			end, next := endQuote(raw, i)
			content := raw[i+1 : end]
			if len(content) == 0 || string(content) == "-" || keptWord(content) {
				out = append(out, raw[i:next]...)
			} else {
				out = appendRedacted(append(out, c), len(content))
				if next > end {
					out = append(out, c)
				}
			}
			i = next
			// {'api_key': 'sk-…'}, "token"="…": a quoted name's value.
			sep := i
			for sep < len(raw) && raw[sep] == ' ' {
				sep++
			}
			if cred, header := credentialName(content); cred && sep < len(raw) && (raw[sep] == ':' || raw[sep] == '=') {
				vs, ve := credentialValue(raw, sep, header)
				out = appendSecret(append(out, raw[i:vs]...), raw, vs, ve)
				i = ve
			}
		case c == '?' && i+1 < len(raw) && !isSpace(raw[i+1]):
			// A URL's query, up to the end of the URL.
			e := i + 1
			for e < len(raw) && !isSpace(raw[e]) && raw[e] != '"' && raw[e] != '\'' {
				e++
			}
			out = appendRedacted(append(out, c), e-i-1)
			i = e
		case isWordByte(c):
			w, e := textWord(raw, i)
			if w > i {
				if vs, ve, ok := secretAfter(raw, i, w); ok {
					// The name (hidden unless an ID), what joins it to its
					// value, and the value, hidden.
					if keptWord(raw[i:w]) {
						out = append(out, raw[i:w]...)
					} else {
						out = appendRedacted(out, w-i)
					}
					out = appendSecret(append(out, raw[w:vs]...), raw, vs, ve)
					i = ve
					continue
				}
			}
			if w == i || keptWord(raw[i:w]) { // punctuation, or a word kept
				out = append(out, raw[i:e]...)
				i = e
				continue
			}
			// Extend the run over spaces and the hidden words after them.
			end := w
			for {
				s := end
				for s < len(raw) && raw[s] == ' ' {
					s++
				}
				if s == end || s >= len(raw) || !isWordByte(raw[s]) {
					break
				}
				w2, _ := textWord(raw, s)
				if w2 == s || keptWord(raw[s:w2]) {
					break
				}
				if _, _, ok := secretAfter(raw, s, w2); ok {
					break
				}
				end = w2
			}
			out = appendRedacted(out, end-i)
			i = end
		default:
			out = append(out, c)
			i++
		}
	}
	return out
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// credentialNames are the names (lower case, without '-', '_' and '.')
// whose value is a credential or names a user, and credentialSuffixes the
// endings of such names (x-api-key, accessToken, db_password).
var (
	credentialNames = map[string]bool{
		"auth": true, "authorization": true, "proxyauthorization": true, "cookie": true, "setcookie": true,
		"key": true, "token": true, "secret": true, "password": true, "passwd": true, "pwd": true, "pass": true,
		"session": true, "sessionid": true, "sid": true, "signature": true, "sig": true, "credential": true,
		"credentials": true, "user": true, "username": true, "userid": true, "login": true, "email": true,
		"remoteuser": true, "jwt": true,
	}
	credentialSuffixes = []string{"key", "token", "secret", "password", "passwd", "auth", "authorization",
		"cookie", "credential", "credentials", "signature", "sessionid", "username", "jwt"}
	// headerNames are the credentials whose value runs to the end of the
	// line after "Name:" (Authorization: Digest username="…", realm="…").
	headerNames = map[string]bool{"authorization": true, "proxyauthorization": true, "cookie": true, "setcookie": true}
	// authSchemes are the HTTP authentication schemes, followed by the
	// credential.
	authSchemes = map[string]bool{"bearer": true, "basic": true, "digest": true, "negotiate": true, "ntlm": true, "apikey": true}
)

// credentialName reports whether a word names a credential; header
// whether it is one whose value runs to the end of the line.
func credentialName(w []byte) (cred, header bool) {
	if len(w) > 64 {
		return false, false
	}
	n := make([]byte, 0, len(w))
	for _, c := range w {
		switch {
		case c == '-' || c == '_' || c == '.':
		case 'A' <= c && c <= 'Z':
			n = append(n, c+'a'-'A')
		default:
			n = append(n, c)
		}
	}
	if credentialNames[string(n)] || headerNames[string(n)] {
		return true, headerNames[string(n)]
	}
	for _, suf := range credentialSuffixes {
		if bytes.HasSuffix(n, []byte(suf)) {
			return true, false
		}
	}
	return false, false
}

// secretAfter returns where the credential after the word raw[i:w] starts
// and ends, when the word is a credential's name followed by '=' or ':' or
// an authentication scheme followed by a space; a quoted value is its
// quotes and what they hold.
func secretAfter(raw []byte, i, w int) (start, end int, ok bool) {
	if w >= len(raw) {
		return 0, 0, false
	}
	if cred, header := credentialName(raw[i:w]); cred && (raw[w] == '=' || raw[w] == ':') {
		start, end = credentialValue(raw, w, header)
		return start, end, true
	}
	if authSchemes[string(bytes.ToLower(raw[i:w]))] && raw[w] == ' ' {
		j := w
		for j < len(raw) && raw[j] == ' ' {
			j++
		}
		return j, valueEnd(raw, j), true
	}
	return 0, 0, false
}

// credentialValue returns the span of the value after the '=' or ':' at
// raw[sep] that follows a credential's name.
func credentialValue(raw []byte, sep int, header bool) (start, end int) {
	j := sep + 1
	for j < len(raw) && (raw[j] == ' ' || raw[j] == '\t') {
		j++
	}
	if header && raw[sep] == ':' {
		e := j
		for e < len(raw) && raw[e] != '\n' && raw[e] != '\r' {
			e++
		}
		return j, e
	}
	// "Authorization=Bearer X", "token: Bearer X": the scheme's value too.
	if v, _ := textWord(raw, j); v > j {
		if _, e, ok := secretAfter(raw, j, v); ok && authSchemes[string(bytes.ToLower(raw[j:v]))] {
			return j, e
		}
	}
	return j, valueEnd(raw, j)
}

// valueEnd returns the end of the value at raw[j]: after its closing quote
// when it is quoted, else at the first space or delimiter.
func valueEnd(raw []byte, j int) int {
	if j < len(raw) && (raw[j] == '"' || raw[j] == '\'') {
		_, next := endQuote(raw, j)
		return next
	}
	e := j
	for e < len(raw) && !isSpace(raw[e]) && bytes.IndexByte([]byte("&;,\"')]}"), raw[e]) < 0 {
		e++
	}
	return e
}

// appendSecret appends the credential raw[start:end], hidden: a quoted one
// keeps its quotes.
func appendSecret(out, raw []byte, start, end int) []byte {
	if end > start && (raw[start] == '"' || raw[start] == '\'') {
		qend, next := endQuote(raw, start)
		return append(appendRedacted(append(out, raw[start]), qend-start-1), raw[qend:next]...)
	}
	if end > start {
		out = appendRedacted(out, end-start)
	}
	return out
}

// clfUser finds the ident and user fields of a Common Log Format line
// ("10.0.0.1 - alice [15/Jan/2026:10:00:02 +0000] …"): three fields
// before a '['.
func clfUser(raw []byte) (ident, user [2]int, ok bool) {
	var f [3][2]int
	i := 0
	for k := range f {
		s := i
		for i < len(raw) && raw[i] != ' ' && raw[i] != '\t' {
			i++
		}
		if i == s || i >= len(raw) || raw[i] != ' ' {
			return ident, user, false
		}
		f[k] = [2]int{s, i}
		i++
	}
	if i >= len(raw) || raw[i] != '[' || !isNumberWord(raw[f[0][0]:f[0][1]]) && !isHostWord(raw[f[0][0]:f[0][1]]) {
		return ident, user, false
	}
	return f[1], f[2], true
}

// isHostWord reports whether w is a host name or an IPv6 address.
func isHostWord(w []byte) bool {
	for _, c := range w {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == ':') {
			return false
		}
	}
	return len(w) > 0
}

func isWordByte(c byte) bool {
	return isIdentByte(c) && c != '$' || c == '+' || c == '%' || c >= 0x80
}

// textWord returns where the word at raw[i] ends without the punctuation
// that closes a phrase ("ID:", "ID.", "ID,"), and with it; word is i when
// there is only punctuation ("-", "::").
func textWord(raw []byte, i int) (word, end int) {
	end = i
	alnum := false
	for end < len(raw) && isWordByte(raw[end]) {
		c := raw[end]
		alnum = alnum || c >= 0x80 || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		end++
	}
	if !alnum {
		return i, end
	}
	word = end
	for raw[word-1] == '.' || raw[word-1] == ':' || raw[word-1] == ',' {
		word--
	}
	return word, end
}

// endQuote returns the end of the content of the string quoted at raw[i]
// and the index after its closing quote (both len(raw) when the line ends
// first); a backslash escapes the next byte.
func endQuote(raw []byte, i int) (end, next int) {
	q := raw[i]
	for j := i + 1; j < len(raw); j++ {
		switch raw[j] {
		case '\\':
			j++
		case q:
			return j, j + 1
		}
	}
	return len(raw), len(raw)
}

// keptWord reports whether a word of a text line is a number, a time or an
// ID: "200", "0.7", "10:00:00", "2026-11-30T10:00:00.5Z", "15/Jan/2026:10:00:02",
// "12ms", "10.0.0.15"; "chatcmpl-job-7", "req_01HX3", a UUID, a hex ID.
func keptWord(w []byte) bool {
	return isNumberWord(w) || isIDWord(w)
}

func isNumberWord(w []byte) bool {
	if len(w) == 0 || len(w) > 64 {
		return false
	}
	i := 0
	if w[0] == '-' || w[0] == '+' {
		i++
	}
	if i >= len(w) || w[i] < '0' || w[i] > '9' {
		return false
	}
	letters := 0
	for _, c := range w[i:] {
		switch {
		case '0' <= c && c <= '9', c == '.', c == ':', c == '/', c == '-', c == '+', c == ',', c == '%':
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
			letters++
		default:
			return false
		}
	}
	return letters <= 3
}

func isIDWord(w []byte) bool {
	if len(w) < 6 || len(w) > 64 {
		return false
	}
	digits, sep, hex := 0, false, true
	for _, c := range w {
		switch {
		case '0' <= c && c <= '9':
			digits++
		case c == '-' || c == '_':
			sep = true
		case 'a' <= c && c <= 'f', 'A' <= c && c <= 'F':
		case 'g' <= c && c <= 'z', 'G' <= c && c <= 'Z':
			hex = false
		default:
			return false
		}
	}
	return digits > 0 && (sep || hex && len(w) >= 8)
}

// errorClassMax is the most characters of an error class.
const errorClassMax = 80

// errorClass is what the error column keeps of an error text (unless
// Options.KeepErrorText): its first line, with quoted text, numbers,
// addresses (words with an '@'), URL queries and credentials masked, cut to
// errorClassMax characters. "CUDA out of memory. Tried to
// allocate 20.00 MiB" keeps "CUDA out of memory. Tried to allocate <n> MiB";
// an error quoting a request keeps "invalid request: <quoted>". Errors can
// quote a request, a user's name or a key.
func errorClass(s string) string {
	raw := []byte(s)
	if i := bytes.IndexAny(raw, "\r\n"); i >= 0 {
		raw = raw[:i]
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			_, next := endQuote(raw, i)
			out = append(out, "<quoted>"...)
			i = next
		case c == '?' && i+1 < len(raw) && !isSpace(raw[i+1]):
			e := i + 1
			for e < len(raw) && !isSpace(raw[e]) {
				e++
			}
			out = append(out, "?<query>"...)
			i = e
		case isWordByte(c):
			w, e := textWord(raw, i)
			if vs, ve, ok := secretAfter(raw, i, w); ok {
				out = append(append(out, raw[i:vs]...), "<secret>"...)
				i = ve
				continue
			}
			if bytes.IndexByte(raw[i:w], '@') >= 0 { // an address
				out = append(append(out, "<address>"...), raw[w:e]...)
				i = e
				continue
			}
			for j := i; j < e; {
				if d := digitRun(raw[:e], j); d > j {
					out = append(out, "<n>"...)
					j = d
				} else {
					out = append(out, raw[j])
					j++
				}
			}
			i = e
		case c < 0x20 || c == 0x7f:
			out = append(out, ' ')
			i++
		default:
			out = append(out, c)
			i++
		}
	}
	class := string(bytes.ToValidUTF8(bytes.TrimSpace(out), []byte("\uFFFD")))
	if utf8.RuneCountInString(class) > errorClassMax {
		class = string([]rune(class)[:errorClassMax-1])
		if lt := strings.LastIndexByte(class, '<'); lt > strings.LastIndexByte(class, '>') {
			class = class[:lt] // not in the middle of a mask
		}
		class += "…"
	}
	return class
}

// digitRun returns the end of the number at b[i] ("20.00", "1,024"), or i.
func digitRun(b []byte, i int) int {
	e := i
	for e < len(b) && ('0' <= b[e] && b[e] <= '9' || e > i && (b[e] == '.' || b[e] == ',') && e+1 < len(b) && '0' <= b[e+1] && b[e+1] <= '9') {
		e++
	}
	return e
}

// errorClasses caches errorClass for the error column of one sink: most
// rows share a few errors.
type errorClasses map[string]string

func (m errorClasses) of(s string) string {
	if s == "" {
		return ""
	}
	if c, ok := m[s]; ok {
		return c
	}
	c := errorClass(s)
	if len(m) < 1<<12 {
		m[s] = c
	}
	return c
}
