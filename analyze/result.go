package analyze

import (
	"fmt"
	"time"
)

// RunStats summarizes one Run: where requests.parquet went, how the tiers
// joined, and how many requests are anomalous or retried.
type RunStats struct {
	Path      string   // DIR/requests.parquet
	Coverage  Coverage // requests per tier and tier combination
	Anomalous int64    // requests with at least one anomaly reason
	Retried   int64    // request IDs with more than one distinct record on a tier
	// Removed are the files made from the previous requests.parquet that
	// were removed (see Derived).
	Removed []string
}

// Coverage counts requests (distinct request IDs) by the tiers that logged
// them.
type Coverage struct {
	Requests      int64
	Client        int64
	Gateway       int64
	Server        int64
	ClientGateway int64
	GatewayServer int64
	ClientServer  int64
	AllTiers      int64
}

// InputFile is one row of DIR/manifest.json.
type InputFile struct {
	Tier       string `json:"tier"`
	Format     string `json:"format"`
	Path       string `json:"path"`
	Bytes      int64  `json:"bytes"`
	Lines      int64  `json:"lines"`
	Rows       int64  `json:"rows"`
	Rejected   int64  `json:"rejected"`
	Duplicates int64  `json:"duplicates"`
	Blank      int64  `json:"blank"`
	// Error is why the file was not read to its end (Incomplete: its
	// counts are of what came before, the rest is in none) or gave no
	// rows (its lines counted as rejected), without the path that starts
	// the manifest's text; "" when it was read whole.
	Error      string `json:"error"`
	Incomplete bool   `json:"incomplete"`
}

// Inputs lists the ingested files and their totals (Total has no Tier,
// Format or Path).
type Inputs struct {
	Files []InputFile
	Total InputFile
}

// NotRead lists the files whose reading stopped before their end.
func (in Inputs) NotRead() []InputFile {
	var out []InputFile
	for _, f := range in.Files {
		if f.Incomplete {
			out = append(out, f)
		}
	}
	return out
}

// OtherErrors lists the files read to their end with an error (their
// format could not be told, they gave no rows), and those of a manifest
// written before ingest said which files it read whole.
func (in Inputs) OtherErrors() []InputFile {
	var out []InputFile
	for _, f := range in.Files {
		if f.Error != "" && !f.Incomplete {
			out = append(out, f)
		}
	}
	return out
}

// RejectGroup counts rejected lines of one tier, file and kind, with up to
// five example locations formatted "file:line: reason". Raw lines are never
// carried.
type RejectGroup struct {
	Tier     string
	File     string
	Kind     string
	Lines    int64
	Examples []string
}

// ReasonCount is the number of requests flagged with one anomaly reason,
// with up to 3 example request IDs.
type ReasonCount struct {
	Reason   string
	Requests int64
	Examples []string
}

// SlowRequest is one of the slowest requests by client E2E, with where its
// records came from ("file:line" per tier, empty without a record).
type SlowRequest struct {
	RequestID     string
	Model         string
	UseCase       string
	Start         *time.Time
	ClientE2EMs   *float64
	NetworkMs     *float64
	ApplicationMs *float64
	QueueMs       *float64
	ModelMs       *float64
	// UnsplitMs is the time a missing tier leaves not split, UnsplitWhat
	// the components it stands for ("application + queue + model"...);
	// nil and "" when every component is split.
	UnsplitMs     *float64
	UnsplitWhat   string
	ServerE2EMs   *float64
	Anomaly       string
	ClientSource  string
	GatewaySource string
	ServerSource  string
}

// Dist is a latency (or rate) distribution: sample count and
// quantile_cont percentiles; nil where there are no samples.
type Dist struct {
	N   int64
	P50 *float64
	P90 *float64
	P95 *float64
	P99 *float64
	// P95CI and P99CI are the distribution-free 95% confidence intervals
	// of P95 and P99 (queries/pct_ci.sql); none where n is too small.
	P95CI, P99CI Interval
	// Small says which of P50, P90, P95, P99 have too few samples to be
	// shown (n < 1/(1 − q)): "n too small", not a number.
	Small [4]bool
}

// Component is one part of the latency attribution in one slice.
type Component struct {
	Name     string   // e.g. "network", "queue"
	Column   string   // requests.parquet column, e.g. "network_ms"
	N        int64    // requests having every tier the component needs
	P50      *float64 // quantile_cont
	P95      *float64
	TailN    int64    // slowest-5% requests having the component
	TailMean *float64 // mean over the slowest 5%, n = TailN
	Formats  []string // server formats of the requests behind it (server-derived components)
	// NotSplit, for the time a missing tier leaves not split (e.g. Name
	// "upstream (not split)"), names the components it stands for, e.g.
	// "application + queue + model"; "" for a component of its own.
	NotSplit string
	Missing  string // for such a component, the tier(s) whose record is missing, e.g. "server"
	// Small: P50, P95 from too few samples ("n too small"); P95CI the
	// 95% interval of the P95 (queries/pct_ci.sql), none where small.
	Small [2]bool
	P95CI Interval
}

// Slice holds the figures of one slice (or of all requests).
type Slice struct {
	All    bool     // the "all requests" row
	Label  string   // "all requests" or "model=m, use_case=u"
	Values []string // one value per Result.By column; "(none)" for NULL

	Requests int64
	// Failed counts the requests not completed (requests.parquet's
	// completed column): the error rate is Failed / Requests. Succeeded
	// counts the successful ones (completed and not aborted), the only
	// samples of every percentile of the slice; the rest completed but
	// their client left (aborted). Failures splits Failed by outcome, most
	// first.
	Failed, Succeeded int64
	Failures          []OutcomeCount
	WindowFirst       *time.Time // earliest start (first tier on the request path)
	WindowLast        *time.Time // latest start
	WindowS           *float64   // WindowLast - WindowFirst in seconds

	ClientE2E  Dist
	GatewayE2E Dist
	ServerE2E  Dist // inference only
	ClientTTFT Dist
	ServerTTFT Dist
	// The gateway's views of TTFT, never part of the attribution: its own
	// logged TTFT, and upstream start to the upstream's first byte.
	GatewayTTFT         Dist
	GatewayUpstreamTTFB Dist
	TPSUser             Dist // per-user output tokens/s (streamed)

	// Service-wide output tokens/s: CompletedOutputTokens over WindowS.
	ServiceTPS            *float64
	CompletedRequests     int64
	CompletedOutputTokens int64

	// The slowest 5%: requests whose client E2E is above E2ETailThreshold
	// (the slice's P95 client E2E).
	E2ETailThreshold *float64
	E2ETailN         int64
	E2ETailClientE2E *float64 // mean client E2E over the slowest 5%
	E2ETailServerE2E *float64 // mean server E2E over the slowest 5%...
	E2ETailServerN   int64    // ...of which this many have a server record
	E2E              []Component
	// ServerSplit is the finer split of server time where the server
	// logged it: prefill and decode (part of model) and server overhead
	// (part of application).
	ServerSplit []Component

	// The slowest 5% by client TTFT among streamed requests.
	TTFTTailThreshold  *float64
	TTFTTailN          int64
	TTFTTailClientTTFT *float64
	TTFT               []Component
	TTFTSplit          []Component // prefill and server overhead before the first token

	// Quality and cost, where evals or prices were given.
	Quality SliceQuality
}

// OutcomeCount is the number of requests of one outcome (request_outcome
// in queries/macros.sql): a failed request's status as text ("500",
// "429", "408", "0" for a client that logged none), "error" for one
// that logged an error but no status, "aborted" for a completed request
// whose client left.
type OutcomeCount struct {
	Outcome  string
	Requests int64
}

// Failure is one row of the table of the requests left out of the
// latency percentiles, one outcome over all requests, with its own E2E
// figures (queries/failures.sql).
type Failure struct {
	Outcome string
	// Failed: not completed, so counted in the error rate; false for
	// "aborted" (completed, but the client left).
	Failed   bool
	Requests int64
	// ClientE2E, GatewayE2E and ServerE2E of these requests alone.
	ClientE2E, GatewayE2E, ServerE2E Dist
}

// ServerFormat says what one server format present in the logs gives and
// how its records joined (queries/server_formats.sql).
type ServerFormat struct {
	Format     string
	Annotation bool  // annotations only (vllm-log): never timed
	Records    int64 // rows of the format
	WithID     int64 // rows carrying a request ID
	// Rows from which each measure can be taken (instants or durations).
	Queue, Prefill, Decode, TTFT int64
	InferenceOnly                int64 // rows with prefill+decode as one inference time
	Tokens                       int64 // rows with output_tokens
	Requests                     int64 // requests whose kept server record has the format
	ByID, ByTime                 int64 // of those, joined by ID / matched by time
	Ambiguous                    int64 // matched by time with >= 2 candidates
	MatchPool                    int64 // distinct TGI rows that could be matched by time
	Annotated                    int64 // requests with an annotation (vllm-log)
}

// TGIHost says how the TGI rows of one host (replica label, else log file)
// were matched by time (queries/tgi_hosts.sql): Records distinct rows that
// could be matched, Matched of them matched, GatewaySpans the gateway
// records a match could use. Format is the host's format: tgi, or
// ollama-json, whose rows are matched the same way.
type TGIHost struct {
	Host, Format                   string
	Records, Matched, GatewaySpans int64
}

// GatewayNoID says, for one gateway format, how its records that log no
// request ID and no trace ID but a start (Kong's file-log before 3.5, NGINX
// formats without $request_id) joined (queries/gateway_noid.sql): Records
// such rows, Matched of them matched to a server record by time (only
// unambiguous pairs), Coarse of them on gateway hosts whose every end is a
// whole second (NGINX's $time_local without $msec), never matched.
type GatewayNoID struct {
	Format                   string
	Records, Matched, Coarse int64
}

// JoinPair says how one pair of tiers joined: requests having both
// records, out of the requests having each, by join method
// (queries/joins.sql).
type JoinPair struct {
	Pair        string // "client-gateway", "gateway-server" or "client-server"
	Left, Right string // the two tiers
	Joined      int64  // requests with records on both tiers
	LeftTotal   int64  // requests with a record on Left
	RightTotal  int64  // requests with a record on Right
	Methods     []MethodCount
}

// MethodCount is the number of joined requests of one join method ("id",
// "response_id", "trace_id", "trace_order", "time").
type MethodCount struct {
	Method   string
	Requests int64
}

// UnjoinedRows counts, for one tier and format, the records kept (one per
// request on the tier, plus server rows without a request ID) and how many
// joined no other tier (queries/unjoined.sql).
type UnjoinedRows struct {
	Tier, Format string
	Records      int64
	NotJoined    int64
	// NoKey counts the gateway rows, among NotJoined, with no request ID,
	// no trace ID and no start (NGINX's combined format): in no request.
	NoKey int64
}

// Phase holds the figures of one phase: cold start, burst or steady state
// (see the protocol for how each request's phase is derived).
type Phase struct {
	Name        string // "cold", "burst" or "steady"
	Requests    int64
	WindowFirst *time.Time // earliest start in the phase
	WindowLast  *time.Time // latest start in the phase
	// Episodes is how many separate stretches the phase's requests fall
	// in (more than 10 minutes apart); 0 for steady state, not counted.
	Episodes int64

	ClientE2E   Dist
	ClientTTFT  Dist // streamed requests only
	Network     Dist
	Application Dist
	Queue       Dist
	Model       Dist
	// The time a missing tier leaves not split (the requests steps'
	// upstream_ms, network_application_ms, unsplit_ms).
	Upstream           Dist
	NetworkApplication Dist
	Unsplit            Dist
	ModelPerToken      Dist // model_ms / output_tokens, requests with output tokens
}

// Replica holds the figures of one inference replica.
type Replica struct {
	Replica        string
	Model          string
	Requests       int64
	FirstStart     *time.Time // earliest start of its requests: roughly when it joined
	LastStart      *time.Time
	Cold           int64 // requests detected as cold
	ModelPerTokenN int64
	ModelPerToken  [2]*float64 // P50, P95 of model_ms / output_tokens
	// ModelPerTokenSmall: P50, P95 with too few samples; ModelPerTokenCI
	// the 95% interval of the P95 (queries/pct_ci.sql).
	ModelPerTokenSmall [2]bool
	ModelPerTokenCI    Interval
	QueueSmall         bool // P95 queue from too few samples
	QueueCI            Interval
	QueueN             int64
	QueueP95           *float64
	MaxConcurrency     *int64 // most requests in flight at one arrival
}

// TimeWindow is one window of the time series of request starts.
type TimeWindow struct {
	Start        *time.Time
	WidthS       float64
	Requests     int64 // requests starting in the window, rejected ones included
	ArrivalsPerS float64
	ClientE2EN   int64
	ClientE2EP95 *float64
	QueueN       int64
	QueueP95     *float64
	ModelN       int64
	ModelP95     *float64
	Burst, Cold  int64 // requests detected as burst and as cold
	// AroundBurst: the series is the windows around the burst, not the
	// whole span (its width shows the burst; see queries/timeseries.sql).
	AroundBurst bool
	// ClientE2ESmall, QueueSmall, ModelSmall: that P95 from too few
	// samples (n < 20, "n too small"); the *CI fields its 95% interval
	// (queries/pct_ci.sql), none where small.
	ClientE2ESmall, QueueSmall, ModelSmall bool
	ClientE2ECI, QueueCI, ModelCI          Interval
}

// Result is everything a report shows; report renders it without SQL.
type Result struct {
	Dir          string
	By           []string
	Inputs       Inputs
	Coverage     Coverage
	Rejects      []RejectGroup
	RejectsTotal int64
	Anomalous    int64
	Anomalies    []ReasonCount
	Retried      int64
	// Aborted: the requests whose client left before the response ended.
	Aborted Aborted
	// Joins says how each pair of tiers joined, in path order; Unjoined,
	// per tier and format, the records that joined no other tier.
	Joins    []JoinPair
	Unjoined []UnjoinedRows
	// TGIHosts says per TGI host how its rows were matched by time.
	TGIHosts []TGIHost
	// GatewayNoID says per gateway format how its records without a
	// request ID were matched by time.
	GatewayNoID []GatewayNoID
	// ServerFormats lists the server formats present, most records first.
	ServerFormats []ServerFormat
	// Capabilities is the static list of what each server format can give.
	Capabilities []FormatCapability
	Slices       []Slice // Slices[0] is all requests
	// Failures are the requests left out of the latency percentiles, by
	// outcome: failed ones first, most first.
	Failures   []Failure
	Slowest    []SlowRequest
	Phases     []Phase      // cold, burst, steady, always in that order
	Replicas   []Replica    // in order of first start
	TimeSeries []TimeWindow // every window from the first start to the last
	Protocol   []ProtocolEntry

	// Evals says how the --evals rows joined (nil without); Contract is
	// the contract judged per use case (nil without --contract).
	Evals    *EvalsJoin
	Contract *ContractResult
	// Quality: evals or prices were given, so slices carry Quality.
	Quality bool
	// Window is the window of request starts the result covers (see
	// Window): what analyze was run for, or the report's --from/--to within
	// it; zero for the whole store.
	Window Window
	// Trend is each slice's figures per day or week (nil without
	// --period).
	Trend *Trend
}

// String summarizes the stats on one line, e.g.
// "8 requests (client 7, gateway 8, server 7, all three 6), 1 anomalous, 1 retried: DIR/requests.parquet".
func (s *RunStats) String() string {
	c := s.Coverage
	return fmt.Sprintf("%d requests (client %d, gateway %d, server %d, all three %d), %d anomalous, %d retried: %s",
		c.Requests, c.Client, c.Gateway, c.Server, c.AllTiers, s.Anomalous, s.Retried, s.Path)
}

// Dominant returns the component with the most time in total over the
// slowest 5% (its mean times the requests that have it), or false when
// none has one. Totals, not means: time not split is the whole E2E of the
// few requests that lack a tier, and its mean over those few would outweigh
// components every request of the tail has.
func Dominant(cs []Component) (Component, bool) {
	var best Component
	var bestSum float64
	found := false
	for _, c := range cs {
		if c.TailMean == nil {
			continue
		}
		if sum := *c.TailMean * float64(c.TailN); !found || sum > bestSum {
			best, bestSum, found = c, sum, true
		}
	}
	return best, found
}
