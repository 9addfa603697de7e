package simulate

import (
	"bufio"
	"bytes"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The inference-server formats Config.Formats can choose per replica, named
// as ingest names them. Each writer produces the shape the ingest reader of
// that name accepts, as the real server writes it, from the same simulated
// requests as the native log:
//
//   - vllm-otlp: vLLM V1 llm_request spans as an OpenTelemetry Collector's
//     file exporter writes them, one TracesData object per line, each line a
//     batch of the spans that finished within 200 ms of its first (at most
//     64). Span start = arrival (Unix ns); gen_ai.latency.* are float
//     seconds: time_to_first_token, e2e, time_in_queue, time_in_model_prefill,
//     time_in_model_decode, time_in_model_inference; gen_ai.request.id is
//     "chatcmpl-<request_id>" (chat routes) or "cmpl-<request_id>-0"
//     (/v1/completions). A 5xx is an aborted span: status ERROR, TTFT 0.0
//     (vLLM's value without a first token), no prefill or decode.
//   - tgi: TGI router --json-output lines: a "Success" event per request in
//     its handler span (chat_completions or completions) with total_time,
//     validation_time, queue_time, inference_time and time_per_token as Rust
//     Duration Debug strings (exact nanoseconds); timestamp = end (UTC, µs,
//     truncated). No request ID, model, prompt token count or TTFT (the
//     reader derives output tokens from inference_time / time_per_token).
//     validation_time is
//     min(20 µs + 5 ns per prompt token, the wait), queue_time the rest of
//     the wait (arrival to scheduled). The truth counts the whole wait as
//     queue; the analysis takes queue_time and moves validation_time into
//     application as server overhead, tens of µs apart. A 5xx is an ERROR event of
//     text_generation_router::infer inside the handler span. The file starts
//     with a launcher and a router startup line (no rows).
//   - triton: a Triton trace file (level=TIMESTAMPS): one JSON array of
//     fragments, a batch of them per line (the traces that completed within
//     100 ms), fragments of several traces interleaved in time order, one
//     timestamp per fragment, every fifth trace's COMPUTE_END written before
//     its COMPUTE_START. Trace id = the replica's arrival counter; the info
//     fragment carries request_id. Times are steady-clock ns from an
//     arbitrary origin (days of uptime): HTTP_RECV_START = arrival,
//     COMPUTE_START = scheduled, HTTP_SEND_END = end, with the frontend's
//     own microseconds between: HTTP_RECV_END 4 µs + 2 ns per prompt token
//     after arrival, REQUEST_START 3 µs and QUEUE_START 5 µs after that (all
//     capped at scheduled); COMPUTE_INPUT_END 30 µs after scheduled;
//     COMPUTE_END, REQUEST_END and HTTP_SEND_START 12, 9 and 6 µs before end
//     (capped at scheduled). So Triton's e2e is the server E2E, its QUEUE
//     the wait less 9 µs + 2 ns per prompt token, its COMPUTE the model time
//     less 12 µs (never below 0).
//   - sglang-metrics: SGLang --export-metrics-to-file lines (Python
//     json.dumps): id = request_id, request_received_ts = arrival,
//     forward_entry_time = scheduled, prefill_finished_time = first token,
//     request_finished_ts = end as epoch float seconds (Python floats: about
//     0.24 µs apart at today's epoch), queue_time, e2e_latency and
//     inference_time as float seconds of exact nanoseconds.
//   - trtllm: trtllm-serve GET /perf_metrics responses polled every second
//     (true time) and appended, one non-empty array per line: request_id =
//     the replica's arrival counter (executor IDs, nothing the gateway saw);
//     arrival_time (= server_arrival_time), first_scheduled_time,
//     first_token_time and last_token_time in steady-clock float seconds
//     from an arbitrary origin, exact to the nanosecond at that magnitude.
//
// Every format writes times of the replica's host clock: wall times with its
// offset and drift, steady times with its drift (the offset of a steady
// clock is its arbitrary origin), so durations are host-clock durations in
// every format, exact to the format's unit.
//
// Imperfections keep their meaning per record: a lost record is not
// written; a truncated one is a line cut before its end (vllm-otlp: a line
// of that span alone; a line format's first line is never a cut one, as
// the readers recognise a file by it), and in the array formats (triton,
// trtllm) an element cut and closed with mismatched brackets, as a damaged
// file can hold, so that the rest of the array still reads (for Triton the
// trace's info fragment, which leaves the trace without a model name and
// rejected); a duplicated record is its line written twice (vllm-otlp: its
// whole batch line), for Triton its info fragment twice and for trtllm its
// element twice in one poll.
//
// Whenever a replica writes a format other than native, server_lines.csv
// (file,line,request_id,engine_id,format) names the request behind every
// intact record, the way to check formats that log no request ID (tgi,
// trtllm): file and line as ingest reports them (source_file relative to
// Config.Out, source_line), engine_id the replica's arrival counter that
// Triton uses as trace id and TRT-LLM as request_id. For triton the line is
// that of the trace's first fragment.

// Server format names.
const (
	FormatNative        = "native"
	FormatVLLMOTLP      = "vllm-otlp"
	FormatTGI           = "tgi"
	FormatTriton        = "triton"
	FormatSGLangMetrics = "sglang-metrics"
	FormatTRTLLM        = "trtllm"
)

// Time formats of the server formats, in clocks.csv.
const (
	FormatUnixNanos     = "unix-ns"               // vllm-otlp span times
	FormatRFC3339Micros = "rfc3339-utc-truncated" // TGI's timestamp, µs, truncated
	FormatEpochFloat    = "epoch-float-seconds"   // SGLang's Python floats
	FormatSteadyNanos   = "steady-ns"             // Triton
	FormatSteadySeconds = "steady-float-seconds"  // TRT-LLM
)

var serverTimeFormat = map[string]string{
	FormatVLLMOTLP:      FormatUnixNanos,
	FormatTGI:           FormatRFC3339Micros,
	FormatTriton:        FormatSteadyNanos,
	FormatSGLangMetrics: FormatEpochFloat,
	FormatTRTLLM:        FormatSteadySeconds,
}

// serverFileName is the log file of a replica writing format.
func serverFileName(host, format string) string {
	switch format {
	case FormatNative:
		return host + ".jsonl"
	case FormatTriton, FormatTRTLLM:
		return host + "." + format + ".json"
	}
	return host + "." + format + ".jsonl"
}

// serverFileNames lists every name a replica's log may have had.
func serverFileNames(host string) []string {
	var names []string
	for _, f := range SupportedFormats {
		names = append(names, serverFileName(host, f))
	}
	return names
}

// formatPlan is Config.Formats parsed: per tier (tierClient, tierGateway,
// tierServer) the formats its hosts cycle through and the format a
// "TIER=FORMAT" entry gives all of them, and the hosts pinned by name.
type formatPlan struct {
	cycle [3][]string
	all   [3]string
	pins  map[string]string
}

// formatTier is the tier a bare format name is for: the server formats
// (native included, as before gateway and client formats existed) first.
func formatTier(f string) (int, bool) {
	switch {
	case slices.Contains(SupportedFormats, f):
		return tierServer, true
	case slices.Contains(GatewayFormats, f):
		return tierGateway, true
	case slices.Contains(ClientFormats, f):
		return tierClient, true
	}
	return 0, false
}

// tierFormats lists the formats a tier's hosts can write.
func tierFormats(tier int) []string {
	return [3][]string{ClientFormats, GatewayFormats, SupportedFormats}[tier]
}

// formatList names the formats of each tier, for errors.
func formatList() string {
	return "server: " + strings.Join(SupportedFormats, ", ") + "; gateway: " + strings.Join(GatewayFormats, ", ") +
		"; client: " + strings.Join(ClientFormats, ", ")
}

func allFormats() []string {
	var all []string
	for _, l := range [][]string{SupportedFormats, GatewayFormats, ClientFormats} {
		for _, f := range l {
			if !slices.Contains(all, f) {
				all = append(all, f)
			}
		}
	}
	return all
}

// parseFormats parses Config.Formats: a bare format is cycled through by
// the hosts of its tier (server formats, native included, by the
// replicas); "client=F", "gateway=F" and "server=F" give every host of the
// tier F; "HOST=F" pins one host (checked against the hosts in setup).
func parseFormats(entries []string) (*formatPlan, error) {
	p := &formatPlan{pins: map[string]string{}}
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if host, f, ok := strings.Cut(e, "="); ok {
			if host == "" {
				return nil, configErr("Formats", "has %q, which names no host before its '='", e)
			}
			if i := slices.Index(tierNames[:], host); i >= 0 {
				if !slices.Contains(tierFormats(i), f) {
					return nil, configErr("Formats", "sets the %s tier to %q, which no %s writes (%s formats: %s)", host, f, host, host, strings.Join(tierFormats(i), ", "))
				}
				p.all[i] = f
				continue
			}
			if _, ok := formatTier(f); !ok && !slices.Contains(allFormats(), f) {
				return nil, configErr("Formats", "pins %s to %q, which is no format simulate writes (%s)", host, f, formatList())
			}
			p.pins[host] = f
			continue
		}
		tier, ok := formatTier(e)
		if !ok {
			return nil, configErr("Formats", "names %q, which is no format simulate writes (%s)", e, formatList())
		}
		p.cycle[tier] = append(p.cycle[tier], e)
	}
	return p, nil
}

// hostFormats returns the format of each of the hosts of a tier, in order,
// and removes the pins it used from p.pins. A pin of a format the tier
// cannot write is an error.
func (p *formatPlan) hostFormats(tier int, hosts []string) ([]string, error) {
	out := make([]string, len(hosts))
	for i, h := range hosts {
		switch {
		case len(p.cycle[tier]) > 0:
			out[i] = p.cycle[tier][i%len(p.cycle[tier])]
		default:
			out[i] = FormatNative
		}
		if p.all[tier] != "" {
			out[i] = p.all[tier]
		}
		if f, ok := p.pins[h]; ok {
			if !slices.Contains(tierFormats(tier), f) {
				return nil, configErr("Formats", "pins %s to %q, which a %s cannot write (%s formats: %s)", h, f, tierNames[tier], tierNames[tier], strings.Join(tierFormats(tier), ", "))
			}
			out[i] = f
			delete(p.pins, h)
		}
	}
	return out, nil
}

// resolveFormats sets the format of every host, or says which pin names no
// host.
func (s *sim) resolveFormats(clients, gateways []HostClock) (client, gw, rep []string, err error) {
	p, err := parseFormats(s.cfg.Formats)
	if err != nil {
		return nil, nil, nil, err
	}
	var names [3][]string
	for _, c := range clients {
		names[tierClient] = append(names[tierClient], c.Host)
	}
	for _, c := range gateways {
		names[tierGateway] = append(names[tierGateway], c.Host)
	}
	for _, r := range s.replicas {
		names[tierServer] = append(names[tierServer], r.name)
	}
	var out [3][]string
	for tier := range 3 {
		if out[tier], err = p.hostFormats(tier, names[tier]); err != nil {
			return nil, nil, nil, err
		}
	}
	for h := range p.pins {
		return nil, nil, nil, configErr("Formats", "pins %s, which is no host (replicas: %s; gateways: %s; clients: %s)", h,
			strings.Join(names[tierServer], ", "), strings.Join(names[tierGateway], ", "), strings.Join(names[tierClient], ", "))
	}
	return out[tierClient], out[tierGateway], out[tierServer], nil
}

// serverWriter writes one replica's records in a format other than native.
// write gets the record's fate with what was drawn for it (cut for a native
// line of n bytes, after).
type serverWriter interface {
	write(s *sim, r *request, fate, cut, n, after int)
	close(s *sim)
}

func (s *sim) newServerWriter(rep *replica) serverWriter {
	hf := rep.file
	switch rep.format {
	case FormatVLLMOTLP:
		hf.holdFirstCut = true
		return &otlpWriter{rep: rep}
	case FormatTGI:
		hf.holdFirstCut = true
		w := &tgiWriter{rep: rep}
		w.preamble(s)
		return w
	case FormatSGLangMetrics:
		hf.holdFirstCut = true
		return &sglangWriter{rep: rep}
	case FormatTriton:
		return &tritonWriter{rep: rep}
	case FormatTRTLLM:
		return &trtllmWriter{rep: rep}
	}
	panic("simulate: no writer for " + rep.format)
}

// logLine notes in server_lines.csv that line no of hf holds r's record.
func (s *sim) logLine(hf *hostFile, no int, r *request, format string) {
	if no <= 0 {
		return
	}
	if s.lineLog == nil {
		if s.err != nil {
			return
		}
		f, err := os.Create(filepath.Join(s.cfg.Out, "server_lines.csv"))
		if err != nil {
			s.err = err
			return
		}
		s.lineFile, s.lineLog = f, bufio.NewWriterSize(f, 64<<10)
		s.lineLog.WriteString("file,line,request_id,engine_id,format\n")
	}
	fmt.Fprintf(s.lineLog, "%s,%d,%s,%d,%s\n", filepath.ToSlash(hf.rel), no, r.id, r.engineID, format)
}

// writeServerLines finishes server_lines.csv, or removes one an earlier run
// left when every replica wrote native.
func (s *sim) writeServerLines() error {
	if s.lineLog == nil {
		if err := os.Remove(filepath.Join(s.cfg.Out, "server_lines.csv")); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
	err := s.lineLog.Flush()
	if e := s.lineFile.Close(); err == nil {
		err = e
	}
	if err != nil {
		return fmt.Errorf("writing server_lines.csv: %w", err)
	}
	return nil
}

// host is the replica host's wall clock reading of true time t, in Unix ns.
func (s *sim) host(rep *replica, t int64) int64 { return rep.file.clock.hostNs(s.epochNs, t) }

// hostDur is b − a measured on the replica's clock.
func (s *sim) hostDur(rep *replica, a, b int64) int64 { return s.host(rep, b) - s.host(rep, a) }

// steady is the replica's steady (monotonic) clock reading of true time t
// in ns: an arbitrary origin of days of uptime, and the host's drift.
func (s *sim) steady(rep *replica, t int64) int64 {
	origin := int64(8+3*rep.index)*86400e9 + int64(rep.index)*123456789
	return origin + t + int64(float64(t)*rep.file.clock.DriftPPM*1e-6)
}

// appendPyFloat appends f as Python's repr writes a float.
func appendPyFloat(b []byte, f float64) []byte {
	if a := math.Abs(f); a != 0 && (a < 1e-4 || a >= 1e16) {
		return strconv.AppendFloat(b, f, 'e', -1, 64)
	}
	n := len(b)
	b = strconv.AppendFloat(b, f, 'f', -1, 64)
	if !bytes.ContainsRune(b[n:], '.') {
		b = append(b, ".0"...)
	}
	return b
}

// epochFloat is Unix time ns as a float of seconds, rounded once, as
// Python's time.time() returns it.
func epochFloat(ns int64) float64 {
	return float64(ns/1e9) + float64(ns%1e9)/1e9
}

// appendSeconds appends a duration of ns nanoseconds as float seconds.
func appendSeconds(b []byte, ns int64) []byte { return appendPyFloat(b, float64(ns)/1e9) }

// appendRustDuration appends ns as Rust's Debug impl of core::time::Duration
// prints it: the largest unit of s, ms, µs and ns that fits, the fraction
// without trailing zeros.
func appendRustDuration(b []byte, ns int64) []byte {
	frac := func(whole, rest int64, digits int, unit string) []byte {
		b = strconv.AppendInt(b, whole, 10)
		if rest > 0 {
			s := strconv.FormatInt(rest, 10)
			s = strings.Repeat("0", digits-len(s)) + s
			b = append(b, '.')
			b = append(b, strings.TrimRight(s, "0")...)
		}
		return append(b, unit...)
	}
	switch {
	case ns >= 1e9:
		return frac(ns/1e9, ns%1e9, 9, "s")
	case ns >= 1e6:
		return frac(ns/1e6, ns%1e6, 6, "ms")
	case ns >= 1e3:
		return frac(ns/1e3, ns%1e3, 3, "µs")
	}
	return append(strconv.AppendInt(b, ns, 10), "ns"...)
}

// validationNS is the tokenization time TGI reports as validation_time, at
// most the wait before scheduling.
func validationNS(prompt int, wait int64) int64 {
	return min(20_000+5*int64(prompt), wait)
}

func finishReason(r *request) string {
	switch {
	case r.srvErr != 0:
		return "abort"
	case r.length:
		return "length"
	}
	return "stop"
}

func serverErrorText(r *request) string {
	if r.srvErr == 503 {
		return "Model is overloaded"
	}
	return "Request failed during generation: Server error: CUDA out of memory"
}

// ---- vllm-otlp ----

type otlpWriter struct {
	rep   *replica
	spans []byte
	ids   []*request
	start int64
	dup   bool
	after int
	line  []byte
	span  []byte
}

func hexID(id, salt string, n int) string {
	h := fnv.New128a()
	h.Write([]byte(salt))
	h.Write([]byte(id))
	sum := h.Sum(nil)
	return fmt.Sprintf("%x", sum[:n])
}

func (w *otlpWriter) buildSpan(s *sim, r *request) []byte {
	rep := w.rep
	b := w.span[:0]
	attrD := func(k string, ns int64) {
		b = append(b, `{"key":"`...)
		b = append(b, k...)
		b = append(b, `","value":{"doubleValue":`...)
		b = appendSeconds(b, ns)
		b = append(b, `}},`...)
	}
	attrI := func(k string, v int) {
		b = append(b, `{"key":"`...)
		b = append(b, k...)
		b = append(b, `","value":{"intValue":"`...)
		b = strconv.AppendInt(b, int64(v), 10)
		b = append(b, `"}},`...)
	}
	attrS := func(k, v string) {
		b = append(b, `{"key":"`...)
		b = append(b, k...)
		b = append(b, `","value":{"stringValue":`...)
		b = strconv.AppendQuote(b, v)
		b = append(b, `}},`...)
	}
	b = append(b, `{"traceId":"`...)
	b = append(b, hexID(r.id, "trace", 16)...)
	b = append(b, `","spanId":"`...)
	b = append(b, hexID(r.id, "span", 8)...)
	b = append(b, `","parentSpanId":"","name":"llm_request","kind":2,"startTimeUnixNano":"`...)
	b = strconv.AppendInt(b, s.host(rep, r.sArr), 10)
	b = append(b, `","endTimeUnixNano":"`...)
	b = strconv.AppendInt(b, s.host(rep, r.sEnd+r.pass), 10)
	b = append(b, `","attributes":[`...)
	if r.srvErr == 0 {
		attrD("gen_ai.latency.time_to_first_token", s.hostDur(rep, r.sArr, r.sFirst))
	} else {
		attrD("gen_ai.latency.time_to_first_token", 0)
	}
	attrD("gen_ai.latency.e2e", s.hostDur(rep, r.sArr, r.sEnd))
	attrD("gen_ai.latency.time_in_queue", s.hostDur(rep, r.sArr, r.sSched))
	attrI("gen_ai.usage.prompt_tokens", r.prompt)
	attrI("gen_ai.usage.completion_tokens", r.out)
	if r.srvErr == 0 {
		attrD("gen_ai.latency.time_in_model_prefill", s.hostDur(rep, r.sSched, r.sFirst))
		attrD("gen_ai.latency.time_in_model_decode", s.hostDur(rep, r.sFirst, r.sEnd))
	}
	attrD("gen_ai.latency.time_in_model_inference", s.hostDur(rep, r.sSched, r.sEnd))
	reqID := "chatcmpl-" + r.id
	if useCases[r.useCase].route == "/v1/completions" {
		reqID = "cmpl-" + r.id + "-0"
	}
	attrS("gen_ai.request.id", reqID)
	attrS("gen_ai.response.finish_reasons", `["`+finishReason(r)+`"]`)
	attrI("gen_ai.request.max_tokens", useCases[r.useCase].maxOut)
	b = b[:len(b)-1] // the last comma
	b = append(b, `],"status":{`...)
	if r.srvErr != 0 {
		b = append(b, `"message":`...)
		b = strconv.AppendQuote(b, serverErrorText(r))
		b = append(b, `,"code":2`...)
	}
	b = append(b, `}}`...)
	w.span = b
	return b
}

// wrap makes one file-exporter line of comma-joined spans.
func (w *otlpWriter) wrap(spans []byte) []byte {
	b := append(w.line[:0], `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"vllm"}},{"key":"k8s.pod.name","value":{"stringValue":`...)
	b = strconv.AppendQuote(b, w.rep.name)
	b = append(b, `}}]},"scopeSpans":[{"scope":{"name":"vllm.llm_engine"},"spans":[`...)
	b = append(b, spans...)
	b = append(b, "]}]}]}\n"...)
	w.line = b
	return b
}

func (w *otlpWriter) write(s *sim, r *request, fate, cut, n, after int) {
	if len(w.ids) > 0 && (r.sEnd-w.start >= int64(200*time.Millisecond) || len(w.ids) >= 64) {
		w.flush(s)
	}
	switch fate {
	case fateLost:
		return
	case fateTruncated:
		w.rep.file.writeDrawn(w.wrap(w.buildSpan(s, r)), fateTruncated, cut, n, 0, 0)
		return
	}
	if len(w.ids) == 0 {
		w.start = r.sEnd
	} else {
		w.spans = append(w.spans, ',')
	}
	w.spans = append(w.spans, w.buildSpan(s, r)...)
	w.ids = append(w.ids, r)
	if fate == fateDuplicated && (!w.dup || after < w.after) {
		w.dup, w.after = true, after
	}
}

func (w *otlpWriter) flush(s *sim) {
	if len(w.ids) == 0 {
		return
	}
	line := w.wrap(w.spans)
	fate := fateOK
	if w.dup {
		fate = fateDuplicated
	}
	no := w.rep.file.writeDrawn(line, fate, 0, len(line), w.after, len(w.ids))
	for _, r := range w.ids {
		s.logLine(w.rep.file, no, r, FormatVLLMOTLP)
	}
	clear(w.ids)
	w.ids, w.spans, w.dup, w.after = w.ids[:0], w.spans[:0], false, 0
}

func (w *otlpWriter) close(s *sim) { w.flush(s) }

// ---- tgi ----

type tgiWriter struct {
	rep *replica
	b   []byte
}

func (w *tgiWriter) stamp(b []byte, s *sim, t int64) []byte {
	ns := s.host(w.rep, t)
	us := ns / 1000
	if ns%1000 < 0 {
		us--
	}
	return time.UnixMicro(us).UTC().AppendFormat(b, "2006-01-02T15:04:05.000000Z07:00")
}

// preamble writes the launcher's and the router's startup lines.
func (w *tgiWriter) preamble(s *sim) {
	t0 := w.rep.joinAt - int64(40*time.Second)
	b := append(w.b[:0], `{"timestamp":"`...)
	b = w.stamp(b, s, t0)
	b = append(b, `","level":"INFO","fields":{"message":"Args { model_id: \"`...)
	b = append(b, models[w.rep.model].name...)
	b = append(b, `\", revision: None, validation_workers: 2, sharded: None, num_shard: None, max_concurrent_requests: 128, max_input_tokens: None, max_total_tokens: None, max_batch_size: None, hostname: \"`...)
	b = append(b, w.rep.name...)
	b = append(b, `\", port: 80, json_output: true }"},"target":"text_generation_launcher"}`+"\n"...)
	b = append(b, `{"timestamp":"`...)
	b = w.stamp(b, s, t0+int64(35*time.Second))
	b = append(b, `","level":"INFO","message":"Connected","target":"text_generation_router::server","filename":"router/src/server.rs","line_number":2347}`+"\n"...)
	for _, l := range bytes.SplitAfter(b, []byte{'\n'}) {
		if len(l) > 0 {
			w.rep.file.writeRaw(l)
		}
	}
	w.b = b
}

func (w *tgiWriter) line(s *sim, r *request) []byte {
	rep := w.rep
	handler := "chat_completions"
	if useCases[r.useCase].route == "/v1/completions" {
		handler = "completions"
	}
	params := `"parameters":"GenerateParameters { best_of: None, temperature: None, repetition_penalty: None, frequency_penalty: None, top_k: None, top_p: None, typical_p: None, do_sample: false, max_new_tokens: Some(` +
		strconv.Itoa(useCases[r.useCase].maxOut) + `), return_full_text: None, stop: [], truncate: None, watermark: false, details: true, decoder_input_details: false, seed: None, top_n_tokens: None, grammar: None, adapter_id: None }"`
	b := append(w.b[:0], `{"timestamp":"`...)
	b = w.stamp(b, s, r.sEnd)
	if r.srvErr != 0 {
		b = append(b, `","level":"ERROR","message":`...)
		b = strconv.AppendQuote(b, serverErrorText(r))
		b = append(b, `,"target":"text_generation_router::infer","filename":"router/src/infer/mod.rs","line_number":126,"span":{"name":"generate_stream"},"spans":[{`...)
		b = append(b, params...)
		b = append(b, `,"name":"`...)
		b = append(b, handler...)
		b = append(b, `"},{"name":"generate_stream"}]}`+"\n"...)
		w.b = b
		return b
	}
	total := s.hostDur(rep, r.sArr, r.sEnd)
	wait := s.hostDur(rep, r.sArr, r.sSched)
	validation := validationNS(r.prompt, wait)
	inference := s.hostDur(rep, r.sSched, r.sEnd)
	fields := func(b []byte) []byte {
		dur := func(k string, ns int64) {
			b = append(b, `,"`...)
			b = append(b, k...)
			b = append(b, `":"`...)
			b = appendRustDuration(b, ns)
			b = append(b, '"')
		}
		b = append(b, params...)
		dur("total_time", total)
		dur("validation_time", validation)
		dur("queue_time", wait-validation)
		dur("inference_time", inference)
		dur("time_per_token", inference/int64(max(r.out, 1)))
		b = append(b, `,"seed":"None","name":"`...)
		b = append(b, handler...)
		return append(b, `"}`...)
	}
	b = append(b, `","level":"INFO","message":"Success","target":"text_generation_router::server","filename":"router/src/server.rs","line_number":`...)
	if handler == "completions" {
		b = append(b, "838"...)
	} else {
		b = append(b, "1213"...)
	}
	b = append(b, `,"span":{`...)
	b = fields(b)
	b = append(b, `,"spans":[{`...)
	b = fields(b)
	b = append(b, "]}\n"...)
	w.b = b
	return b
}

func (w *tgiWriter) write(s *sim, r *request, fate, cut, n, after int) {
	no := w.rep.file.writeDrawn(w.line(s, r), fate, cut, n, after, 1)
	s.logLine(w.rep.file, no, r, FormatTGI)
}

func (w *tgiWriter) close(*sim) {}

// ---- sglang-metrics ----

type sglangWriter struct {
	rep *replica
	b   []byte
}

func (w *sglangWriter) line(s *sim, r *request) []byte {
	rep := w.rep
	ts := func(b []byte, k string, t int64) []byte {
		b = append(b, `, "`...)
		b = append(b, k...)
		b = append(b, `": `...)
		return appendPyFloat(b, epochFloat(s.host(rep, t)))
	}
	sec := func(b []byte, k string, ns int64) []byte {
		b = append(b, `, "`...)
		b = append(b, k...)
		b = append(b, `": `...)
		return appendSeconds(b, ns)
	}
	stream := "false"
	if r.streamed {
		stream = "true"
	}
	b := append(w.b[:0], `{"request_parameters": "{\"rid\": \"`...)
	b = append(b, r.id...)
	b = append(b, `\", \"sampling_params\": {\"max_new_tokens\": `...)
	b = strconv.AppendInt(b, int64(useCases[r.useCase].maxOut), 10)
	b = append(b, `}, \"stream\": `...)
	b = append(b, stream...)
	b = append(b, `}", "id": "`...)
	b = append(b, r.id...)
	b = append(b, `", "finish_reason": `...)
	switch {
	case r.srvErr != 0:
		b = append(b, `{"type": "abort", "message": `...)
		b = strconv.AppendQuote(b, serverErrorText(r))
		b = append(b, `, "status_code": `...)
		b = strconv.AppendInt(b, int64(r.srvErr), 10)
		b = append(b, '}')
	case r.length:
		b = append(b, `{"type": "length", "length": `...)
		b = strconv.AppendInt(b, int64(r.out), 10)
		b = append(b, '}')
	default:
		b = append(b, `{"type": "stop", "matched": 128009}`...)
	}
	b = append(b, `, "prompt_tokens": `...)
	b = strconv.AppendInt(b, int64(r.prompt), 10)
	b = append(b, `, "weight_version": "default", "completion_tokens": `...)
	b = strconv.AppendInt(b, int64(r.out), 10)
	b = append(b, `, "cached_tokens": 0`...)
	b = sec(b, "e2e_latency", s.hostDur(rep, r.sArr, r.sEnd))
	b = ts(b, "request_received_ts", r.sArr)
	b = sec(b, "queue_time", s.hostDur(rep, r.sArr, r.sSched))
	b = ts(b, "forward_entry_time", r.sSched)
	if r.srvErr == 0 {
		b = ts(b, "prefill_finished_time", r.sFirst)
	}
	b = sec(b, "inference_time", s.hostDur(rep, r.sSched, r.sEnd))
	if decode := s.hostDur(rep, r.sFirst, r.sEnd); r.srvErr == 0 && r.out > 1 && decode > 0 {
		b = append(b, `, "decode_throughput": `...)
		b = appendPyFloat(b, float64(r.out-1)/(float64(decode)/1e9))
	}
	b = ts(b, "request_finished_ts", r.sEnd)
	b = ts(b, "response_sent_to_client_ts", r.sEnd+r.pass)
	b = append(b, "}\n"...)
	w.b = b
	return b
}

func (w *sglangWriter) write(s *sim, r *request, fate, cut, n, after int) {
	no := w.rep.file.writeDrawn(w.line(s, r), fate, cut, n, after, 1)
	s.logLine(w.rep.file, no, r, FormatSGLangMetrics)
}

func (w *sglangWriter) close(*sim) {}

// ---- array formats: triton, trtllm ----

// corrupt cuts a JSON element to c bytes (out of a string it would end in)
// and closes every open bracket with the other kind: a damaged element
// that no JSON parser accepts but whose brackets balance, so that the rest
// of the array still reads.
func corrupt(el []byte, c int) []byte {
	p := el[:max(1, min(c, len(el)-1))]
	var stack []byte
	inStr, esc, strStart := false, false, 0
	for i, ch := range p {
		switch {
		case inStr && esc:
			esc = false
		case inStr && ch == '\\':
			esc = true
		case inStr && ch == '"':
			inStr = false
		case inStr:
		case ch == '"':
			inStr, strStart = true, i
		case ch == '{' || ch == '[':
			stack = append(stack, ch)
		case ch == '}' || ch == ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	if inStr {
		p = p[:strStart]
	}
	out := append([]byte(nil), p...)
	for i := len(stack) - 1; i >= 0; i-- {
		if stack[i] == '{' {
			out = append(out, ']')
		} else {
			out = append(out, '}')
		}
	}
	return out
}

type tritonFrag struct {
	key int64 // steady ns it is ordered by
	seq int
	b   []byte
}

type tritonWriter struct {
	rep    *replica
	frags  []tritonFrag
	traces []*request // intact traces of the batch
	n      int        // traces of the batch, intact or not
	start  int64
	seq    int
	wrote  bool
	b      []byte
}

func (w *tritonWriter) add(key int64, b []byte) {
	w.seq++
	w.frags = append(w.frags, tritonFrag{key: key, seq: w.seq, b: b})
}

func (w *tritonWriter) write(s *sim, r *request, fate, cut, n, after int) {
	if w.n > 0 && r.sEnd-w.start >= int64(100*time.Millisecond) {
		w.flush(s)
	}
	if fate == fateLost {
		return
	}
	if w.n == 0 {
		w.start = r.sEnd
	}
	w.n++
	rep := w.rep
	a, q, e := r.sArr, r.sSched, r.sEnd
	body := 4000 + 2*int64(r.prompt)
	at := func(base, off, lo, hi int64) int64 { return s.steady(rep, min(max(base+off, lo), hi)) }
	id := strconv.FormatInt(r.engineID, 10)
	stamp := func(name string, ns int64, key int64) {
		b := []byte(`{"id":` + id + `,"timestamps":[{"name":"` + name + `","ns":` + strconv.FormatInt(ns, 10) + `}]}`)
		w.add(key, b)
	}
	ts := func(name string, ns int64) { stamp(name, ns, ns) }
	reqStart := at(a, body+3000, a, q)
	info := []byte(`{"id":` + id + `,"model_name":"` + models[r.model].name + `","model_version":1,"request_id":"` + r.id + `"}`)
	ts("HTTP_RECV_START", s.steady(rep, a))
	ts("HTTP_RECV_END", at(a, body, a, q))
	switch fate {
	case fateTruncated:
		w.add(reqStart, corrupt(info, scaleCut(cut, n, len(info))))
	case fateDuplicated:
		w.add(reqStart, info)
		w.add(reqStart, info)
	default:
		w.add(reqStart, info)
	}
	ts("REQUEST_START", reqStart)
	ts("QUEUE_START", at(a, body+5000, a, q))
	computeStart := s.steady(rep, q)
	computeEnd := at(e, -12000, q, e)
	if r.engineID%5 == 0 {
		stamp("COMPUTE_END", computeEnd, computeStart-1) // written before COMPUTE_START
	}
	ts("COMPUTE_START", computeStart)
	ts("COMPUTE_INPUT_END", at(q, 30000, q, max(q, e-12000)))
	if r.engineID%5 != 0 {
		ts("COMPUTE_END", computeEnd)
	}
	ts("REQUEST_END", at(e, -9000, q, e))
	ts("HTTP_SEND_START", at(e, -6000, q, e))
	ts("HTTP_SEND_END", s.steady(rep, e))
	if fate != fateTruncated {
		w.traces = append(w.traces, r)
	}
}

func (w *tritonWriter) flush(s *sim) {
	if w.n == 0 {
		return
	}
	slices.SortStableFunc(w.frags, func(x, y tritonFrag) int {
		if x.key != y.key {
			if x.key < y.key {
				return -1
			}
			return 1
		}
		return x.seq - y.seq
	})
	b := w.b[:0]
	if w.wrote {
		b = append(b, ',')
	} else {
		b = append(b, '[')
	}
	for i, f := range w.frags {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, f.b...)
	}
	b = append(b, '\n')
	w.wrote = true
	no := w.rep.file.writeDrawn(b, fateOK, 0, len(b), 0, len(w.traces))
	for _, r := range w.traces {
		s.logLine(w.rep.file, no, r, FormatTriton)
	}
	clear(w.frags)
	clear(w.traces)
	w.frags, w.traces, w.n, w.b = w.frags[:0], w.traces[:0], 0, b
}

func (w *tritonWriter) close(s *sim) {
	w.flush(s)
	if w.wrote {
		w.rep.file.writeRaw([]byte("]\n"))
	}
}

type trtllmElem struct {
	b      []byte
	r      *request
	intact bool
}

type trtllmWriter struct {
	rep   *replica
	elems []trtllmElem
	start int64
	wrote bool
	b     []byte
}

func (w *trtllmWriter) elem(s *sim, r *request) []byte {
	rep := w.rep
	t := func(b []byte, k string, at int64) []byte {
		b = append(b, `"`...)
		b = append(b, k...)
		b = append(b, `": `...)
		return appendPyFloat(b, float64(s.steady(rep, at))/1e9)
	}
	const iter = int64(10 * time.Millisecond)
	blocks := int64((r.prompt + r.out + 31) / 32)
	b := []byte(`{"request_id": `)
	b = strconv.AppendInt(b, r.engineID, 10)
	b = append(b, `, "perf_metrics": {"first_iter": `...)
	b = strconv.AppendInt(b, r.sSched/iter+1, 10)
	b = append(b, `, "last_iter": `...)
	b = strconv.AppendInt(b, r.sEnd/iter+1, 10)
	b = append(b, `, "timing_metrics": {`...)
	b = t(b, "server_arrival_time", r.sArr)
	b = append(b, ", "...)
	b = t(b, "arrival_time", r.sArr)
	b = append(b, ", "...)
	b = t(b, "first_scheduled_time", r.sSched)
	if r.srvErr == 0 {
		b = append(b, ", "...)
		b = t(b, "first_token_time", r.sFirst)
		b = append(b, ", "...)
		b = t(b, "server_first_token_time", r.sFirst+50_000)
		b = append(b, ", "...)
		b = t(b, "last_token_time", r.sEnd)
	}
	b = append(b, `}, "kv_cache_metrics": {"num_total_allocated_blocks": `...)
	b = strconv.AppendInt(b, blocks, 10)
	b = append(b, `, "num_new_allocated_blocks": `...)
	b = strconv.AppendInt(b, blocks, 10)
	b = append(b, `, "num_reused_blocks": 0, "num_missed_blocks": `...)
	b = strconv.AppendInt(b, blocks, 10)
	return append(b, `}}}`...)
}

func (w *trtllmWriter) write(s *sim, r *request, fate, cut, n, after int) {
	if len(w.elems) > 0 && r.sEnd-w.start >= int64(time.Second) {
		w.flush(s, false)
	}
	if fate == fateLost {
		return
	}
	if len(w.elems) == 0 {
		w.start = r.sEnd
	}
	el := w.elem(s, r)
	switch fate {
	case fateTruncated:
		w.elems = append(w.elems, trtllmElem{b: corrupt(el, scaleCut(cut, n, len(el))), r: r})
	case fateDuplicated:
		w.elems = append(w.elems, trtllmElem{b: el, r: r, intact: true}, trtllmElem{b: el, r: r})
	default:
		w.elems = append(w.elems, trtllmElem{b: el, r: r, intact: true})
	}
}

// flush writes the poll. The first poll of a file starts with an intact
// element (the reader recognises the file by it); one without any waits.
func (w *trtllmWriter) flush(s *sim, last bool) {
	if len(w.elems) == 0 {
		return
	}
	if !w.wrote {
		i := slices.IndexFunc(w.elems, func(e trtllmElem) bool { return e.intact })
		if i < 0 && !last {
			return
		}
		if i > 0 {
			e := w.elems[i]
			copy(w.elems[1:i+1], w.elems[:i])
			w.elems[0] = e
		}
	}
	b := append(w.b[:0], '[')
	intact := 0
	for i, e := range w.elems {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, e.b...)
		if e.intact {
			intact++
		}
	}
	b = append(b, "]\n"...)
	w.wrote = true
	no := w.rep.file.writeDrawn(b, fateOK, 0, len(b), 0, intact)
	for _, e := range w.elems {
		if e.intact {
			s.logLine(w.rep.file, no, e.r, FormatTRTLLM)
		}
	}
	clear(w.elems)
	w.elems, w.b = w.elems[:0], b
}

func (w *trtllmWriter) close(s *sim) { w.flush(s, true) }
