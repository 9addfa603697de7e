package record

// Tier names one view of a request: what the client, the gateway (the
// application tier) or the inference server logged about it. Each tier is
// written to its own Parquet table, DIR/<tier>/*.parquet.
type Tier string

const (
	Client  Tier = "client"
	Gateway Tier = "gateway"
	Server  Tier = "server"
)

// Tiers lists the tiers in request-path order.
var Tiers = []Tier{Client, Gateway, Server}

// The row types below are the Parquet schemas of the three tables. Times are
// Unix nanoseconds on the clock of the host that logged them (a zero time is
// written as NULL); times of two tiers must never be subtracted from each
// other. Empty strings and zero HTTP statuses are NULL. Counts, flags and
// durations that have a meaningful zero are pointers (nil is NULL), set with
// Int32Ptr, BoolPtr and NSPtr, which share storage for common values so
// decoding rarely allocates for them. Rows are plain values: nothing may write
// through those pointers. The tags name the columns and say which are
// optional; ingest/wire.go writes each column from its field and takes the files'
// schema from its wire types, which repeat these tags.

// ClientRow is one request as the client (an application or a load
// generator) saw it.
type ClientRow struct {
	RequestID    string `parquet:"request_id"`
	Start        int64  `parquet:"start_time,optional,timestamp(nanosecond:local)"`
	FirstToken   int64  `parquet:"first_token_time,optional,timestamp(nanosecond:local)"`
	End          int64  `parquet:"end_time,optional,timestamp(nanosecond:local)"`
	Status       int32  `parquet:"status,optional"`
	Error        string `parquet:"error,optional,dict"`
	Streamed     *bool  `parquet:"streamed,optional"`
	Model        string `parquet:"model,optional,dict"`
	UseCase      string `parquet:"use_case,optional,dict"`
	Client       string `parquet:"client,optional,dict"`
	Region       string `parquet:"region,optional,dict"`
	PromptTokens *int32 `parquet:"prompt_tokens,optional"`
	OutputTokens *int32 `parquet:"output_tokens,optional"`
	// Load generators that time on a monotonic clock give durations rather
	// than wall instants: end-to-end and time to first token, in ns.
	E2ENS  *int64 `parquet:"e2e_ns,optional"`
	TTFTNS *int64 `parquet:"ttft_ns,optional"`
	// ResponseID is the response body's "id" (e.g. vLLM's chatcmpl-<id>),
	// for clients that log no request ID.
	ResponseID string `parquet:"response_id,optional"`
	TraceID    string `parquet:"trace_id,optional"`
	Format     string `parquet:"format,dict"`
	SourceFile string `parquet:"source_file,dict"`
	SourceLine int64  `parquet:"source_line"`
}

// GatewayRow is one request as the gateway (proxy, API gateway, LLM router)
// saw it.
type GatewayRow struct {
	RequestID     string `parquet:"request_id"`
	Start         int64  `parquet:"start_time,optional,timestamp(nanosecond:local)"`
	End           int64  `parquet:"end_time,optional,timestamp(nanosecond:local)"`
	UpstreamStart int64  `parquet:"upstream_start_time,optional,timestamp(nanosecond:local)"`
	UpstreamEnd   int64  `parquet:"upstream_end_time,optional,timestamp(nanosecond:local)"`
	// UpstreamFirstByte is when the first byte of the upstream response
	// arrived (Envoy US_RX_BODY_BEG / %RESPONSE_DURATION%): the gateway's view
	// of the server's first token for streamed responses.
	UpstreamFirstByte int64  `parquet:"upstream_first_byte_time,optional,timestamp(nanosecond:local)"`
	Status            int32  `parquet:"status,optional"`
	Route             string `parquet:"route,optional,dict"`
	Upstream          string `parquet:"upstream,optional,dict"`
	Gateway           string `parquet:"gateway,optional,dict"`
	// Attempts is how many upstream attempts the gateway made (NGINX lists
	// one value per attempt); the times above are of the last one.
	Attempts      *int32 `parquet:"attempts,optional"`
	ResponseFlags string `parquet:"response_flags,optional,dict"`
	// LLM gateways (Envoy AI Gateway, LiteLLM, Kong AI) also log the model,
	// token counts and the time to first token they measured.
	Model        string `parquet:"model,optional,dict"`
	PromptTokens *int32 `parquet:"prompt_tokens,optional"`
	OutputTokens *int32 `parquet:"output_tokens,optional"`
	TTFTNS       *int64 `parquet:"ttft_ns,optional"`
	TraceID      string `parquet:"trace_id,optional"`
	Format       string `parquet:"format,dict"`
	SourceFile   string `parquet:"source_file,dict"`
	SourceLine   int64  `parquet:"source_line"`
}

// ServerRow is one request as the inference server saw it. Servers log
// either instants (arrival, scheduled, first token, end) or durations they
// measured themselves, often on a monotonic clock (the *NS fields); a format
// fills what it has. Durations and instants of one row come from one host.
type ServerRow struct {
	// RequestID is the ID the gateway and client saw (a vLLM "chatcmpl-…-0"
	// is mapped back); EngineRequestID is the ID as the server logged it.
	// Formats that log no ID (TGI) leave both empty and are joined by time.
	RequestID       string `parquet:"request_id,optional"`
	EngineRequestID string `parquet:"engine_request_id,optional"`
	TraceID         string `parquet:"trace_id,optional"`
	Arrival         int64  `parquet:"arrival_time,optional,timestamp(nanosecond:local)"`
	Scheduled       int64  `parquet:"scheduled_time,optional,timestamp(nanosecond:local)"`
	FirstToken      int64  `parquet:"first_token_time,optional,timestamp(nanosecond:local)"`
	End             int64  `parquet:"end_time,optional,timestamp(nanosecond:local)"`
	// Durations the server measured, in nanoseconds: arrival to end, in the
	// queue, arrival to first token, prefill, decode, and prefill+decode where
	// a format does not split them.
	E2ENS       *int64 `parquet:"e2e_ns,optional"`
	QueueNS     *int64 `parquet:"queue_ns,optional"`
	TTFTNS      *int64 `parquet:"ttft_ns,optional"`
	PrefillNS   *int64 `parquet:"prefill_ns,optional"`
	DecodeNS    *int64 `parquet:"decode_ns,optional"`
	InferenceNS *int64 `parquet:"inference_ns,optional"`
	// LoadNS is the time the server spent getting the model ready to run
	// the request, before its prefill and outside queue_ns, prefill_ns and
	// decode_ns (Ollama's load_duration: waiting for a runner, plus loading
	// the model when it was not resident): a cold start when it is large.
	LoadNS       *int64 `parquet:"load_ns,optional"`
	Model        string `parquet:"model,optional,dict"`
	Replica      string `parquet:"replica,optional,dict"`
	PromptTokens *int32 `parquet:"prompt_tokens,optional"`
	OutputTokens *int32 `parquet:"output_tokens,optional"`
	FinishReason string `parquet:"finish_reason,optional,dict"`
	Status       int32  `parquet:"status,optional"`
	Error        string `parquet:"error,optional,dict"`
	Format       string `parquet:"format,dict"`
	SourceFile   string `parquet:"source_file,dict"`
	SourceLine   int64  `parquet:"source_line"`
}

// Row is the set of tier row types; the pipeline is generic over it.
type Row interface {
	ClientRow | GatewayRow | ServerRow
}

var (
	smallInts [1 << 16]int32 // shared storage for counts below 65536
	bools     = [2]bool{false, true}
)

func init() {
	for i := range smallInts {
		smallInts[i] = int32(i)
	}
}

func Int32Ptr(v int32) *int32 {
	if uint32(v) < uint32(len(smallInts)) {
		return &smallInts[v]
	}
	p := new(int32) // not &v, which would put v on the heap on every call
	*p = v
	return p
}

func BoolPtr(v bool) *bool {
	if v {
		return &bools[1]
	}
	return &bools[0]
}

func NSPtr(v int64) *int64 { return &v }

func SetSource[T Row](row *T, file string, line int64) {
	switch r := any(row).(type) {
	case *ClientRow:
		r.SourceFile, r.SourceLine = file, line
	case *GatewayRow:
		r.SourceFile, r.SourceLine = file, line
	case *ServerRow:
		r.SourceFile, r.SourceLine = file, line
	}
}
