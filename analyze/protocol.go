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
	// pctRule is how every percentile of a report is shown, the rule of
	// queries/macros.sql (pct_too_small, pct_lo_rank, pct_hi_rank) and
	// queries/pct_ci.sql.
	pctRule        = `; every P95 and P99 with its 95% interval from order statistics (distribution-free: the samples of ranks floor(nq − 1.96 √(nq(1 − q))) and ceil(nq + 1.96 √(nq(1 − q))) + 1, a bound beyond the n samples open, "…"); a percentile from n < 1/(1 − q) samples (P50 from fewer than 2, P90 from fewer than 10, P95 from fewer than 20, P99 from fewer than 100) is "n too small", never a number, and no finding rests on it`
	quantileMethod = "P50/P90/P95/P99 by quantile_cont (linear interpolation between ranks), n shown" + pctRule
	componentAgg   = "P50/P95 by quantile_cont, n shown; mean over the slowest 5% by client E2E" + pctRule
	ttftAgg        = "P50/P95 by quantile_cont, n shown; mean over the slowest 5% by client TTFT" + pctRule
)

// PercentileRule is the rule every percentile's interval and "n too
// small" follow (pctRule without its "; "), for a report that states it
// once rather than in each Method.
var PercentileRule = pctRule[len("; "):]

// Protocol is the measurement protocol: for every metric, where its timer
// starts and stops, on which tier's clock, for which requests, and how it is
// aggregated.
var Protocol = []ProtocolEntry{
	{"Client E2E", "client_e2e_ms", "client start_time (request sent)", "client end_time (last byte received); the client's own logged end-to-end duration wherever it logs one (vllm-bench; AIPerf's request_latency, from sending to the final response on perf_counter, which is this definition: older AIPerf releases stamp request_end_ns when the record closes, after the final response, 8 ms later in AIPerf's own sample, so end - start is kept apart as client_wall_e2e_ms)", "client", "successful requests with a client record, streamed or not", quantileMethod},
	{"Gateway E2E", "gateway_e2e_ms", "gateway start_time (request received)", "gateway end_time (response fully sent)", "gateway", "successful requests with a gateway record", quantileMethod},
	{"Server E2E (inference only)", "server_e2e_ms", "server arrival_time", "server end_time; the server's logged end-to-end duration wherever it logs one", "server", "successful requests with a server record", quantileMethod},
	{"Client TTFT", "client_ttft_ms", "client start_time", "client first_token_time (first content token received); the client's logged TTFT wherever it logs one", "client", "successful streamed requests with a client first-token time", quantileMethod},
	{"Server TTFT", "server_ttft_ms", "server arrival_time", "server first_token_time (first output token produced); the server's logged TTFT wherever it logs one", "server", "successful streamed requests (per the client record) with a server first-token time", quantileMethod},
	{"Gateway TTFT (logged)", "gateway_ttft_ms", "as the gateway defines it (request received)", "as the gateway defines it (first response chunk); the duration the gateway logged (Envoy AI Gateway, Kong)", "gateway", "successful streamed requests with a gateway TTFT; another view of TTFT, never part of the attribution", quantileMethod},
	{"Gateway upstream TTFB", "gateway_upstream_ttfb_ms", "gateway upstream_start_time (forwarded)", "gateway upstream_first_byte_time (first byte of the upstream response)", "gateway", "successful streamed requests whose gateway logged the upstream's first byte; another view of TTFT, never part of the attribution", quantileMethod},
	{"Per-user tokens/s", "tps_user", "client TTFT (first token)", "client E2E (end), so the client's logged durations where it logs them (AIPerf); value = (output_tokens − 1) / interval: the tokens after the first over the time they took", "client", "successful streamed requests with at least two tokens and a positive first-token-to-end interval", quantileMethod},
	{"Service-wide output tokens/s", "", "earliest start in the slice", "latest start in the slice; value = sum of output_tokens of completed requests / window seconds", "start of each request (first tier on its path)", "completed requests in the slice: HTTP 2xx, or, where no tier logged a status (AIPerf, GuideLLM, vllm bench), no error logged; not a per-user rate", "one value per slice, with the window"},
	{"Successful request (latency sample)", "completed, aborted", "–", "–", "the status the client logged, else the gateway, else the server", "completed (status 2xx; where no tier logged a status, no error logged: AIPerf, GuideLLM and vllm bench log only an error for a failure) and not aborted (the client did not leave before the response ended: no 499, no Envoy DC, the server did not outlive the tier in front of it)", "the only samples of every latency and rate percentile (slices, attribution, phases, replicas, time series, trend) and of the slowest 5%: a failure, often fast (a 429, an overloaded server's 503) or cut short (a timeout), would pull them down; one definition, request_outcome of queries/macros.sql"},
	{"Error rate (Failed)", "completed", "–", "–", "the status the client logged, else the gateway, else the server", "every request of the slice", "failed = requests not completed (any status but 2xx, 499 and a client's status 0 on a cancel included, or an error logged without a status); error rate = failed / all requests of the slice, shown with both counts and the failures by status; completed requests whose client left (aborted) are not failed, nor latency samples; the failures' own client, gateway and server E2E per status (P50 by quantile_cont, n shown) under Failed requests, never mixed into the percentiles" + pctRule},
	{"Network", "network_ms", "client E2E", "minus gateway E2E", "client and gateway durations, each on its own clock", "successful requests with client and gateway records", componentAgg},
	{"Application", "application_ms", "gateway E2E", "minus server E2E, plus server overhead and model load where the server logged them (gateway work, the gateway-server hop, and the server's own non-model work)", "gateway and server durations, each on its own clock", "successful requests with gateway and server records", componentAgg},
	{"Queue", "queue_ms", "entry into the scheduler's queue: the server's logged queue duration wherever it logs one (TGI and SGLang queue_time, vLLM time_in_queue, Triton, TensorRT-LLM); else server arrival_time", "server scheduled_time (left the queue); server work before the queue (validation, tokenization, API-to-scheduler IPC) is server overhead, part of application, never queue", "server", "successful requests with a server record", componentAgg},
	{"Model", "model_ms", "server scheduled_time", "server end_time; where the server logged prefill and decode (or inference) durations, their sum, so server overhead is not model time", "server", "successful requests with a server record", componentAgg},
	{"Prefill (part of model)", "prefill_ms", "server scheduled_time", "server first_token_time; or the logged prefill duration", "server", "successful requests whose server logged prefill or both instants", componentAgg + "; formats that contributed are named"},
	{"Decode (part of model)", "decode_ms", "server first_token_time", "server end_time; or the logged decode duration", "server", "successful requests whose server logged decode or both instants", componentAgg + "; formats that contributed are named"},
	{"Server overhead (part of application)", "server_overhead_ms", "server E2E", "minus queue, minus logged model load, minus logged prefill and decode (or inference): API, tokenization, detokenization, IPC", "server", "successful requests whose server logged prefill and decode, or inference, as durations; NULL for instants only (native)", componentAgg + "; formats that contributed are named"},
	{"Model load (part of application)", "load_ms", "server handler start", "a runner ready: the logged load duration (Ollama's load_duration: waiting for a runner plus loading the model when it was not resident), neither queue nor prefill; Ollama's queue wait is inside it, so its queue_ms is NULL", "server", "requests whose server logged a load", "per request in requests.parquet; in the tables, inside application"},
	{"TTFT network", "ttft_network_ms", "client TTFT", "minus server TTFT minus TTFT application", "client, gateway and server durations, each on its own clock", "successful streamed requests with all three tiers", ttftAgg},
	{"TTFT application", "ttft_application_ms", "gateway start_time to upstream_start_time, plus", "gateway upstream time (upstream_start to upstream_end) minus server E2E, plus TTFT server overhead where known", "gateway and server durations, each on its own clock", "successful streamed requests with gateway and server records", ttftAgg},
	{"TTFT queue", "ttft_queue_ms", "as Queue", "as Queue", "server", "successful streamed requests with a server record", ttftAgg},
	{"TTFT model", "ttft_model_ms", "server scheduled_time", "server first_token_time; the logged prefill duration where the server logged one", "server", "successful streamed requests with a server record", ttftAgg},
	{"TTFT prefill", "ttft_prefill_ms", "server scheduled_time", "server first_token_time; or the logged prefill duration", "server", "successful streamed requests whose server has a first token and a prefill", ttftAgg},
	{"TTFT server overhead (part of TTFT application)", "ttft_server_overhead_ms", "server TTFT", "minus queue minus the logged prefill duration", "server", "successful streamed requests whose server logged prefill as a duration", ttftAgg},
	{"Model per output token", "", "server scheduled_time", "server end_time; value = model_ms / output_tokens", "server", "successful requests with a server record and output_tokens > 0", "P50/P90/P95/P99 per phase and P50/P95 per replica by quantile_cont, n shown" + pctRule},
	{"Concurrency", "concurrency", "–", "value = requests of the same replica with arrival_time <= this arrival_time < end_time, this one included", "server (one replica's clock)", "requests with a server record, replica and end_time", "max per replica; concurrency_bucket 1, 2-4, 5-8, 9-16, 17+ can slice the report (--by)"},
	{"Phase", "phase", "–", "cold: arrived at a replica during its warm-up, from its first request (when slow) until its first request that is not: slow = decode per token >= 2.5x the replica's usual P25, or prefill >= 2.5x its usual P90, or queue >= 2.5x its usual median model time, or a logged model load >= 2.5x its usual median and >= 100 ms (usual: the lower of its own and its model's; a replica without a label is its log file); else burst: in a run of >= 31 arrivals of one host whose local rate (30 arrivals over the span of the 31 centred on each) is >= 2x that host's usual rate (its median over time); a request waiting in a replica's queue behind a cold, else burst, request of the same busy period takes that phase; else steady", "one host per decision: the replica for cold; the gateway host, else the client host, else the replica for burst", "every request; cold needs a server record, burst a host with >= 31 arrivals", "each phase reported on its own (Phases), never merged; phase can slice the report (--by)"},
	{"Time series", "", "window start, aligned by time_bucket", "window start + width; width is the smallest of 1 s to 24 h giving at most 40 windows", "start of each request (first tier on its path)", "every request, failed ones included; P95s over successful requests with the value", "per window: arrivals/s = requests / width, P95 by quantile_cont with n" + pctRule},
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
	{"ollama-gin", "–", "–", "–", "–", "–", "no", "none: no request ID, and its own time has no zone (a collector's time gives the end): counted, never joined"},
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
// documentation defines them: vLLM's vllm/benchmarks/serve.py
// (calculate_metrics) and vllm/benchmarks/lib/endpoint_request_func.py
// (where each timer starts and stops); OpenTelemetry's
// docs/gen-ai/gen-ai-metrics.md (open-telemetry/semantic-conventions, since
// moved to open-telemetry/semantic-conventions-genai). The glossary of
// docs/report.md is this table and GlossaryNotes as the Markdown report
// renders them (report's TestDocsGlossary checks it).
var Glossary = []GlossaryEntry{
	{"Client TTFT: client start (request sent) to first content token received",
		"time_to_first_token: request sent to first non-empty response",
		"TTFT: request sent (after the benchmark's own concurrency wait) to the first streamed chunk carrying a choice, even an empty one (a chat stream's role chunk)",
		"time_to_first_token_ms: request start to first token",
		"ttft_s: request sent to first chunk with content",
		"gen_ai.client.operation.time_to_first_chunk: request issued to the first chunk received, streaming calls only (client); gen_ai.server.time_to_first_token: time to generate the first token, successful responses only (server)"},
	{"Client E2E: request sent to last byte received (the client's own logged duration where it has one)",
		"request_latency: request sent to final response",
		"E2EL: request sent to the last chunk carrying a choice (not the trailing usage chunk or [DONE]); successful requests only; the concurrency wait is apart (E2EL incl. Client Queue)",
		"request_latency: request start to end (seconds)",
		"end_to_end_latency_s: request sent to last chunk",
		"gen_ai.client.operation.duration: the whole operation, failed ones included (error.type) (client); gen_ai.server.request.duration: e.g. to the last byte or last output token, errors included (server)"},
	{"TPOT (tpot_ms, contracts): (client E2E − client TTFT) / (output tokens − 1): the first token excluded",
		"inter_token_latency: (request_latency − TTFT) / (output tokens − 1), the first token excluded",
		"TPOT: (E2EL − TTFT) / (output tokens − 1), \"excl. 1st token\"; output tokens from the usage chunk, else the text re-tokenized; requests with one token left out",
		"time_per_output_token_ms: (last token − first token) / output tokens: divides by every token though the interval starts at the first",
		"–",
		"gen_ai.server.time_per_output_token: (request duration − time to first token) / output tokens after the first, successful responses only (server)"},
	{"ITL: not a per-gap figure in infertrace (logs give no per-token times); mean ITL = TPOT",
		"inter_token_latency (as above; the mean gap of one request)",
		"ITL: every gap between consecutive chunks carrying a choice, pooled over requests (a chunk may hold several tokens, e.g. with speculative decoding)",
		"inter_token_latency_ms: (last token − first token) / (output tokens − 1), as infertrace's TPOT",
		"inter_token_latency_s: (TTFT + every later gap) / output tokens: includes the first token's wait",
		"gen_ai.client.operation.time_per_output_chunk: each chunk after the first, from the end of the previous chunk to the end of this one, streaming calls only"},
	{"Per-user tokens/s (tps_user): (output tokens − 1) / (E2E − TTFT) = 1000 / TPOT; streamed requests",
		"output_token_throughput_per_user: 1 / inter_token_latency",
		"– (no per-request rate; 1000 / TPOT)",
		"output_tokens_per_second per request: output tokens / request latency (TTFT included)",
		"request_output_throughput_token_per_s: output tokens / E2E (TTFT included)",
		"–"},
	{"Service-wide output tokens/s: output tokens of completed requests / (last − first request start)",
		"output_token_throughput: output tokens / benchmark duration",
		"Output token throughput (output_throughput): output tokens of successful requests / benchmark duration (start to the last response); Total token throughput adds the input tokens; Peak output token throughput: the most tokens in one 1-s bucket",
		"output tokens per second over the benchmark",
		"overall_output_throughput: output tokens / test duration",
		"– (from gen_ai.client.token.usage over time)"},
	{"Request rate and goodput (contracts): completions_per_hour = completed requests / (last − first request start); goodput_per_s = requests meeting every per-request latency target / that window",
		"request_throughput: requests / benchmark duration; goodput: requests per second meeting every --goodput constraint",
		"Request throughput (request_throughput): successful requests / benchmark duration; Request goodput: successful requests meeting every --goodput SLO (TTFT, TPOT, E2EL) / benchmark duration",
		"requests_per_second: its distribution over the benchmark, by status (successful, errored, incomplete)",
		"num_completed_requests_per_min: requests without error / test duration × 60",
		"–"},
}

// GlossaryNotes say where the definitions of the Glossary differ, so a
// benchmark number and a production number are compared for what they are.
var GlossaryNotes = []string{
	"TPOT and ITL: GuideLLM's TPOT and LLMPerf's ITL divide by every output token, so for short answers they are smaller than vLLM's and AIPerf's TPOT (and LLMPerf's includes the wait for the first token); vLLM's ITL is per chunk gap, pooled, so its percentiles are of gaps, not of requests.",
	"Per-user tokens/s: GuideLLM's and LLMPerf's per-request rates include TTFT; infertrace's tps_user and AIPerf's per-user throughput do not; vllm bench has none.",
	"Where the timers stop: vllm bench's TTFT stops at the first chunk carrying a choice even when it is empty, so it can be shorter than infertrace's client TTFT (the first content token) where the server sends a role chunk first; its E2EL stops at the last chunk carrying a choice, so it is shorter than infertrace's client E2E (the last byte) by the trailing usage chunk and [DONE].",
	"Where the timers start: the client tools start when they send the request (vllm bench after its own concurrency limit, whose wait it reports apart), as infertrace's client TTFT and E2E do, so the server's tokenization is inside them; a server's TTFT and E2E (infertrace's server TTFT and server E2E, from the server's arrival) leave out the network and the gateway but hold the server's own tokenization and queue; OpenTelemetry's server metrics do not say where the server's timer starts.",
	"Which requests: vllm bench and LLMPerf leave failed requests out of every latency and throughput, and OpenTelemetry's server TTFT and TPOT count successful responses only, while its client and server durations include errors (error.type); infertrace's latency percentiles take successful requests only (completed and not aborted), with the failures counted apart (error rate, by status), and its tokens/s and completions count completed requests.",
	"Rates: the benchmarks divide by the benchmark's duration (until the last response), infertrace by the window from the first to the last request start, so over a short run infertrace's rate is the higher: its window leaves out the last requests' own run time. OpenTelemetry's durations are in seconds, infertrace's in milliseconds.",
}
