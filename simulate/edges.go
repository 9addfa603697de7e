package simulate

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// The gateway and client formats Config.Formats can choose per host, named
// as ingest names them (envoy-json is read by ingest's envoy format). Each
// writes what the real system logs, in its units, from the same simulated
// request as the native line:
//
//   - envoy (gateway/<host>.envoy.log): Envoy's default text access log
//     format. %START_TIME% is the gateway's wall clock truncated to the
//     millisecond; %DURATION% (first byte received to last byte sent) and
//     x-envoy-upstream-service-time (upstream start to response headers:
//     the first token of a streamed response, else the whole response) are
//     whole milliseconds of the host's clock, truncated as Envoy's ms
//     operators are. It logs no upstream times: the reader places only
//     start and end, and the TTFT split that needs the upstream times is
//     not possible. A 429 is "429 RL" with no upstream, a client that had
//     gone (native 499) "0 DC".
//   - envoy-json (gateway/<host>.envoy.jsonl): a typed json_format with
//     %START_TIME% (ms) and %START_TIME(%s.%6f)% as start_time_us,
//     Envoy's ms operators (duration, request_duration,
//     request_tx_duration, response_duration, response_tx_duration) and
//     %COMMON_DURATION(DS_RX_BEG:P:us)% for P = US_TX_BEG, US_RX_BEG,
//     US_RX_END and DS_TX_END (keys us_tx_beg_us, …), each truncated to
//     its unit; null where there was no upstream.
//   - nginx (gateway/<host>.nginx.jsonl): an escape=json log_format (see
//     nginxLogFormat) with $msec (the log write, wall clock, ms resolution
//     as NGINX caches it: truncated), $request_time and the upstream
//     times in seconds with three decimals: differences of two
//     ms-truncated readings, as NGINX computes them. $request_id is
//     NGINX's own (32 hex, from the request), $http_x_request_id the
//     client's. One request in 25 (by its ID) had a first attempt refused
//     by another replica of its model: the upstream variables then list
//     two attempts, ", " separated ("502, 200"; "0.000, 1.234"). A 429
//     (limit_req) has empty upstream variables, as escape=json writes
//     unset ones.
//   - nginx-combined (gateway/<host>.nginx.log): NGINX's predefined
//     combined format: $remote_addr - $remote_user [$time_local]
//     "$request" $status $body_bytes_sent "$http_referer"
//     "$http_user_agent". $time_local is the log write (the gateway's end)
//     truncated to the second; no request ID and no duration, so ingest
//     keeps its rows without an ID and the analysis can join none of them.
//   - otel-gateway (gateway/<host>.otel.jsonl): an otelhttp-instrumented
//     Go gateway's spans as the collector's file exporter writes them: per
//     request a SERVER span (start and end = the gateway's start and end,
//     Unix ns) with http.request.header.x-request-id as a string[], and,
//     when it forwarded the request, a CLIENT child span (upstream start
//     and end) with otelhttptrace's http.receive.start event at the
//     response headers. One TracesData per line, each a batch of the
//     requests that ended within 200 ms of its first (at most 64); one
//     request in 8 (by its ID) has its CLIENT span exported in one batch
//     and its SERVER span in the next, as a tracer exports each span when
//     it ends.
//   - aiperf (client/<host>.aiperf.jsonl): AIPerf profile_export.jsonl
//     records: metadata.x_request_id, request_start_ns and request_end_ns
//     (epoch ns, the client's wall clock), time_to_first_token and
//     request_latency in ms (floats of the host's ns durations), error
//     objects for failed, timed-out and cancelled requests.
//   - jsonl (client/<host>.app.jsonl, with the mapping <Out>/client.toml
//     for ingest's --map): an application's own JSON log of nested objects,
//     times in integer epoch microseconds (truncated), every mapped member
//     present on every line (null when absent).
//
// Imperfections keep their meaning per record: a lost record is not
// written, a truncated one is its line cut before the end (for
// otel-gateway a line of that request's spans alone), a duplicated one its
// line written twice (otel-gateway: its whole batch line). A format's
// first line is never a cut one. Everything that is not drawn for native
// (NGINX's request ID, the retried requests, the split span pairs, trace
// and span IDs) is derived from the request ID, so the simulation, the
// truth and the other hosts' files are the same for every choice.

// Gateway and client format names (native is FormatNative).
const (
	FormatEnvoy     = "envoy"
	FormatEnvoyJSON = "envoy-json"
	FormatNginx     = "nginx"
	// FormatNginxCombined is read by ingest's nginx format.
	FormatNginxCombined = "nginx-combined"
	FormatOTelGateway   = "otel-gateway"
	FormatAIPerf        = "aiperf"
	FormatJSONL         = "jsonl"
)

// GatewayFormats and ClientFormats list the formats gateway and client
// hosts can write.
var (
	GatewayFormats = []string{FormatNative, FormatEnvoy, FormatEnvoyJSON, FormatNginx, FormatNginxCombined, FormatOTelGateway}
	ClientFormats  = []string{FormatNative, FormatAIPerf, FormatJSONL}
)

// Time formats of the gateway and client formats, in clocks.csv.
const (
	FormatRFC3339MillisTrunc = "rfc3339-utc-ms-truncated" // Envoy's %START_TIME%
	FormatEpochMicrosTrunc   = "epoch-us-truncated"       // %START_TIME(%s.%6f)%, jsonl's integer µs
	FormatEpochMillisTrunc   = "epoch-ms-truncated"       // NGINX $msec
	FormatTimeLocalSecTrunc  = "time-local-s-truncated"   // NGINX $time_local
)

var edgeTimeFormat = map[string]string{
	FormatEnvoy:         FormatRFC3339MillisTrunc,
	FormatEnvoyJSON:     FormatEpochMicrosTrunc,
	FormatNginx:         FormatEpochMillisTrunc,
	FormatNginxCombined: FormatTimeLocalSecTrunc,
	FormatOTelGateway:   FormatUnixNanos,
	FormatAIPerf:        FormatUnixNanos,
	FormatJSONL:         FormatEpochMicrosTrunc,
}

// edgeFileName is the log file of a gateway or client host writing format.
func edgeFileName(host, format string) string {
	switch format {
	case FormatNative:
		return host + ".jsonl"
	case FormatEnvoy:
		return host + ".envoy.log"
	case FormatEnvoyJSON:
		return host + ".envoy.jsonl"
	case FormatOTelGateway:
		return host + ".otel.jsonl"
	case FormatNginxCombined:
		return host + ".nginx.log"
	case FormatJSONL:
		return host + ".app.jsonl"
	}
	return host + "." + format + ".jsonl"
}

// edgeFileNames lists every name a gateway's or client's log may have had.
func edgeFileNames(host string, formats []string) []string {
	var names []string
	for _, f := range formats {
		names = append(names, edgeFileName(host, f))
	}
	return names
}

// ClientMappingFile is the mapping file written next to the client
// directory when a client host writes jsonl: ingest --map reads it.
const ClientMappingFile = "client.toml"

const clientMapping = `# The mapping of the simulated clients' application log (client/*.app.jsonl), for
# infertrace ingest --client 'jsonl:client/*.app.jsonl' --map client.toml.
tier = "client"

[fields]
request_id = "req.id"
start = { path = "timing.start_us", unit = "us", clock = "client host wall clock" }
first_token = { path = "timing.first_token_us", unit = "us", clock = "client host wall clock" }
end = { path = "timing.end_us", unit = "us", clock = "client host wall clock" }
status = "resp.status"
error = "resp.error"
streamed = "req.stream"
model = "req.model"
use_case = "req.use_case"
client = "host.name"
region = "host.region"
prompt_tokens = "usage.prompt_tokens"
output_tokens = "usage.completion_tokens"
`

// writeClientMapping writes <Out>/client.toml when a client writes jsonl,
// or removes one an earlier run left.
func (s *sim) writeClientMapping(formats []string) error {
	path := filepath.Join(s.cfg.Out, ClientMappingFile)
	for _, f := range formats {
		if f == FormatJSONL {
			if err := os.WriteFile(path, []byte(clientMapping), 0o644); err != nil {
				return err
			}
			s.clientMapping = ClientMappingFile
			return nil
		}
	}
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// edgeWriter writes one gateway's or client's records in a format other
// than native. write gets the record's fate with what was drawn for it
// (cut for a native line of n bytes, after).
type edgeWriter interface {
	write(s *sim, r *request, fate, cut, n, after int)
	close(s *sim)
}

func (s *sim) newEdgeWriter(hf *hostFile, format string) edgeWriter {
	hf.holdFirstCut = true
	switch format {
	case FormatEnvoy:
		return &envoyWriter{hf: hf}
	case FormatEnvoyJSON:
		return &envoyWriter{hf: hf, json: true}
	case FormatNginx:
		return &nginxWriter{hf: hf}
	case FormatNginxCombined:
		return &nginxCombinedWriter{hf: hf}
	case FormatOTelGateway:
		return &otelGatewayWriter{hf: hf}
	case FormatAIPerf:
		return &aiperfWriter{hf: hf}
	case FormatJSONL:
		return &appLogWriter{hf: hf}
	}
	panic("simulate: no writer for " + format)
}

// hostOf is hf's host clock reading of true time t, in Unix ns.
func (s *sim) hostOf(hf *hostFile, t int64) int64 { return hf.clock.hostNs(s.epochNs, t) }

// floorDiv is a / b rounded toward −∞.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// idHash is a number derived from a request ID and a salt.
func idHash(id, salt string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(salt))
	h.Write([]byte(id))
	return h.Sum64()
}

// gatewayStatus is the status the gateway logs natively (499 when the
// client had gone before the response was sent).
func (s *sim) gatewayStatus(r *request) int {
	status := s.upstreamStatus(r)
	if r.gaveUp && r.cEnd < r.gEnd {
		status = 499
	}
	return status
}

// upstreamHeaders is when the response headers came back from the server:
// with the first token of a streamed response, else with the whole one.
func upstreamHeaders(r *request) int64 {
	if r.streamed && r.srvErr == 0 {
		return r.sFirst + r.hopDown
	}
	return r.upEnd
}

func clientAddr(r *request) string { return fmt.Sprintf("10.%d.0.%d", 10+r.region, 20+r.client) }

var userAgents = []string{"openai-python/1.54.3", "python-requests/2.32.3", "Go-http-client/1.1"}

func bytesReceived(r *request) int { return 180 + 4*r.prompt }

func bytesSent(r *request, status int) int {
	switch {
	case status == 429:
		return 18
	case status >= 500:
		return 92
	case r.streamed:
		return 40 + 175*r.out
	}
	return 320 + 4*r.out
}

// ---- envoy, envoy-json ----

type envoyWriter struct {
	hf   *hostFile
	json bool
	b    []byte
}

func (w *envoyWriter) write(s *sim, r *request, fate, cut, n, after int) {
	w.hf.writeDrawn(w.line(s, r), fate, cut, n, after, 1)
}

func (w *envoyWriter) close(*sim) {}

func (w *envoyWriter) line(s *sim, r *request) []byte {
	hf := w.hf
	start := s.hostOf(hf, r.gStart)
	dur := func(t int64) int64 { return s.hostOf(hf, t) - start } // ns since DS_RX_BEG, host clock
	status := s.gatewayStatus(r)
	code, flags := status, "-"
	switch status {
	case 429:
		flags = "RL"
	case 499:
		code, flags = 0, "DC"
	}
	route := useCases[r.useCase].route
	ua := userAgents[r.client%len(userAgents)]
	startMs := time.Unix(0, floorDiv(start, 1e6)*1e6).UTC().Format("2006-01-02T15:04:05.000Z")
	durMs := dur(r.gEnd) / 1e6
	b := w.b[:0]
	if !w.json {
		b = append(b, '[')
		b = append(b, startMs...)
		b = append(b, `] "POST `...)
		b = append(b, route...)
		b = append(b, ` HTTP/1.1" `...)
		b = strconv.AppendInt(b, int64(code), 10)
		b = append(b, ' ')
		b = append(b, flags...)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(bytesReceived(r)), 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(bytesSent(r, status)), 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, durMs, 10)
		b = append(b, ' ')
		if r.forwarded {
			b = strconv.AppendInt(b, (s.hostOf(hf, upstreamHeaders(r))-s.hostOf(hf, r.upStart))/1e6, 10)
		} else {
			b = append(b, '-')
		}
		b = append(b, ` "`...)
		b = append(b, clientAddr(r)...)
		b = append(b, `" "`...)
		b = append(b, ua...)
		b = append(b, `" "`...)
		b = append(b, r.id...)
		b = append(b, `" "llm-gw.example.internal" "`...)
		if r.forwarded {
			b = append(b, r.replica.name...)
			b = append(b, ":8000"...)
		} else {
			b = append(b, '-')
		}
		b = append(b, "\"\n"...)
		w.b = b
		return b
	}
	str := func(k, v string) {
		b = append(b, `,"`...)
		b = append(b, k...)
		b = append(b, `":`...)
		b = strconv.AppendQuote(b, v)
	}
	num := func(k string, v int64) {
		b = append(b, `,"`...)
		b = append(b, k...)
		b = append(b, `":`...)
		b = strconv.AppendInt(b, v, 10)
	}
	null := func(k string) {
		b = append(b, `,"`...)
		b = append(b, k...)
		b = append(b, `":null`...)
	}
	b = append(b, `{"start_time":"`...)
	b = append(b, startMs...)
	us := floorDiv(start, 1e3)
	b = append(b, `","start_time_us":"`...)
	b = strconv.AppendInt(b, floorDiv(us, 1e6), 10)
	b = append(b, '.')
	b = append(b, fmt.Sprintf("%06d", us-floorDiv(us, 1e6)*1e6)...)
	b = append(b, '"')
	str("method", "POST")
	str("path", route)
	str("protocol", "HTTP/1.1")
	num("response_code", int64(code))
	str("response_flags", flags)
	num("bytes_received", int64(bytesReceived(r)))
	num("bytes_sent", int64(bytesSent(r, status)))
	num("duration", durMs)
	num("request_duration", 0) // the request body is in by the first byte's read
	if r.forwarded {
		hdr := upstreamHeaders(r)
		num("request_tx_duration", dur(r.upStart)/1e6)
		num("response_duration", dur(hdr)/1e6)
		num("response_tx_duration", (s.hostOf(hf, r.gEnd)-s.hostOf(hf, hdr))/1e6)
		str("x-envoy-upstream-service-time", strconv.FormatInt((s.hostOf(hf, hdr)-s.hostOf(hf, r.upStart))/1e6, 10))
		num("us_tx_beg_us", dur(r.upStart)/1e3)
		num("us_rx_beg_us", dur(hdr)/1e3)
		num("us_rx_end_us", dur(r.upEnd)/1e3)
	} else {
		null("request_tx_duration")
		null("response_duration")
		null("response_tx_duration")
		null("x-envoy-upstream-service-time")
		null("us_tx_beg_us")
		null("us_rx_beg_us")
		null("us_rx_end_us")
	}
	num("ds_tx_end_us", dur(r.gEnd)/1e3)
	str("x-forwarded-for", clientAddr(r))
	str("user-agent", ua)
	str("x-request-id", r.id)
	str(":authority", "llm-gw.example.internal")
	if r.forwarded {
		str("upstream_host", r.replica.name+":8000")
		str("upstream_cluster", "llm-"+models[r.model].name)
		num("upstream_request_attempt_count", 1)
	} else {
		null("upstream_host")
		null("upstream_cluster")
		null("upstream_request_attempt_count")
	}
	str("route_name", "llm")
	str("hostname", hf.clock.Host)
	b = append(b, "}\n"...)
	w.b = b
	return b
}

// ---- nginx ----

// The log_format the nginx writer's lines follow (nginxLogFormat):
//
//	log_format llm escape=json {"time_iso8601":"$time_iso8601","msec":$msec,"request_id":"$request_id","http_x_request_id":"$http_x_request_id","remote_addr":"$remote_addr","request":"$request","status":$status,"request_length":$request_length,"body_bytes_sent":$body_bytes_sent,"request_time":$request_time,"upstream_addr":"$upstream_addr","upstream_status":"$upstream_status","upstream_connect_time":"$upstream_connect_time","upstream_header_time":"$upstream_header_time","upstream_response_time":"$upstream_response_time","hostname":"$hostname"};

type nginxWriter struct {
	hf *hostFile
	b  []byte
}

// nginxRetried says whether a request had a refused first attempt.
func nginxRetried(r *request) bool { return r.forwarded && idHash(r.id, "nginx-retry")%25 == 0 }

// otherReplica is another replica of r's model (the refused attempt's).
func (s *sim) otherReplica(r *request) string {
	for _, rep := range s.byModel[r.model] {
		if rep != r.replica {
			return rep.name
		}
	}
	return "10.1.9.9"
}

// nginxCombinedWriter writes NGINX's combined format.
type nginxCombinedWriter struct {
	hf *hostFile
	b  []byte
}

func (w *nginxCombinedWriter) write(s *sim, r *request, fate, cut, n, after int) {
	w.hf.writeDrawn(w.line(s, r), fate, cut, n, after, 1)
}

func (w *nginxCombinedWriter) close(*sim) {}

func (w *nginxCombinedWriter) line(s *sim, r *request) []byte {
	end := floorDiv(s.hostOf(w.hf, r.gEnd), 1e9) // $time_local: whole seconds
	status := s.gatewayStatus(r)
	b := append(w.b[:0], clientAddr(r)...)
	b = append(b, " - - ["...)
	b = time.Unix(end, 0).UTC().AppendFormat(b, "02/Jan/2006:15:04:05 -0700")
	b = append(b, `] "POST `...)
	b = append(b, useCases[r.useCase].route...)
	b = append(b, ` HTTP/1.1" `...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(bytesSent(r, status)), 10)
	b = append(b, ` "-" "`...)
	b = append(b, userAgents[idHash(r.id, "user-agent")%uint64(len(userAgents))]...)
	b = append(b, "\"\n"...)
	w.b = b
	return b
}

// appendMsecs appends ms milliseconds as NGINX prints seconds: %T.%03M.
func appendMsecs(b []byte, ms int64) []byte {
	b = strconv.AppendInt(b, ms/1000, 10)
	b = append(b, '.')
	return append(b, fmt.Sprintf("%03d", ms%1000)...)
}

func (w *nginxWriter) write(s *sim, r *request, fate, cut, n, after int) {
	w.hf.writeDrawn(w.line(s, r), fate, cut, n, after, 1)
}

func (w *nginxWriter) close(*sim) {}

func (w *nginxWriter) line(s *sim, r *request) []byte {
	hf := w.hf
	msec := func(t int64) int64 { return floorDiv(s.hostOf(hf, t), 1e6) } // NGINX's cached ms time
	end := msec(r.gEnd)
	status := s.gatewayStatus(r)
	b := append(w.b[:0], `{"time_iso8601":"`...)
	b = time.Unix(floorDiv(end, 1000), 0).UTC().AppendFormat(b, "2006-01-02T15:04:05+00:00")
	b = append(b, `","msec":`...)
	b = appendMsecs(b, end)
	b = append(b, `,"request_id":"`...)
	b = append(b, fmt.Sprintf("%016x%016x", idHash(r.id, "nginx-id-1"), idHash(r.id, "nginx-id-2"))...)
	b = append(b, `","http_x_request_id":`...)
	b = strconv.AppendQuote(b, r.id)
	b = append(b, `,"remote_addr":"`...)
	b = append(b, clientAddr(r)...)
	b = append(b, `","request":"POST `...)
	b = append(b, useCases[r.useCase].route...)
	b = append(b, ` HTTP/1.1","status":`...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, `,"request_length":`...)
	b = strconv.AppendInt(b, int64(bytesReceived(r)), 10)
	b = append(b, `,"body_bytes_sent":`...)
	b = strconv.AppendInt(b, int64(bytesSent(r, status)), 10)
	b = append(b, `,"request_time":`...)
	b = appendMsecs(b, end-msec(r.gStart))
	var addr, ustatus, connect, header, response string
	if r.forwarded {
		up := msec(r.upStart)
		last := r.replica.name + ":8000"
		hdr := appendMsecs(nil, msec(upstreamHeaders(r))-up)
		resp := appendMsecs(nil, msec(r.upEnd)-up)
		st := strconv.Itoa(s.upstreamStatus(r))
		addr, ustatus, connect, header, response = last, st, "0.000", string(hdr), string(resp)
		if nginxRetried(r) {
			addr = s.otherReplica(r) + ":8000, " + addr
			ustatus = "502, " + ustatus
			connect = "-, " + connect
			header = "-, " + header
			response = "0.000, " + response
		}
	}
	str := func(k, v string) {
		b = append(b, `,"`...)
		b = append(b, k...)
		b = append(b, `":"`...)
		b = append(b, v...)
		b = append(b, '"')
	}
	str("upstream_addr", addr)
	str("upstream_status", ustatus)
	str("upstream_connect_time", connect)
	str("upstream_header_time", header)
	str("upstream_response_time", response)
	str("hostname", hf.clock.Host)
	b = append(b, "}\n"...)
	w.b = b
	return b
}

// ---- otel-gateway ----

type otelGatewayWriter struct {
	hf      *hostFile
	spans   []byte
	held    []byte // SERVER spans exported in the next batch
	records int    // SERVER spans in spans
	heldN   int
	n       int // requests in the batch (besides held-back SERVER spans it starts with)
	start   int64
	dup     bool
	after   int
	line    []byte
}

// otelSplit says whether a request's SERVER span is exported in the batch
// after its CLIENT span's.
func otelSplit(r *request) bool { return r.forwarded && idHash(r.id, "otel-split")%8 == 0 }

func (w *otelGatewayWriter) serverSpan(s *sim, r *request) []byte {
	hf := w.hf
	route := useCases[r.useCase].route
	status := s.gatewayStatus(r)
	b := []byte(`{"traceId":"`)
	b = append(b, hexID(r.id, "gw-trace", 16)...)
	b = append(b, `","spanId":"`...)
	b = append(b, hexID(r.id, "gw-server", 8)...)
	b = append(b, `","parentSpanId":"","flags":257,"name":"POST `...)
	b = append(b, route...)
	b = append(b, `","kind":2,"startTimeUnixNano":"`...)
	b = strconv.AppendInt(b, s.hostOf(hf, r.gStart), 10)
	b = append(b, `","endTimeUnixNano":"`...)
	b = strconv.AppendInt(b, s.hostOf(hf, r.gEnd), 10)
	b = append(b, `","attributes":[{"key":"http.request.method","value":{"stringValue":"POST"}},{"key":"url.scheme","value":{"stringValue":"http"}},{"key":"server.address","value":{"stringValue":"llm-gw.example.internal"}},{"key":"network.peer.address","value":{"stringValue":"`...)
	b = append(b, clientAddr(r)...)
	b = append(b, `"}},{"key":"user_agent.original","value":{"stringValue":"`...)
	b = append(b, userAgents[r.client%len(userAgents)]...)
	b = append(b, `"}},{"key":"url.path","value":{"stringValue":"`...)
	b = append(b, route...)
	b = append(b, `"}},{"key":"http.route","value":{"stringValue":"`...)
	b = append(b, route...)
	b = append(b, `"}},{"key":"http.request.header.x-request-id","value":{"arrayValue":{"values":[{"stringValue":`...)
	b = strconv.AppendQuote(b, r.id)
	b = append(b, `}]}}},{"key":"http.response.status_code","value":{"intValue":"`...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, `"}},{"key":"http.response.body.size","value":{"intValue":"`...)
	b = strconv.AppendInt(b, int64(bytesSent(r, status)), 10)
	b = append(b, `"}}],"status":{`...)
	if status >= 500 {
		b = append(b, `"code":2`...)
	}
	return append(b, `}}`...)
}

func (w *otelGatewayWriter) clientSpan(s *sim, r *request) []byte {
	hf := w.hf
	b := []byte(`{"traceId":"`)
	b = append(b, hexID(r.id, "gw-trace", 16)...)
	b = append(b, `","spanId":"`...)
	b = append(b, hexID(r.id, "gw-client", 8)...)
	b = append(b, `","parentSpanId":"`...)
	b = append(b, hexID(r.id, "gw-server", 8)...)
	b = append(b, `","flags":257,"name":"POST","kind":3,"startTimeUnixNano":"`...)
	b = strconv.AppendInt(b, s.hostOf(hf, r.upStart), 10)
	b = append(b, `","endTimeUnixNano":"`...)
	b = strconv.AppendInt(b, s.hostOf(hf, r.upEnd), 10)
	b = append(b, `","attributes":[{"key":"http.request.method","value":{"stringValue":"POST"}},{"key":"server.address","value":{"stringValue":"`...)
	b = append(b, r.replica.name...)
	b = append(b, `"}},{"key":"server.port","value":{"intValue":"8000"}},{"key":"url.full","value":{"stringValue":"http://`...)
	b = append(b, r.replica.name...)
	b = append(b, ":8000"...)
	b = append(b, useCases[r.useCase].route...)
	b = append(b, `"}},{"key":"http.response.status_code","value":{"intValue":"`...)
	b = strconv.AppendInt(b, int64(s.upstreamStatus(r)), 10)
	b = append(b, `"}}],"events":[{"timeUnixNano":"`...)
	b = strconv.AppendInt(b, s.hostOf(hf, upstreamHeaders(r)), 10)
	b = append(b, `","name":"http.receive.start"}],"status":{`...)
	if r.srvErr != 0 {
		b = append(b, `"code":2`...)
	}
	return append(b, `}}`...)
}

// wrap makes one file-exporter line of comma-joined spans.
func (w *otelGatewayWriter) wrap(spans []byte) []byte {
	b := append(w.line[:0], `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"llm-gateway"}},{"key":"host.name","value":{"stringValue":`...)
	b = strconv.AppendQuote(b, w.hf.clock.Host)
	b = append(b, `}}]},"scopeSpans":[{"scope":{"name":"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp","version":"0.61.0"},"spans":[`...)
	b = append(b, spans...)
	b = append(b, "]}]}]}\n"...)
	w.line = b
	return b
}

func appendSpan(b, span []byte) []byte {
	if len(b) > 0 {
		b = append(b, ',')
	}
	return append(b, span...)
}

func (w *otelGatewayWriter) write(s *sim, r *request, fate, cut, n, after int) {
	if w.n > 0 && (r.gEnd-w.start >= int64(200*time.Millisecond) || w.n >= 64) {
		w.flush()
	}
	switch fate {
	case fateLost:
		return
	case fateTruncated:
		var spans []byte
		if r.forwarded {
			spans = appendSpan(spans, w.clientSpan(s, r))
		}
		spans = appendSpan(spans, w.serverSpan(s, r))
		w.hf.writeDrawn(w.wrap(spans), fateTruncated, cut, n, 0, 0)
		return
	}
	if w.n == 0 {
		w.start = r.gEnd
	}
	w.n++
	if r.forwarded {
		w.spans = appendSpan(w.spans, w.clientSpan(s, r))
	}
	if otelSplit(r) {
		w.held = appendSpan(w.held, w.serverSpan(s, r))
		w.heldN++
	} else {
		w.spans = appendSpan(w.spans, w.serverSpan(s, r))
		w.records++
	}
	if fate == fateDuplicated && (!w.dup || after < w.after) {
		w.dup, w.after = true, after
	}
}

// flush writes the batch; the SERVER spans held back start the next one.
func (w *otelGatewayWriter) flush() {
	if len(w.spans) > 0 {
		fate := fateOK
		if w.dup {
			fate = fateDuplicated
		}
		w.hf.writeDrawn(w.wrap(w.spans), fate, 0, 0, w.after, w.records)
	}
	w.spans = append(w.spans[:0], w.held...)
	w.records, w.n = w.heldN, 0
	w.held, w.heldN, w.dup, w.after = w.held[:0], 0, false, 0
}

func (w *otelGatewayWriter) close(*sim) {
	w.flush()
	w.flush() // the SERVER spans held back by the last batch
}

// ---- aiperf ----

type aiperfWriter struct {
	hf *hostFile
	b  []byte
}

func (w *aiperfWriter) write(s *sim, r *request, fate, cut, n, after int) {
	w.hf.writeDrawn(w.line(s, r), fate, cut, n, after, 1)
}

func (w *aiperfWriter) close(*sim) {}

func (w *aiperfWriter) line(s *sim, r *request) []byte {
	hf := w.hf
	start, end := s.hostOf(hf, r.cStart), s.hostOf(hf, r.cEnd)
	metric := func(b []byte, k string, v []byte, unit string) []byte {
		if b[len(b)-1] != '{' {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, k...)
		b = append(b, `":{"value":`...)
		b = append(b, v...)
		b = append(b, `,"unit":"`...)
		b = append(b, unit...)
		return append(b, `"}`...)
	}
	msOf := func(ns int64) []byte { return appendPyFloat(nil, float64(ns)/1e6) }
	cancelled := r.gaveUp && r.giveUpKind == giveUpCancel
	b := append(w.b[:0], `{"metadata":{"session_num":`...)
	b = strconv.AppendInt(b, int64(r.idx), 10)
	b = append(b, `,"x_request_id":`...)
	b = strconv.AppendQuote(b, r.id)
	b = append(b, `,"x_correlation_id":"`...)
	b = append(b, hexID(r.id, "aiperf-corr", 16)...)
	b = append(b, `","conversation_id":"`...)
	b = append(b, hexID(r.id, "aiperf-conv", 16)...)
	b = append(b, `","turn_index":0,"request_start_ns":`...)
	b = strconv.AppendInt(b, start, 10)
	b = append(b, `,"request_ack_ns":`...)
	if r.cHasFirst {
		b = strconv.AppendInt(b, s.hostOf(hf, r.cFirst), 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"request_end_ns":`...)
	b = strconv.AppendInt(b, end, 10)
	b = append(b, `,"worker_id":"worker_`...)
	b = append(b, hexID(hf.clock.Host, "worker", 4)...)
	b = append(b, `","record_processor_id":"record_processor_1","benchmark_phase":"profiling","was_cancelled":`...)
	b = strconv.AppendBool(b, cancelled)
	b = append(b, `,"cancellation_time_ns":`...)
	if cancelled {
		b = strconv.AppendInt(b, end, 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `},"metrics":{`...)
	ok := r.cStatus == 200 && !r.gaveUp
	if ok {
		b = metric(b, "input_sequence_length", strconv.AppendInt(nil, int64(r.prompt), 10), "tokens")
	} else {
		b = metric(b, "error_isl", strconv.AppendInt(nil, int64(r.prompt), 10), "tokens")
	}
	if r.cHasFirst {
		b = metric(b, "time_to_first_token", msOf(s.hostOf(hf, r.cFirst)-start), "ms")
	}
	if ok {
		b = metric(b, "request_latency", msOf(end-start), "ms")
		b = metric(b, "output_sequence_length", strconv.AppendInt(nil, int64(r.cOut), 10), "tokens")
	}
	b = append(b, `},"error":`...)
	switch {
	case ok:
		b = append(b, "null"...)
	case cancelled:
		b = append(b, `{"code":499,"type":"RequestCancellationError","message":"Request was cancelled"}`...)
	case r.gaveUp:
		b = append(b, `{"code":null,"type":"TimeoutError","message":"Request timed out"}`...)
	default:
		b = append(b, `{"code":`...)
		b = strconv.AppendInt(b, int64(r.cStatus), 10)
		b = append(b, `,"type":"HTTPStatusError","message":`...)
		msg := "Rate limit exceeded"
		if r.srvErr != 0 {
			msg = serverErrorText(r)
		}
		b = strconv.AppendQuote(b, msg)
		b = append(b, '}')
	}
	b = append(b, "}\n"...)
	w.b = b
	return b
}

// ---- jsonl (an application's log, read with client.toml) ----

type appLogWriter struct {
	hf *hostFile
	b  []byte
}

func (w *appLogWriter) write(s *sim, r *request, fate, cut, n, after int) {
	w.hf.writeDrawn(w.line(s, r), fate, cut, n, after, 1)
}

func (w *appLogWriter) close(*sim) {}

func (w *appLogWriter) line(s *sim, r *request) []byte {
	hf := w.hf
	us := func(t int64) int64 { return floorDiv(s.hostOf(hf, t), 1e3) }
	end := us(r.cEnd)
	b := append(w.b[:0], `{"ts":"`...)
	b = time.UnixMicro(end).UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
	b = append(b, `","level":"INFO","logger":"llm_client","event":"completion","req":{"id":`...)
	b = strconv.AppendQuote(b, r.id)
	b = append(b, `,"model":"`...)
	b = append(b, models[r.model].name...)
	b = append(b, `","use_case":"`...)
	b = append(b, useCases[r.useCase].name...)
	b = append(b, `","stream":`...)
	b = strconv.AppendBool(b, r.streamed)
	b = append(b, `},"timing":{"start_us":`...)
	b = strconv.AppendInt(b, us(r.cStart), 10)
	b = append(b, `,"first_token_us":`...)
	if r.cHasFirst {
		b = strconv.AppendInt(b, us(r.cFirst), 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"end_us":`...)
	b = strconv.AppendInt(b, end, 10)
	b = append(b, `},"resp":{"status":`...)
	b = strconv.AppendInt(b, int64(r.cStatus), 10)
	b = append(b, `,"error":`...)
	errName := ""
	switch {
	case r.gaveUp && r.giveUpKind == giveUpCancel:
		errName = "canceled"
	case r.gaveUp:
		errName = "timeout"
	case r.rejected:
		errName = "rate_limited"
	case r.srvErr != 0:
		errName = "server_error"
	}
	if errName == "" {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendQuote(b, errName)
	}
	b = append(b, `},"usage":{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(r.prompt), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(r.cOut), 10)
	b = append(b, `},"host":{"name":"`...)
	b = append(b, hf.clock.Host...)
	b = append(b, `","region":"`...)
	b = append(b, regions[r.region].name...)
	b = append(b, "\"}}\n"...)
	w.b = b
	return b
}
