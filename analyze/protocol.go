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
	{"Client E2E", "client_e2e_ms", "client start_time (request sent)", "client end_time (last byte received)", "client", "requests with a client record, streamed or not", quantileMethod},
	{"Gateway E2E", "gateway_e2e_ms", "gateway start_time (request received)", "gateway end_time (response fully sent)", "gateway", "requests with a gateway record", quantileMethod},
	{"Server E2E (inference only)", "server_e2e_ms", "server arrival_time", "server end_time", "server", "requests with a server record", quantileMethod},
	{"Client TTFT", "client_ttft_ms", "client start_time", "client first_token_time (first content token received)", "client", "streamed requests with a client first-token time", quantileMethod},
	{"Server TTFT", "server_ttft_ms", "server arrival_time", "server first_token_time (first output token produced)", "server", "streamed requests (per the client record) with a server first-token time", quantileMethod},
	{"Per-user tokens/s", "tps_user", "client first_token_time", "client end_time; value = output_tokens / interval", "client", "streamed requests with a positive first-token-to-end interval", quantileMethod},
	{"Service-wide output tokens/s", "", "earliest start in the slice", "latest start in the slice; value = sum of output_tokens of completed (HTTP 2xx) requests / window seconds", "start of each request (first tier on its path)", "completed requests in the slice; not a per-user rate", "one value per slice, with the window"},
	{"Network", "network_ms", "client E2E", "minus gateway E2E", "client and gateway durations, each on its own clock", "requests with client and gateway records", componentAgg},
	{"Application", "application_ms", "gateway E2E", "minus server E2E (gateway work plus the gateway-server hop)", "gateway and server durations, each on its own clock", "requests with gateway and server records", componentAgg},
	{"Queue", "queue_ms", "server arrival_time", "server scheduled_time (left the queue)", "server", "requests with a server record", componentAgg},
	{"Model", "model_ms", "server scheduled_time", "server end_time", "server", "requests with a server record", componentAgg},
	{"TTFT network", "ttft_network_ms", "client TTFT", "minus server TTFT minus TTFT application", "client, gateway and server durations, each on its own clock", "streamed requests with all three tiers", ttftAgg},
	{"TTFT application", "ttft_application_ms", "gateway start_time to upstream_start_time, plus", "gateway upstream time (upstream_start to upstream_end) minus server E2E", "gateway and server durations, each on its own clock", "streamed requests with gateway and server records", ttftAgg},
	{"TTFT queue", "ttft_queue_ms", "server arrival_time", "server scheduled_time", "server", "streamed requests with a server record", ttftAgg},
	{"TTFT model", "ttft_model_ms", "server scheduled_time", "server first_token_time", "server", "streamed requests with a server record", ttftAgg},
	{"Model per output token", "", "server scheduled_time", "server end_time; value = model_ms / output_tokens", "server", "requests with a server record and output_tokens > 0", "P50/P90/P95/P99 per phase and P50/P95 per replica by quantile_cont, n shown"},
	{"Concurrency", "concurrency", "–", "value = requests of the same replica with arrival_time <= this arrival_time < end_time, this one included", "server (one replica's clock)", "requests with a server record, replica and end_time", "max per replica; concurrency_bucket 1, 2-4, 5-8, 9-16, 17+ can slice the report (--by)"},
	{"Phase", "phase", "–", "cold: arrived at a replica during its warm-up, from its first request until its first request decoding at < 2.5x the model's lower-quartile time per token ((end - first_token) / (output_tokens - 1)), when its first such request decoded at >= 2.5x; else burst: local arrival rate (30 arrivals over the span of the 31 centred on this one, on one host) >= 2x that host's usual rate (its median over time); else steady", "one host per decision: the replica for cold; the gateway host, else the client host, else the replica for burst", "every request; cold needs a server record, burst a host with >= 31 arrivals", "each phase reported on its own (Phases), never merged; phase can slice the report (--by)"},
	{"Time series", "", "window start, aligned by time_bucket", "window start + width; width is the smallest of 1 s to 24 h giving at most 40 windows", "start of each request (first tier on its path)", "every request; P95s over requests with the value", "per window: arrivals/s = requests / width, P95 by quantile_cont with n"},
}
