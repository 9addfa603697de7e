package ingest

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
// other. Empty strings and zero HTTP statuses are NULL. Counts and flags that
// have a meaningful zero are pointers, set through the row's own storage so
// decoding allocates nothing for them.

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
	SourceFile   string `parquet:"source_file,dict"`
	SourceLine   int64  `parquet:"source_line"`

	streamed     bool
	promptTokens int32
	outputTokens int32
}

// GatewayRow is one request as the gateway (proxy, API gateway, LLM router)
// saw it.
type GatewayRow struct {
	RequestID     string `parquet:"request_id"`
	Start         int64  `parquet:"start_time,optional,timestamp(nanosecond:local)"`
	End           int64  `parquet:"end_time,optional,timestamp(nanosecond:local)"`
	UpstreamStart int64  `parquet:"upstream_start_time,optional,timestamp(nanosecond:local)"`
	UpstreamEnd   int64  `parquet:"upstream_end_time,optional,timestamp(nanosecond:local)"`
	Status        int32  `parquet:"status,optional"`
	Route         string `parquet:"route,optional,dict"`
	Upstream      string `parquet:"upstream,optional,dict"`
	Gateway       string `parquet:"gateway,optional,dict"`
	SourceFile    string `parquet:"source_file,dict"`
	SourceLine    int64  `parquet:"source_line"`
}

// ServerRow is one request as the inference server saw it.
type ServerRow struct {
	RequestID    string `parquet:"request_id"`
	Arrival      int64  `parquet:"arrival_time,optional,timestamp(nanosecond:local)"`
	Scheduled    int64  `parquet:"scheduled_time,optional,timestamp(nanosecond:local)"`
	FirstToken   int64  `parquet:"first_token_time,optional,timestamp(nanosecond:local)"`
	End          int64  `parquet:"end_time,optional,timestamp(nanosecond:local)"`
	Model        string `parquet:"model,optional,dict"`
	Replica      string `parquet:"replica,optional,dict"`
	PromptTokens *int32 `parquet:"prompt_tokens,optional"`
	OutputTokens *int32 `parquet:"output_tokens,optional"`
	FinishReason string `parquet:"finish_reason,optional,dict"`
	Status       int32  `parquet:"status,optional"`
	SourceFile   string `parquet:"source_file,dict"`
	SourceLine   int64  `parquet:"source_line"`

	promptTokens int32
	outputTokens int32
}

// Row is the set of tier row types; the pipeline is generic over it.
type Row interface {
	ClientRow | GatewayRow | ServerRow
}

func (r *ClientRow) setStreamed(v bool)      { r.streamed = v; r.Streamed = &r.streamed }
func (r *ClientRow) setPromptTokens(v int32) { r.promptTokens = v; r.PromptTokens = &r.promptTokens }
func (r *ClientRow) setOutputTokens(v int32) { r.outputTokens = v; r.OutputTokens = &r.outputTokens }
func (r *ServerRow) setPromptTokens(v int32) { r.promptTokens = v; r.PromptTokens = &r.promptTokens }
func (r *ServerRow) setOutputTokens(v int32) { r.outputTokens = v; r.OutputTokens = &r.outputTokens }

// SetSource records where the row came from, so a slow request can be traced
// back to its raw log line.
func (r *ClientRow) setSource(file string, line int64)  { r.SourceFile, r.SourceLine = file, line }
func (r *GatewayRow) setSource(file string, line int64) { r.SourceFile, r.SourceLine = file, line }
func (r *ServerRow) setSource(file string, line int64)  { r.SourceFile, r.SourceLine = file, line }
