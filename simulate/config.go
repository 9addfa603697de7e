package simulate

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// SupportedFormats lists the log formats Run can write for the inference
// servers: native, and the formats real servers write
// (see servers.go): a vLLM OpenTelemetry Collector file export, TGI router
// JSON lines, a Triton trace file, SGLang's metrics export and trtllm-serve
// /perf_metrics dumps. The names are the ingest format names.
var SupportedFormats = []string{FormatNative, FormatVLLMOTLP, FormatTGI, FormatTriton, FormatSGLangMetrics, FormatTRTLLM}

// The warm-up kinds of the late replica (Config.ColdKinds).
const (
	ColdDecode  = "decode"
	ColdPrefill = "prefill"
	ColdLoad    = "load"
	ColdQueue   = "queue"
)

// The routing policies (Config.Routing).
const (
	RouteLeastLoaded = "least-loaded"
	RouteRoundRobin  = "round-robin"
	RouteRandom      = "random"
)

// RoutingPolicies lists the routing policies, for Config.Routing.
var RoutingPolicies = []string{RouteLeastLoaded, RouteRoundRobin, RouteRandom}

// ColdKinds lists every warm-up kind, for Config.ColdKinds.
var ColdKinds = []string{ColdDecode, ColdPrefill, ColdLoad, ColdQueue}

// Config controls a simulation run. Start from DefaultConfig and override.
type Config struct {
	// Out is the output directory; it is created if missing.
	Out string
	// Requests is the number of client requests to generate.
	Requests int
	// Seed makes the run reproducible: the same Config writes the same bytes.
	Seed int64
	// Formats chooses the log format of each host. A bare format is
	// cycled through by the hosts of its tier, in the order Summary.Files
	// lists them: the server formats (SupportedFormats, native included) by
	// the replicas, GatewayFormats by the gateways, ClientFormats by the
	// clients. "server=F", "gateway=F" and "client=F" give every host of a
	// tier F; "HOST=F" pins one host (a replica, gw-N or client-REGION-N;
	// an unknown host is an error), and wins. Empty means native for every
	// host, which writes exactly what earlier versions wrote for the same
	// seed. The format changes only the files of the hosts that write it:
	// the simulation, truth.parquet and every other host's bytes are the
	// same for every choice.
	Formats []string

	// Epoch is the true time of the first possible arrival.
	Epoch time.Time

	// RatePerSecond is the steady Poisson arrival rate.
	RatePerSecond float64
	// Diurnal, between 0 and 1, makes the rate follow the time of day (UTC)
	// as deployments' traffic does: RatePerSecond at 15:00, falling along a
	// cosine to (1-Diurnal)*RatePerSecond at 03:00. 0: a constant rate.
	Diurnal float64
	// Weekend multiplies the rate on Saturdays and Sundays (UTC): 0.3 for
	// quiet weekends. 1: no change.
	Weekend float64
	// BurstStart and BurstDuration place the burst window (relative to
	// Epoch); during it arrivals come at RatePerSecond*BurstMultiplier.
	BurstStart      time.Duration
	BurstDuration   time.Duration
	BurstMultiplier float64

	// ReplicasPerModel is the number of replicas each model starts with.
	ReplicasPerModel int
	// ModelReplicas overrides ReplicasPerModel for the models it names
	// (llama-3.1-8b, llama-3.1-70b): a pool with one more replica of one
	// model. Empty: every model has ReplicasPerModel.
	ModelReplicas map[string]int
	// FixedTraffic draws the requests (arrival times, models, use cases,
	// tokens, network legs, deadlines) from a random stream of their own,
	// so that runs of one seed that differ only in the pool
	// (ReplicasPerModel, ModelReplicas, MaxBatch) serve the same requests:
	// a what-if's truth. Off, every draw comes from one stream, as in
	// earlier versions, and a change to the pool changes the requests too.
	FixedTraffic bool
	// MaxBatch bounds the running requests per replica.
	MaxBatch int
	// Routing is how a request is sent among the replicas of its model
	// that have joined: RouteLeastLoaded (empty too: the fewest requests
	// running and queued, ties to the first), RouteRoundRobin (each in
	// turn, a counter per model over the replicas joined) or RouteRandom.
	Routing string
	// PrefillBatchSlope slows prefill with the batch as decode is slowed: a
	// request scheduled into a batch of b (itself included) prefills
	// 1 + PrefillBatchSlope*(b-1) times as long as alone. 0: prefill does
	// not depend on the batch, as in earlier versions.
	PrefillBatchSlope float64
	// ColdJoinAt is when an extra replica of the first model joins and warms
	// up, showing every warm-up kind ColdKinds lists (none: no extra
	// replica):
	//   - ColdDecode: its first ColdRequests admitted requests run
	//     ColdFactor times slower (prefill and decode);
	//   - ColdPrefill: the prefill of its k-th admitted request (k from 0)
	//     takes ColdDelay*(1-k/ColdPrefillRequests) longer, a long first
	//     prefill decaying over its first ColdPrefillRequests (graph
	//     capture, cache warm-up, lazy compilation);
	//   - ColdLoad: its first request loads the model for ColdDelay before
	//     its prefill (as Ollama's load_duration); requests arriving
	//     meanwhile wait in its queue;
	//   - ColdQueue: it is sent requests from ColdJoinAt but serves none
	//     for ColdDelay: they wait in its queue.
	ColdJoinAt          time.Duration
	ColdKinds           []string
	ColdRequests        int
	ColdFactor          float64
	ColdDelay           time.Duration
	ColdPrefillRequests int

	// StreamFraction scales each use case's share of streamed requests
	// (1 keeps the built-in shares, 0 disables streaming).
	StreamFraction float64

	// RateLimitPerSecond, when > 0, is each gateway host's token-bucket rate
	// (bucket size one second's worth); requests over it get a 429 and never
	// reach a server.
	RateLimitPerSecond float64
	// SlowAuthRate is the share of requests on the gateway's slow auth path
	// (+20..80 ms before forwarding).
	SlowAuthRate float64
	// SlowAuthExtra is added to every slow-auth request's gateway time, on
	// top of the 20..80 ms (an incident on the gateway's auth path:
	// application time). 0 keeps the default path.
	SlowAuthExtra time.Duration
	// RegionDelay adds a fixed one-way network delay to both legs between
	// the clients of a region and the gateway, by region name (us-east,
	// eu-west, ap-south): a network incident in one region. Empty: none.
	RegionDelay map[string]time.Duration

	// ClientTimeout is when any client gives up waiting for the full response.
	ClientTimeout time.Duration

	// MaxClockOffset bounds each host's fixed clock offset (uniform in
	// ±MaxClockOffset). MaxDriftPPM bounds how fast any two hosts' clocks
	// drift apart: each host drifts uniformly within ±MaxDriftPPM/2 parts
	// per million. At 10 a 30 s difference between two hosts' durations
	// stays ≤ 0.3 ms.
	MaxClockOffset time.Duration
	MaxDriftPPM    float64

	// Imperfection rates. LossRate, TruncateRate and DuplicateRate apply to
	// each tier's record independently and are mutually exclusive per record.
	LossRate        float64
	TruncateRate    float64
	DuplicateRate   float64
	ServerErrorRate float64 // server fails the request with a 5xx
	TimeoutRate     float64 // client has a short deadline and gives up (408)
	CancelRate      float64 // user cancels (client status 0)

	// Tiers names the tiers whose logs are kept ("client", "gateway",
	// "server"); empty keeps all three. A deployment often lacks one (no
	// client log, a server that logs nothing): the simulation and
	// truth.parquet are the same, and the other tiers' directories are
	// removed after the run.
	Tiers []string
	// ErrorMix, when not nil, is the share of requests drawn for each way
	// of failing, by status, in place of ServerErrorRate, TimeoutRate,
	// CancelRate and the 429s of RateLimitPerSecond (the rate limit is
	// off): 500 the server fails during generation; 503 the server,
	// overloaded, answers at once without queueing; 429 the gateway
	// rejects the request; 408 the client has a short deadline (100-800
	// ms) and gives up if the answer is later; 499 the user cancels after
	// 200-3000 ms if the answer is later (the client logs status 0). Each
	// request draws one way or none, so the shares add up to at most 1; a
	// status not named has share 0. A 408 or 499 only happens when the
	// answer would have come after the deadline: truth.parquet's status
	// says what each request ended with. Nil: the rates above, which write
	// exactly what earlier versions wrote for the same seed.
	ErrorMix map[int]float64

	// GzipOneServer writes the last replica's log as .jsonl.gz.
	GzipOneServer bool
	// TruthRowGroupRows bounds the rows per Parquet row group of truth.parquet.
	TruthRowGroupRows int

	// Evals also writes evals.csv, an evaluation of the answers whose
	// pass rate drops for long prompts on one model (see EvalsFile).
	Evals bool
}

// DefaultConfig returns a configuration with sensible rates: 12 req/s steady,
// a 6x burst for 10 s at 40 s, a cold replica joining at 20 s, 1–2 %
// imperfections per kind and a 30 req/s per-gateway rate limit.
func DefaultConfig() Config {
	return Config{
		Requests:            5000,
		Seed:                1,
		Formats:             []string{"native"},
		Epoch:               time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC),
		RatePerSecond:       12,
		Weekend:             1,
		BurstStart:          40 * time.Second,
		BurstDuration:       10 * time.Second,
		BurstMultiplier:     6,
		ReplicasPerModel:    2,
		MaxBatch:            16,
		ColdJoinAt:          20 * time.Second,
		ColdKinds:           []string{ColdDecode},
		ColdRequests:        60,
		ColdFactor:          3,
		ColdDelay:           5 * time.Second,
		ColdPrefillRequests: 10,
		StreamFraction:      1,
		RateLimitPerSecond:  30,
		SlowAuthRate:        0.02,
		ClientTimeout:       60 * time.Second,
		MaxClockOffset:      3 * time.Second,
		MaxDriftPPM:         10,
		LossRate:            0.01,
		TruncateRate:        0.01,
		DuplicateRate:       0.015,
		ServerErrorRate:     0.01,
		TimeoutRate:         0.01,
		CancelRate:          0.01,
		GzipOneServer:       true,
		TruthRowGroupRows:   32768,
	}
}

// hasColdReplica reports whether the late, warming-up replica exists: some
// warm-up kind is on (ColdDecode alone needs ColdRequests > 0).
func (c *Config) hasColdReplica() bool {
	for _, k := range c.ColdKinds {
		if k != ColdDecode || c.ColdRequests > 0 {
			return true
		}
	}
	return false
}

// ConfigError is the error of Run for a Config field it cannot use.
type ConfigError struct {
	// Field is the Config field: "Requests", "Formats", "ColdKinds", ...
	Field string
	// Problem says what is wrong with the field, as the rest of a sentence
	// whose subject is the field: "must be at least 1, not 0".
	Problem string
}

func (e *ConfigError) Error() string { return "Config." + e.Field + " " + e.Problem }

func configErr(field, format string, args ...any) error {
	return &ConfigError{Field: field, Problem: fmt.Sprintf(format, args...)}
}

func (c *Config) validate() error {
	if c.Out == "" {
		return configErr("Out", "is required: the directory to write the logs into")
	}
	if c.Requests <= 0 {
		return configErr("Requests", "must be at least 1, not %d", c.Requests)
	}
	if len(c.Formats) == 0 {
		c.Formats = []string{FormatNative}
	}
	if _, err := parseFormats(c.Formats); err != nil {
		return err
	}
	if c.RatePerSecond <= 0 {
		return configErr("RatePerSecond", "must be more than 0, not %v", c.RatePerSecond)
	}
	if c.Diurnal < 0 || c.Diurnal >= 1 {
		return configErr("Diurnal", "must be at least 0 and less than 1, not %v", c.Diurnal)
	}
	if c.Weekend <= 0 || c.Weekend > 1 {
		return configErr("Weekend", "must be more than 0 and at most 1, not %v", c.Weekend)
	}
	for _, t := range c.Tiers {
		if !slices.Contains(tierNames[:], t) {
			return configErr("Tiers", "names %q, which is no tier (want any of %s)", t, strings.Join(tierNames[:], ", "))
		}
	}
	if c.BurstStart < 0 {
		return configErr("BurstStart", "must be 0 or more, not %v", c.BurstStart)
	}
	if c.BurstDuration < 0 {
		return configErr("BurstDuration", "must be 0 or more, not %v", c.BurstDuration)
	}
	if c.ColdJoinAt < 0 {
		return configErr("ColdJoinAt", "must be 0 or more, not %v", c.ColdJoinAt)
	}
	if c.BurstMultiplier <= 0 {
		return configErr("BurstMultiplier", "must be more than 0, not %v", c.BurstMultiplier)
	}
	if c.ReplicasPerModel <= 0 {
		return configErr("ReplicasPerModel", "must be at least 1, not %d", c.ReplicasPerModel)
	}
	for name, n := range c.ModelReplicas {
		if !slices.ContainsFunc(models, func(m modelSpec) bool { return m.name == name }) {
			return configErr("ModelReplicas", "names %q, which is no model (want any of %s)", name, strings.Join(ModelNames(), ", "))
		}
		if n <= 0 {
			return configErr("ModelReplicas", "of %s must be at least 1, not %d", name, n)
		}
	}
	if c.MaxBatch <= 0 {
		return configErr("MaxBatch", "must be at least 1, not %d", c.MaxBatch)
	}
	if c.Routing != "" && !slices.Contains(RoutingPolicies, c.Routing) {
		return configErr("Routing", "is %q, which is no routing policy (want any of %s)", c.Routing, strings.Join(RoutingPolicies, ", "))
	}
	if c.PrefillBatchSlope < 0 {
		return configErr("PrefillBatchSlope", "must be 0 or more, not %v", c.PrefillBatchSlope)
	}
	if c.ColdRequests < 0 {
		return configErr("ColdRequests", "must be 0 or more, not %d", c.ColdRequests)
	}
	if c.ColdRequests > 0 && c.ColdFactor < 1 {
		return configErr("ColdFactor", "must be at least 1 when ColdRequests is more than 0, not %v", c.ColdFactor)
	}
	for _, k := range c.ColdKinds {
		if !slices.Contains(ColdKinds, k) {
			return configErr("ColdKinds", "names %q, which is no warm-up kind (want any of %s)", k, strings.Join(ColdKinds, ", "))
		}
	}
	if c.ColdDelay < 0 {
		return configErr("ColdDelay", "must be 0 or more, not %v", c.ColdDelay)
	}
	if c.ColdPrefillRequests < 0 {
		return configErr("ColdPrefillRequests", "must be 0 or more, not %d", c.ColdPrefillRequests)
	}
	if c.SlowAuthExtra < 0 {
		return configErr("SlowAuthExtra", "must be 0 or more, not %v", c.SlowAuthExtra)
	}
	for name, d := range c.RegionDelay {
		if !slices.ContainsFunc(regions, func(r regionSpec) bool { return r.name == name }) {
			return configErr("RegionDelay", "names %q, which is no region (want any of %s)", name, strings.Join(RegionNames(), ", "))
		}
		if d < 0 {
			return configErr("RegionDelay", "of %s must be 0 or more, not %v", name, d)
		}
	}
	if c.ClientTimeout <= 0 {
		return configErr("ClientTimeout", "must be more than 0, not %v", c.ClientTimeout)
	}
	if c.MaxClockOffset < 0 {
		return configErr("MaxClockOffset", "must be 0 or more, not %v", c.MaxClockOffset)
	}
	if c.MaxDriftPPM < 0 || c.MaxDriftPPM > 100 {
		return configErr("MaxDriftPPM", "must be between 0 and 100, not %v", c.MaxDriftPPM)
	}
	for _, r := range []struct {
		name string
		v    float64
	}{
		{"StreamFraction", c.StreamFraction}, {"SlowAuthRate", c.SlowAuthRate},
		{"LossRate", c.LossRate}, {"TruncateRate", c.TruncateRate}, {"DuplicateRate", c.DuplicateRate},
		{"ServerErrorRate", c.ServerErrorRate}, {"TimeoutRate", c.TimeoutRate}, {"CancelRate", c.CancelRate},
	} {
		if r.v < 0 || r.v > 1 {
			return configErr(r.name, "must be between 0 and 1, not %v", r.v)
		}
	}
	if sum := c.LossRate + c.TruncateRate + c.DuplicateRate; sum > 1 {
		return configErr("LossRate", "plus TruncateRate and DuplicateRate must be at most 1 (each record has one fate), not %v", sum)
	}
	if sum := c.TimeoutRate + c.CancelRate; sum > 1 {
		return configErr("TimeoutRate", "plus CancelRate must be at most 1 (each request ends one way), not %v", sum)
	}
	if c.ErrorMix != nil {
		sum := 0.0
		for status, share := range c.ErrorMix {
			if !slices.Contains(ErrorMixStatuses, status) {
				return configErr("ErrorMix", "names status %d, which is no way of failing (want any of %v)", status, ErrorMixStatuses)
			}
			if share < 0 || share > 1 {
				return configErr("ErrorMix", "share of %d must be between 0 and 1, not %v", status, share)
			}
			sum += share
		}
		if sum > 1 {
			return configErr("ErrorMix", "shares must add up to at most 1 (each request fails one way or none), not %v", sum)
		}
	}
	if c.TruthRowGroupRows <= 0 {
		c.TruthRowGroupRows = 32768
	}
	if c.Epoch.IsZero() {
		c.Epoch = DefaultConfig().Epoch
	}
	return nil
}

// ErrorMixStatuses are the statuses Config.ErrorMix may name, in the order
// a request's draw tries them.
var ErrorMixStatuses = []int{500, 503, 429, 408, 499}

// replicasOf is the number of replicas model name starts with.
func (c *Config) replicasOf(name string) int {
	if n, ok := c.ModelReplicas[name]; ok {
		return n
	}
	return c.ReplicasPerModel
}

// ModelNames lists the simulated models, for Config.ModelReplicas.
func ModelNames() []string {
	var out []string
	for _, m := range models {
		out = append(out, m.name)
	}
	return out
}

// RegionNames lists the simulated regions, for Config.RegionDelay.
func RegionNames() []string {
	var out []string
	for _, r := range regions {
		out = append(out, r.name)
	}
	return out
}
