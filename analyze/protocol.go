package analyze

// ProtocolEntry documents how one metric is measured. The Protocol table is
// the single description of every metric; reports print it as is.
type ProtocolEntry struct {
	Metric   string // name used in reports
	Column   string // requests.parquet column; empty for per-slice figures
	Starts   string // where the timer starts
	Stops    string // where the timer stops
	Clock    string // whose clock the times come from
	Requests string // which requests contribute samples
	Method   string // how it is aggregated in reports
}

const (
	quantileMethod = "P50/P90/P95/P99 by quantile_cont (linear interpolation between ranks), n shown"
	componentAgg   = "P50/P95 by quantile_cont, n shown; mean over the slowest 5% by client E2E"
	ttftAgg        = "P50/P95 by quantile_cont, n shown; mean over the slowest 5% by client TTFT"
)

// Protocol is the measurement protocol: for every metric, where its timer
// starts and stops, on which tier's clock, for which requests, and how it is
// aggregated.
var Protocol = []ProtocolEntry{
	{"Client E2E", "client_e2e_ms", "client start_time (request sent)", "client end_time (last byte received); the client's own logged end-to-end duration wherever it logs one (vllm-bench; AIPerf's request_latency, from sending to the final response on perf_counter, which is this definition: older AIPerf releases stamp request_end_ns when the record closes, after the final response, 8 ms later in AIPerf's own sample, so end - start is kept apart as client_wall_e2e_ms)", "client", "requests with a client record, streamed or not", quantileMethod},
	{"Gateway E2E", "gateway_e2e_ms", "gateway start_time (request received)", "gateway end_time (response fully sent)", "gateway", "requests with a gateway record", quantileMethod},
	{"Server E2E (inference only)", "server_e2e_ms", "server arrival_time", "server end_time; the server's logged end-to-end duration wherever it logs one", "server", "requests with a server record", quantileMethod},
	{"Client TTFT", "client_ttft_ms", "client start_time", "client first_token_time (first content token received); the client's logged TTFT wherever it logs one", "client", "streamed requests with a client first-token time", quantileMethod},
	{"Server TTFT", "server_ttft_ms", "server arrival_time", "server first_token_time (first output token produced); the server's logged TTFT wherever it logs one", "server", "streamed requests (per the client record) with a server first-token time", quantileMethod},
	{"Gateway TTFT (logged)", "gateway_ttft_ms", "as the gateway defines it (request received)", "as the gateway defines it (first response chunk); the duration the gateway logged (Envoy AI Gateway, Kong)", "gateway", "streamed requests with a gateway TTFT; another view of TTFT, never part of the attribution", quantileMethod},
	{"Gateway upstream TTFB", "gateway_upstream_ttfb_ms", "gateway upstream_start_time (forwarded)", "gateway upstream_first_byte_time (first byte of the upstream response)", "gateway", "streamed requests whose gateway logged the upstream's first byte; another view of TTFT, never part of the attribution", quantileMethod},
	{"Per-user tokens/s", "tps_user", "client TTFT (first token)", "client E2E (end), so the client's logged durations where it logs them (AIPerf); value = (output_tokens − 1) / interval: the tokens after the first over the time they took", "client", "streamed requests with at least two tokens and a positive first-token-to-end interval", quantileMethod},
	{"Service-wide output tokens/s", "", "earliest start in the slice", "latest start in the slice; value = sum of output_tokens of completed requests / window seconds", "start of each request (first tier on its path)", "completed requests in the slice: HTTP 2xx, or, where no tier logged a status (AIPerf, GuideLLM, vllm bench), no error logged; not a per-user rate", "one value per slice, with the window"},
	{"Network", "network_ms", "client E2E", "minus gateway E2E", "client and gateway durations, each on its own clock", "requests with client and gateway records", componentAgg},
	{"Application", "application_ms", "gateway E2E", "minus server E2E, plus server overhead and model load where the server logged them (gateway work, the gateway-server hop, and the server's own non-model work)", "gateway and server durations, each on its own clock", "requests with gateway and server records", componentAgg},
	{"Queue", "queue_ms", "entry into the scheduler's queue: the server's logged queue duration wherever it logs one (TGI and SGLang queue_time, vLLM time_in_queue, Triton, TensorRT-LLM); else server arrival_time", "server scheduled_time (left the queue); server work before the queue (validation, tokenization, API-to-scheduler IPC) is server overhead, part of application, never queue", "server", "requests with a server record", componentAgg},
	{"Model", "model_ms", "server scheduled_time", "server end_time; where the server logged prefill and decode (or inference) durations, their sum, so server overhead is not model time", "server", "requests with a server record", componentAgg},
	{"Prefill (part of model)", "prefill_ms", "server scheduled_time", "server first_token_time; or the logged prefill duration", "server", "requests whose server logged prefill or both instants", componentAgg + "; formats that contributed are named"},
	{"Decode (part of model)", "decode_ms", "server first_token_time", "server end_time; or the logged decode duration", "server", "requests whose server logged decode or both instants", componentAgg + "; formats that contributed are named"},
	{"Server overhead (part of application)", "server_overhead_ms", "server E2E", "minus queue, minus logged model load, minus logged prefill and decode (or inference): API, tokenization, detokenization, IPC", "server", "requests whose server logged prefill and decode, or inference, as durations; NULL for instants only (native)", componentAgg + "; formats that contributed are named"},
	{"Model load (part of application)", "load_ms", "server handler start", "a runner ready: the logged load duration (Ollama's load_duration: waiting for a runner plus loading the model when it was not resident), neither queue nor prefill; Ollama's queue wait is inside it, so its queue_ms is NULL", "server", "requests whose server logged a load", "per request in requests.parquet; in the tables, inside application"},
	{"TTFT network", "ttft_network_ms", "client TTFT", "minus server TTFT minus TTFT application", "client, gateway and server durations, each on its own clock", "streamed requests with all three tiers", ttftAgg},
	{"TTFT application", "ttft_application_ms", "gateway start_time to upstream_start_time, plus", "gateway upstream time (upstream_start to upstream_end) minus server E2E, plus TTFT server overhead where known", "gateway and server durations, each on its own clock", "streamed requests with gateway and server records", ttftAgg},
	{"TTFT queue", "ttft_queue_ms", "as Queue", "as Queue", "server", "streamed requests with a server record", ttftAgg},
	{"TTFT model", "ttft_model_ms", "server scheduled_time", "server first_token_time; the logged prefill duration where the server logged one", "server", "streamed requests with a server record", ttftAgg},
	{"TTFT prefill", "ttft_prefill_ms", "server scheduled_time", "server first_token_time; or the logged prefill duration", "server", "streamed requests whose server has a first token and a prefill", ttftAgg},
	{"TTFT server overhead (part of TTFT application)", "ttft_server_overhead_ms", "server TTFT", "minus queue minus the logged prefill duration", "server", "streamed requests whose server logged prefill as a duration", ttftAgg},
	{"Model per output token", "", "server scheduled_time", "server end_time; value = model_ms / output_tokens", "server", "requests with a server record and output_tokens > 0", "P50/P90/P95/P99 per phase and P50/P95 per replica by quantile_cont, n shown"},
	{"Concurrency", "concurrency", "–", "value = requests of the same replica with arrival_time <= this arrival_time < end_time, this one included", "server (one replica's clock)", "requests with a server record, replica and end_time", "max per replica; concurrency_bucket 1, 2-4, 5-8, 9-16, 17+ can slice the report (--by)"},
	{"Phase", "phase", "–", "cold: arrived at a replica during its warm-up, from its first request (when slow) until its first request that is not: slow = decode per token >= 2.5x the replica's usual P25, or prefill >= 2.5x its usual P90, or queue >= 2.5x its usual median model time, or a logged model load >= 2.5x its usual median and >= 100 ms (usual: the lower of its own and its model's; a replica without a label is its log file); else burst: in a run of >= 31 arrivals of one host whose local rate (30 arrivals over the span of the 31 centred on each) is >= 2x that host's usual rate (its median over time); a request waiting in a replica's queue behind a cold, else burst, request of the same busy period takes that phase; else steady", "one host per decision: the replica for cold; the gateway host, else the client host, else the replica for burst", "every request; cold needs a server record, burst a host with >= 31 arrivals", "each phase reported on its own (Phases), never merged; phase can slice the report (--by)"},
	{"Time series", "", "window start, aligned by time_bucket", "window start + width; width is the smallest of 1 s to 24 h giving at most 40 windows", "start of each request (first tier on its path)", "every request; P95s over requests with the value", "per window: arrivals/s = requests / width, P95 by quantile_cont with n"},
}

// FormatCapability says what one server log format can give the analysis:
// which measures, whether it carries the request ID, and how its records
// join to the gateway and client. Reports print it next to what the rows
// actually present gave.
type FormatCapability struct {
	Format    string
	Queue     string
	Prefill   string
	Decode    string
	TTFT      string
	Tokens    string
	RequestID string
	Join      string
}

// Capabilities lists the server formats ingest reads, as their doc comments
// in ingest describe them.
var Capabilities = []FormatCapability{
	{"native", "scheduled - arrival", "first_token - scheduled", "end - first_token", "first_token - arrival", "prompt, output", "yes", "request ID"},
	{"vllm-otlp", "time_in_queue (engine queue)", "time_in_model_prefill (V1)", "time_in_model_decode (V1)", "time_to_first_token", "prompt, output", "yes (X-Request-Id, mapped back)", "request ID, else trace ID; server overhead = e2e - queue - prefill - decode"},
	{"vllm-log", "–", "–", "–", "–", "–", "yes", "request ID; annotations only (finish reason, error), never timed"},
	{"tgi", "queue_time (validation_time before it is server overhead)", "– (inference_time is prefill + decode)", "–", "–", "output (derived)", "no", "by time to a gateway record, skew estimated per TGI and gateway host"},
	{"triton", "QUEUE_START to COMPUTE_START", "– (COMPUTE is prefill + decode)", "–", "–", "–", "when the client sets the body id", "request ID; durations only, no instants"},
	{"sglang-metrics, sglang-log", "queue_time (tokenization and dispatch before it are server overhead)", "prefill_finished - forward_entry", "finished - prefill_finished", "prefill_finished - received", "prompt, output", "yes (rid)", "request ID"},
	{"trtllm", "first_scheduled - arrival", "first_token - first_scheduled", "last_token - first_token", "first_token - arrival", "–", "no (executor ID)", "none: no request ID and no wall-clock time"},
	{"ollama-json", "– (load_duration, in load_ms, holds the wait for a runner and the model load)", "prompt_eval_duration", "eval_duration", "–", "prompt, output", "no", "by time to a gateway record (created_at - total_duration to created_at), as TGI's"},
	{"ollama-gin", "–", "–", "–", "–", "–", "no", "none: no request ID and no instant (local time to the second): counted, never joined"},
}

// GlossaryEntry sets one metric of infertrace beside the names and
// definitions other tools give it, so a benchmark number and a production
// number can be compared.
type GlossaryEntry struct {
	Metric                                     string // infertrace's metric and its definition
	AIPerf, VLLM, GuideLLM, LLMPerf, OTelGenAI string
}

// Glossary compares infertrace's metrics with AIPerf (and GenAI-Perf, which
// defines them alike), vllm bench serve, GuideLLM, LLMPerf and the
// OpenTelemetry GenAI semantic conventions, as each tool's source or
// documentation defines them.
var Glossary = []GlossaryEntry{
	{"Client TTFT: client start (request sent) to first content token received",
		"time_to_first_token: request sent to first non-empty response",
		"TTFT: request sent to first chunk with content",
		"time_to_first_token_ms: request start to first token",
		"ttft_s: request sent to first chunk with content",
		"gen_ai.client.operation.time_to_first_chunk (client); gen_ai.server.time_to_first_token (server, successful responses only; seconds)"},
	{"Client E2E: request sent to last byte received (the client's own logged duration where it has one)",
		"request_latency: request sent to final response",
		"E2EL: request sent to last chunk",
		"request_latency: request start to end (seconds)",
		"end_to_end_latency_s: request sent to last chunk",
		"gen_ai.client.operation.duration (client); gen_ai.server.request.duration: to last byte or last output token (server)"},
	{"TPOT (tpot_ms, contracts): (client E2E − client TTFT) / (output tokens − 1): the first token excluded",
		"inter_token_latency: (request_latency − TTFT) / (output tokens − 1), the first token excluded",
		"TPOT: (E2EL − TTFT) / (output tokens − 1), \"excl. 1st token\"",
		"time_per_output_token_ms: (last token − first token) / output tokens: divides by every token though the interval starts at the first",
		"–",
		"gen_ai.server.time_per_output_token: per output token after the first (server, successful responses)"},
	{"ITL: not a per-gap figure in infertrace (logs give no per-token times); mean ITL = TPOT",
		"inter_token_latency (as above; the mean gap of one request)",
		"ITL: every gap between consecutive chunks, pooled over requests (a chunk may hold several tokens)",
		"inter_token_latency_ms: (last token − first token) / (output tokens − 1), as infertrace's TPOT",
		"inter_token_latency_s: (TTFT + every later gap) / output tokens: includes the first token's wait",
		"gen_ai.client.operation.time_per_output_chunk: each chunk after the first, from the end of the previous"},
	{"Per-user tokens/s (tps_user): (output tokens − 1) / (E2E − TTFT) = 1000 / TPOT; streamed requests",
		"output_token_throughput_per_user: 1 / inter_token_latency",
		"– (1000 / TPOT)",
		"output_tokens_per_second per request: output tokens / request latency (TTFT included)",
		"request_output_throughput_token_per_s: output tokens / E2E (TTFT included)",
		"–"},
	{"Service-wide output tokens/s: output tokens of completed requests / (last − first request start)",
		"output_token_throughput: output tokens / benchmark duration",
		"Output token throughput: output tokens / benchmark duration",
		"output tokens per second over the benchmark",
		"overall_output_throughput: output tokens / test duration",
		"– (from gen_ai.client.token.usage over time)"},
}
