package analyze

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/infertrace/infertrace/contract"
	"github.com/infertrace/infertrace/internal/duck"
	"github.com/infertrace/infertrace/internal/textsafe"
)

// SummaryOptions selects how Summarize slices requests.
type SummaryOptions struct {
	// By lists the columns to slice by; empty means DefaultBy.
	By []string
	// duck.Resources bounds DuckDB's memory and threads.
	Resources duck.Resources
	// Evals and Prices name the files of per-request evals and per-model
	// prices (CSV, JSON lines or Parquet); empty: none. Contract is the
	// product contract to judge each use case against; nil: none.
	Evals, Prices string
	Contract      *contract.Contract
	// Window limits the summary to the requests that start in it; it must
	// lie within the window requests.parquet was analyzed for. Zero means
	// that window (Result.Window).
	Window Window
	// TokenEdges are the edges of the prompt_bucket and output_bucket
	// slice columns; empty means DefaultTokenEdges.
	TokenEdges []int64
	// Period, when PeriodDay or PeriodWeek, also computes the trend of
	// each slice over the periods present (Result.Trend); empty: none.
	Period string
}

// DefaultBy is the slicing used when SummaryOptions.By is empty.
var DefaultBy = []string{"model", "use_case"}

// SliceColumns are the requests.parquet columns a summary may slice by.
var SliceColumns = []string{"model", "use_case", "streamed", "client", "region", "gateway", "route", "replica", "status", "finish_reason", "phase", "concurrency_bucket", "prompt_bucket", "output_bucket"}

// sliceColumnSet is the whitelist behind SliceColumns: only these exact
// names ever reach SQL.
var sliceColumnSet = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range SliceColumns {
		m[c] = true
	}
	return m
}()

// ValidateBy checks slice column names against SliceColumns and returns
// the normalized list (DefaultBy when empty).
func ValidateBy(by []string) ([]string, error) {
	if len(by) == 0 {
		return append([]string(nil), DefaultBy...), nil
	}
	seen := map[string]bool{}
	var out []string
	for _, b := range by {
		b = strings.TrimSpace(b)
		if !sliceColumnSet[b] {
			return nil, fmt.Errorf("unknown slice column %q: allowed are %s", b, strings.Join(SliceColumns, ", "))
		}
		if !seen[b] {
			seen[b] = true
			out = append(out, b)
		}
	}
	return out, nil
}

// IsSliceColumn reports whether c is one of SliceColumns.
func IsSliceColumn(c string) bool { return sliceColumnSet[c] }

// SliceExpr is the SQL expression of slice column c over the requests
// view (the token buckets at DefaultTokenEdges).
func SliceExpr(c string) string { return sliceExpr(c, nil) }

// Summarize reads dir/requests.parquet (written by Run), dir/manifest.json
// and dir/rejects.jsonl, and computes everything a report shows. It fails
// (ErrStale) when requests.parquet was not analyzed from that manifest.
// What changed in a trend's latest period is compare's to judge
// (compare.Trend), as it judges two windows.
func Summarize(ctx context.Context, dir string, opts SummaryOptions) (*Result, error) {
	return summarizeLoading(ctx, dir, opts, loadLimit)
}

// summarizeLoading is Summarize loading the requests when their files hold
// at most limit bytes (loadRequests); a negative limit never loads them.
func summarizeLoading(ctx context.Context, dir string, opts SummaryOptions, limit int64) (*Result, error) {
	by, err := ValidateBy(opts.By)
	if err != nil {
		return nil, err
	}
	for i, e := range opts.TokenEdges {
		if e <= 0 || i > 0 && e <= opts.TokenEdges[i-1] {
			return nil, fmt.Errorf("token bucket edges %v: want positive, increasing token counts", opts.TokenEdges)
		}
	}
	if opts.Period != "" {
		if err := checkPeriod(opts.Period); err != nil {
			return nil, err
		}
	}
	res := &Result{Dir: dir, By: by, Protocol: Protocol, Capabilities: Capabilities}
	if _, err := manifestSum(dir); err != nil {
		return nil, err
	}
	if res.Inputs, err = readManifest(dir); err != nil {
		return nil, err
	}

	db, closeDB, err := duck.Open(ctx, dir, opts.Resources)
	if err != nil {
		return nil, err
	}
	defer closeDB()
	paths, err := attachRequests(ctx, db, dir)
	if err != nil {
		return nil, err
	}
	if res.Window, err = useWindow(ctx, db, dir, paths, opts.Window); err != nil {
		return nil, err
	}
	loaded, err := loadRequests(ctx, db, paths, opts.Resources, limit)
	if err != nil {
		return nil, err
	}
	if err := registerRejects(ctx, db, dir); err != nil {
		return nil, err
	}
	if err := RegisterSliced(ctx, db, by, opts.TokenEdges); err != nil {
		return nil, err
	}
	if err := registerQualityInputs(ctx, db, opts); err != nil {
		return nil, err
	}
	if err := registerTiersIn(ctx, db, dir, res.Window); err != nil {
		return nil, err
	}
	if res.ServerFormats, err = serverFormats(ctx, db); err != nil {
		return nil, err
	}

	if res.Coverage, res.Anomalous, res.Retried, err = coverage(ctx, db); err != nil {
		return nil, err
	}
	if res.Joins, err = joins(ctx, db, res.Coverage); err != nil {
		return nil, err
	}
	if res.Unjoined, err = unjoined(ctx, db); err != nil {
		return nil, err
	}
	if res.TGIHosts, err = tgiHosts(ctx, db); err != nil {
		return nil, err
	}
	if res.GatewayNoID, err = gatewayNoID(ctx, db); err != nil {
		return nil, err
	}
	ci, err := reportPercentiles(ctx, db, loaded)
	if err != nil {
		return nil, err
	}
	if res.Aborted, err = aborted(ctx, db); err != nil {
		return nil, err
	}
	if res.Anomalies, err = anomalies(ctx, db); err != nil {
		return nil, err
	}
	if res.Rejects, err = rejects(ctx, db); err != nil {
		return nil, err
	}
	for _, g := range res.Rejects {
		res.RejectsTotal += g.Lines
	}
	if res.Slices, err = slices(ctx, db, by, ci["slice"]); err != nil {
		return nil, err
	}
	if res.Failures, err = failures(ctx, db, ci["failure"]); err != nil {
		return nil, err
	}
	if res.Slowest, err = slowest(ctx, db); err != nil {
		return nil, err
	}
	if res.Phases, err = phases(ctx, db, ci["phase"]); err != nil {
		return nil, err
	}
	if res.Replicas, err = replicas(ctx, db, ci["replica"]); err != nil {
		return nil, err
	}
	if res.TimeSeries, err = timeSeries(ctx, db, ci["timeseries"]); err != nil {
		return nil, err
	}
	if err := quality(ctx, db, opts, res); err != nil {
		return nil, err
	}
	if opts.Period != "" {
		if res.Trend, err = trend(ctx, db, opts.Period, by); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// loadLimit is the most bytes of requests files whose rows Summarize
// loads into memory (loadRequests): some 30,000 requests, which take
// about nine times their Parquet bytes in DuckDB's memory.
const loadLimit = 4 << 20

// loadRequests copies the rows of the requests view into the temporary
// table requests_loaded, which the view then reads, when the files behind
// it (paths) hold at most limit bytes, and reports whether it did. A
// summary reads the requests in some thirty statements, and each read of
// Parquet binds the files again (their metadata and schema), which on a
// small store costs more than its rows, while the copy costs one read. A loaded store runs on one DuckDB thread unless res sets threads:
// its statements are too small to share, and a second thread only costs
// CPU. A larger store, or one whose files hold more than a 32nd of the
// memory limit res sets, is read from its files each time, as a copy
// would take memory in proportion to its rows.
func loadRequests(ctx context.Context, db *sql.DB, paths []string, res duck.Resources, limit int64) (bool, error) {
	var size int64
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return false, fmt.Errorf("load requests: %w", err)
		}
		size += st.Size()
	}
	if !loadable(size, res, limit) {
		return false, nil
	}
	stmts := []string{
		"CREATE OR REPLACE TEMP TABLE requests_loaded AS SELECT * FROM requests",
		"CREATE OR REPLACE VIEW requests AS SELECT * FROM requests_loaded",
	}
	if res.Threads == 0 {
		stmts = append(stmts, "SET threads = 1")
	}
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return false, fmt.Errorf("load requests: %w", err)
		}
	}
	return true, nil
}

// loadable reports whether requests files of size bytes are loaded
// (loadRequests) under the memory limit of res and limit.
func loadable(size int64, res duck.Resources, limit int64) bool {
	return size <= limit && (res.MemoryLimit == 0 || size <= res.MemoryLimit/32)
}

// RegisterSliced creates the sliced view: requests plus the token buckets
// (prompt_bucket, output_bucket with edges), slice_key, the VARCHAR[] of
// the whitelisted slice columns, and outcome and succeeded (the macro
// request_outcome of queries/macros.sql: why a request is no latency
// sample, NULL for a successful one). It also creates sliced_ok, the
// successful requests of sliced: the one sample set of every latency
// percentile of a report, while counts of requests and failures read
// sliced.
func RegisterSliced(ctx context.Context, db *sql.DB, by []string, edges []int64) error {
	keys := make([]string, len(by))
	for i, b := range by {
		if !sliceColumnSet[b] {
			return fmt.Errorf("unknown slice column %q", b)
		}
		keys[i] = sliceExpr(b, edges)
	}
	q := "CREATE OR REPLACE VIEW sliced AS SELECT *, " +
		sliceExpr("prompt_bucket", edges) + " AS prompt_bucket, " +
		sliceExpr("output_bucket", edges) + " AS output_bucket, [" +
		strings.Join(keys, ", ") + "]::VARCHAR[] AS slice_key, " +
		"request_outcome(completed, aborted, status) AS outcome, " +
		"request_outcome(completed, aborted, status) IS NULL AS succeeded FROM requests"
	for _, s := range []string{q, "CREATE OR REPLACE VIEW sliced_ok AS SELECT * FROM sliced WHERE succeeded"} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("register slices: %w", err)
		}
	}
	return nil
}

// readManifest reads dir/manifest.json; an absent manifest yields no files.
func readManifest(dir string) (Inputs, error) {
	var in Inputs
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return in, nil
	}
	if err != nil {
		return in, fmt.Errorf("manifest: %w", err)
	}
	var m struct {
		Files []InputFile `json:"files"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return in, fmt.Errorf("manifest.json: %w", err)
	}
	in.Files = m.Files
	for i, f := range m.Files {
		in.Files[i].Tier, in.Files[i].Format, in.Files[i].Path = textsafe.Label(f.Tier), textsafe.Label(f.Format), textsafe.Label(f.Path)
		in.Files[i].Error = fileError(f.Path, f.Error)
		if f.Error == "" {
			in.Files[i].Incomplete = false
		}
		in.Total.Bytes += f.Bytes
		in.Total.Lines += f.Lines
		in.Total.Rows += f.Rows
		in.Total.Rejected += f.Rejected
		in.Total.Duplicates += f.Duplicates
		in.Total.Blank += f.Blank
	}
	return in, nil
}

// errorMax is the most runes of a file's error a report shows.
const errorMax = 300

// fileError is a manifest's error for the file at path, escaped, without
// the path it starts with: "after line 2990: unexpected EOF", "cannot
// open: permission denied".
func fileError(path, err string) string {
	if err == "" {
		return ""
	}
	switch {
	case strings.HasPrefix(err, path+": "):
		err = strings.TrimPrefix(err, path+": ")
	case strings.HasPrefix(err, "open "+path+": "):
		err = "cannot open: " + strings.TrimPrefix(err, "open "+path+": ")
	}
	return textsafe.Escape(textsafe.Cut(err, errorMax))
}

// joins runs queries/joins.sql and gives every pair of tiers, joined or
// not, its totals from cov.
func joins(ctx context.Context, db *sql.DB, cov Coverage) ([]JoinPair, error) {
	rows, err := duck.Rows(ctx, db, "joins")
	if err != nil {
		return nil, err
	}
	out := []JoinPair{
		{Pair: "client-gateway", Left: "client", Right: "gateway", Joined: cov.ClientGateway, LeftTotal: cov.Client, RightTotal: cov.Gateway},
		{Pair: "gateway-server", Left: "gateway", Right: "server", Joined: cov.GatewayServer, LeftTotal: cov.Gateway, RightTotal: cov.Server},
		{Pair: "client-server", Left: "client", Right: "server", Joined: cov.ClientServer, LeftTotal: cov.Client, RightTotal: cov.Server},
	}
	for _, r := range rows {
		for i := range out {
			if out[i].Pair == duck.String(r["pair"]) {
				out[i].Methods = append(out[i].Methods, MethodCount{Method: duck.String(r["method"]), Requests: duck.Int(r["requests"])})
			}
		}
	}
	return out, nil
}

func unjoined(ctx context.Context, db *sql.DB) ([]UnjoinedRows, error) {
	rows, err := duck.Rows(ctx, db, "unjoined")
	if err != nil {
		return nil, err
	}
	var out []UnjoinedRows
	for _, r := range rows {
		out = append(out, UnjoinedRows{
			Tier:      duck.String(r["tier"]),
			Format:    duck.String(r["format"]),
			Records:   duck.Int(r["records"]),
			NotJoined: duck.Int(r["not_joined"]),
			NoKey:     duck.Int(r["no_key"]),
		})
	}
	return out, nil
}

func tgiHosts(ctx context.Context, db *sql.DB) ([]TGIHost, error) {
	rows, err := duck.Rows(ctx, db, "tgi_hosts")
	if err != nil {
		return nil, err
	}
	var out []TGIHost
	for _, r := range rows {
		out = append(out, TGIHost{
			Host:         duck.String(r["host"]),
			Format:       duck.String(r["format"]),
			Records:      duck.Int(r["records"]),
			Matched:      duck.Int(r["matched"]),
			GatewaySpans: duck.Int(r["gateway_spans"]),
		})
	}
	return out, nil
}

func gatewayNoID(ctx context.Context, db *sql.DB) ([]GatewayNoID, error) {
	rows, err := duck.Rows(ctx, db, "gateway_noid")
	if err != nil {
		return nil, err
	}
	var out []GatewayNoID
	for _, r := range rows {
		out = append(out, GatewayNoID{
			Format:  duck.String(r["format"]),
			Records: duck.Int(r["records"]),
			Matched: duck.Int(r["matched"]),
			Coarse:  duck.Int(r["coarse"]),
		})
	}
	return out, nil
}

func anomalies(ctx context.Context, db *sql.DB) ([]ReasonCount, error) {
	rows, err := duck.Rows(ctx, db, "anomalies")
	if err != nil {
		return nil, err
	}
	var out []ReasonCount
	for _, r := range rows {
		rc := ReasonCount{Reason: duck.String(r["reason"]), Requests: duck.Int(r["requests"])}
		for _, e := range duck.List(r["examples"]) {
			rc.Examples = append(rc.Examples, duck.String(e))
		}
		out = append(out, rc)
	}
	return out, nil
}

func slowest(ctx context.Context, db *sql.DB) ([]SlowRequest, error) {
	rows, err := duck.Rows(ctx, db, "slowest")
	if err != nil {
		return nil, err
	}
	var out []SlowRequest
	for _, r := range rows {
		out = append(out, SlowRequest{
			RequestID:     duck.String(r["request_id"]),
			Model:         duck.String(r["model"]),
			UseCase:       duck.String(r["use_case"]),
			Start:         duck.Time(r["start"]),
			ClientE2EMs:   duck.Float(r["client_e2e_ms"]),
			NetworkMs:     duck.Float(r["network_ms"]),
			ApplicationMs: duck.Float(r["application_ms"]),
			QueueMs:       duck.Float(r["queue_ms"]),
			ModelMs:       duck.Float(r["model_ms"]),
			UnsplitMs:     duck.Float(r["unsplit_ms"]),
			UnsplitWhat:   duck.String(r["unsplit_what"]),
			ServerE2EMs:   duck.Float(r["server_e2e_ms"]),
			Anomaly:       duck.String(r["anomaly"]),
			ClientSource:  duck.String(r["client_source"]),
			GatewaySource: duck.String(r["gateway_source"]),
			ServerSource:  duck.String(r["server_source"]),
		})
	}
	return out, nil
}

func rejects(ctx context.Context, db *sql.DB) ([]RejectGroup, error) {
	rows, err := duck.Rows(ctx, db, "rejects")
	if err != nil {
		return nil, err
	}
	var out []RejectGroup
	for _, r := range rows {
		g := RejectGroup{
			Tier:  duck.String(r["tier"]),
			File:  duck.String(r["file"]),
			Kind:  duck.String(r["kind"]),
			Lines: duck.Int(r["lines"]),
		}
		for _, e := range duck.List(r["examples"]) {
			g.Examples = append(g.Examples, duck.String(e))
		}
		out = append(out, g)
	}
	return out, nil
}

// e2eComponents and ttftComponents name the attribution columns in the
// order reports show them.
var (
	e2eComponents  = []string{"network", "application", "queue", "model"}
	ttftComponents = []string{"network", "application", "queue", "model"}
)

// notSplit is the time a missing tier leaves not split (the requests steps'
// upstream_ms, network_application_ms, unsplit_ms; with the ttft_ prefix
// for TTFT): its name in reports and the components it stands for. A
// slice shows one after the four components only where some request has
// it.
type notSplit struct{ metric, name, of, missing string }

var (
	e2eNotSplit = []notSplit{
		{"upstream", "upstream (not split)", "application + queue + model", "server"},
		{"network_application", "network + application (not split)", "network + application", "gateway"},
		{"unsplit", "all (not split)", "network + application + queue + model", "gateway and server"},
	}
	ttftNotSplit = []notSplit{
		{"network_application", "network + application (not split)", "network + application", "gateway"},
		{"unsplit", "all (not split)", "network + application + queue + model", "server"},
	}
)

func dist(r map[string]any, metric string) Dist {
	q := duck.Quantiles(r[metric+"_q"], 4)
	return Dist{N: duck.Int(r[metric+"_n"]), P50: q[0], P90: q[1], P95: q[2], P99: q[3]}
}

func component(r map[string]any, name, prefix string) Component {
	key := prefix + name
	q := duck.Quantiles(r[key+"_q"], 2)
	c := Component{
		Name:     strings.ReplaceAll(name, "_", " "),
		Column:   key + "_ms",
		N:        duck.Int(r[key+"_n"]),
		P50:      q[0],
		P95:      q[1],
		TailN:    duck.Int(r[key+"_tail_n"]),
		TailMean: duck.Float(r[key+"_tail_mean"]),
	}
	for _, f := range duck.List(r[key+"_formats"]) {
		c.Formats = append(c.Formats, duck.String(f))
	}
	return c
}

// serverSplit and ttftSplit name the finer split of server time.
var (
	serverSplit = []string{"prefill", "decode", "server_overhead"}
	ttftSplit   = []string{"prefill", "server_overhead"}
)

func serverFormats(ctx context.Context, db *sql.DB) ([]ServerFormat, error) {
	rows, err := duck.Rows(ctx, db, "server_formats")
	if err != nil {
		return nil, err
	}
	var out []ServerFormat
	for _, r := range rows {
		out = append(out, ServerFormat{
			Format:        duck.String(r["format"]),
			Annotation:    r["annotation"] == true,
			Records:       duck.Int(r["records"]),
			WithID:        duck.Int(r["with_id"]),
			Queue:         duck.Int(r["queue"]),
			Prefill:       duck.Int(r["prefill"]),
			Decode:        duck.Int(r["decode"]),
			TTFT:          duck.Int(r["ttft"]),
			InferenceOnly: duck.Int(r["inference_only"]),
			Tokens:        duck.Int(r["tokens"]),
			Requests:      duck.Int(r["requests"]),
			ByID:          duck.Int(r["by_id"]),
			ByTime:        duck.Int(r["by_time"]),
			Ambiguous:     duck.Int(r["ambiguous"]),
			MatchPool:     duck.Int(r["match_pool"]),
			Annotated:     duck.Int(r["annotated"]),
		})
	}
	return out, nil
}

// sliceParts are the queries whose results slices.sql joins, each run
// into a temporary table of its name before it, in this order (the others
// take their rows, the slices, from slice_dists); they read the
// percentiles of every slice and metric from slice_pct
// (reportPercentiles).
var sliceParts = []string{"slice_dists", "slice_components", "slice_ttft_components"}

func slices(ctx context.Context, db *sql.DB, by []string, ci map[string]pctCI) ([]Slice, error) {
	for _, name := range sliceParts {
		if err := duck.TempTable(ctx, db, name); err != nil {
			return nil, err
		}
	}
	rows, err := duck.Rows(ctx, db, "slices")
	if err != nil {
		return nil, err
	}
	var out []Slice
	for _, r := range rows {
		all, grp := r["is_all"] == true, duck.List(r["slice_key"])
		dist := func(r map[string]any, metric string) Dist { return withCI(dist(r, metric), ci, all, grp, metric) }
		component := func(r map[string]any, name, prefix string) Component {
			c := component(r, name, prefix)
			d := withCI(Dist{}, ci, all, grp, prefix+name)
			c.Small, c.P95CI = [2]bool{d.Small[0], d.Small[2]}, d.P95CI
			return c
		}
		s := Slice{
			All:                   r["is_all"] == true,
			Requests:              duck.Int(r["requests"]),
			Failed:                duck.Int(r["failed_n"]),
			Succeeded:             duck.Int(r["succeeded_n"]),
			WindowFirst:           duck.Time(r["window_first"]),
			WindowLast:            duck.Time(r["window_last"]),
			WindowS:               duck.Float(r["window_s"]),
			ClientE2E:             dist(r, "client_e2e"),
			GatewayE2E:            dist(r, "gateway_e2e"),
			ServerE2E:             dist(r, "server_e2e"),
			ClientTTFT:            dist(r, "client_ttft"),
			ServerTTFT:            dist(r, "server_ttft"),
			GatewayTTFT:           dist(r, "gateway_ttft"),
			GatewayUpstreamTTFB:   dist(r, "gateway_upstream_ttfb"),
			TPSUser:               dist(r, "tps_user"),
			ServiceTPS:            duck.Float(r["service_tps"]),
			CompletedRequests:     duck.Int(r["completed_n"]),
			CompletedOutputTokens: duck.Int(r["completed_output_tokens"]),
			E2ETailThreshold:      duck.Float(r["e2e_tail_threshold"]),
			E2ETailN:              duck.Int(r["e2e_tail_n"]),
			E2ETailClientE2E:      duck.Float(r["e2e_tail_client_e2e_mean"]),
			E2ETailServerE2E:      duck.Float(r["e2e_tail_server_e2e_mean"]),
			E2ETailServerN:        duck.Int(r["e2e_tail_server_e2e_n"]),
			TTFTTailThreshold:     duck.Float(r["ttft_tail_threshold"]),
			TTFTTailN:             duck.Int(r["ttft_tail_n"]),
			TTFTTailClientTTFT:    duck.Float(r["ttft_tail_client_ttft_mean"]),
		}
		for _, f := range duck.List(r["failures"]) {
			m, _ := f.(map[string]any)
			s.Failures = append(s.Failures, OutcomeCount{Outcome: duck.String(m["outcome"]), Requests: duck.Int(m["n"])})
		}
		sort.Slice(s.Failures, func(i, j int) bool {
			a, b := s.Failures[i], s.Failures[j]
			return a.Requests > b.Requests || a.Requests == b.Requests && a.Outcome < b.Outcome
		})
		for _, c := range e2eComponents {
			s.E2E = append(s.E2E, component(r, c, ""))
		}
		for _, c := range ttftComponents {
			s.TTFT = append(s.TTFT, component(r, c, "ttft_"))
		}
		for _, u := range e2eNotSplit {
			if c := component(r, u.metric, ""); c.N > 0 || c.TailN > 0 {
				c.Name, c.NotSplit, c.Missing = u.name, u.of, u.missing
				s.E2E = append(s.E2E, c)
			}
		}
		for _, u := range ttftNotSplit {
			if c := component(r, u.metric, "ttft_"); c.N > 0 || c.TailN > 0 {
				c.Name, c.NotSplit, c.Missing = u.name, u.of, u.missing
				s.TTFT = append(s.TTFT, c)
			}
		}
		for _, c := range serverSplit {
			s.ServerSplit = append(s.ServerSplit, component(r, c, ""))
		}
		for _, c := range ttftSplit {
			s.TTFTSplit = append(s.TTFTSplit, component(r, c, "ttft_"))
		}
		if s.All {
			s.Label = "all requests"
		} else {
			key := duck.List(r["slice_key"])
			parts := make([]string, len(by))
			s.Values = make([]string, len(by))
			for i, b := range by {
				v := "(none)"
				if i < len(key) && key[i] != nil {
					v = duck.String(key[i])
				}
				s.Values[i] = v
				parts[i] = b + "=" + v
			}
			s.Label = strings.Join(parts, ", ")
		}
		out = append(out, s)
	}
	return out, nil
}

// failures runs failures.sql, which reads the percentiles of the E2E
// times of the requests left out of the latency percentiles, one group
// per outcome (failure_ci_*.sql), from failure_pct (reportPercentiles);
// ci holds their intervals.
func failures(ctx context.Context, db *sql.DB, ci map[string]pctCI) ([]Failure, error) {
	rows, err := duck.Rows(ctx, db, "failures")
	if err != nil {
		return nil, err
	}
	var out []Failure
	for _, r := range rows {
		grp := []any{r["outcome"]}
		dist := func(r map[string]any, metric string) Dist { return withCI(dist(r, metric), ci, false, grp, metric) }
		out = append(out, Failure{
			Outcome:    duck.String(r["outcome"]),
			Failed:     r["failed"] == true,
			Requests:   duck.Int(r["requests"]),
			ClientE2E:  dist(r, "client_e2e"),
			GatewayE2E: dist(r, "gateway_e2e"),
			ServerE2E:  dist(r, "server_e2e"),
		})
	}
	return out, nil
}

// phaseOrder is the order of the Phases table.
var phaseOrder = map[string]int{"cold": 0, "burst": 1, "steady": 2}

func phases(ctx context.Context, db *sql.DB, ci map[string]pctCI) ([]Phase, error) {
	rows, err := duck.Rows(ctx, db, "phases")
	if err != nil {
		return nil, err
	}
	sort.SliceStable(rows, func(i, j int) bool {
		return phaseOrder[duck.String(rows[i]["phase"])] < phaseOrder[duck.String(rows[j]["phase"])]
	})
	var out []Phase
	for _, r := range rows {
		grp := []any{r["phase"]}
		dist := func(r map[string]any, metric string) Dist { return withCI(dist(r, metric), ci, false, grp, metric) }
		out = append(out, Phase{
			Name:               duck.String(r["phase"]),
			Requests:           duck.Int(r["requests"]),
			WindowFirst:        duck.Time(r["window_first"]),
			WindowLast:         duck.Time(r["window_last"]),
			Episodes:           duck.Int(r["episodes"]),
			ClientE2E:          dist(r, "client_e2e"),
			ClientTTFT:         dist(r, "client_ttft"),
			Network:            dist(r, "network"),
			Application:        dist(r, "application"),
			Queue:              dist(r, "queue"),
			Model:              dist(r, "model"),
			Upstream:           dist(r, "upstream"),
			NetworkApplication: dist(r, "network_application"),
			Unsplit:            dist(r, "unsplit"),
			ModelPerToken:      dist(r, "model_per_token"),
		})
	}
	return out, nil
}

func replicas(ctx context.Context, db *sql.DB, ci map[string]pctCI) ([]Replica, error) {
	rows, err := duck.Rows(ctx, db, "replicas")
	if err != nil {
		return nil, err
	}
	var out []Replica
	for _, r := range rows {
		q := duck.Quantiles(r["model_per_token_q"], 2)
		rep := Replica{
			Replica:        duck.String(r["replica"]),
			Model:          duck.String(r["model"]),
			Requests:       duck.Int(r["requests"]),
			FirstStart:     duck.Time(r["first_start"]),
			LastStart:      duck.Time(r["last_start"]),
			Cold:           duck.Int(r["cold"]),
			ModelPerTokenN: duck.Int(r["model_per_token_n"]),
			ModelPerToken:  [2]*float64{q[0], q[1]},
			QueueN:         duck.Int(r["queue_n"]),
			QueueP95:       duck.Float(r["queue_p95"]),
		}
		grp := []any{r["replica"]}
		if c, ok := ci[ciKey(false, grp, "model_per_token")]; ok {
			rep.ModelPerTokenSmall, rep.ModelPerTokenCI = [2]bool{c.Small[0], c.Small[2]}, c.P95CI
		} else {
			rep.ModelPerTokenSmall = [2]bool{true, true}
		}
		if c, ok := ci[ciKey(false, grp, "queue")]; ok {
			rep.QueueSmall, rep.QueueCI = c.Small[2], c.P95CI
		} else {
			rep.QueueSmall = true
		}
		if r["max_concurrency"] != nil {
			c := duck.Int(r["max_concurrency"])
			rep.MaxConcurrency = &c
		}
		out = append(out, rep)
	}
	return out, nil
}

// timeSeries runs timeseries.sql, which reads the P95s of the windows of
// timeseries_ci_groups.sql (a window's group is [epoch_ns(window_start)]
// as text) from timeseries_pct (reportPercentiles); their intervals and
// "n too small" flags, in ci, go with them.
func timeSeries(ctx context.Context, db *sql.DB, ci map[string]pctCI) ([]TimeWindow, error) {
	rows, err := duck.Rows(ctx, db, "timeseries")
	if err != nil {
		return nil, err
	}
	var out []TimeWindow
	for _, r := range rows {
		w := TimeWindow{
			Start:        duck.Time(r["window_start"]),
			Requests:     duck.Int(r["requests"]),
			ClientE2EN:   duck.Int(r["client_e2e_n"]),
			ClientE2EP95: duck.Float(r["client_e2e_p95"]),
			QueueN:       duck.Int(r["queue_n"]),
			QueueP95:     duck.Float(r["queue_p95"]),
			ModelN:       duck.Int(r["model_n"]),
			ModelP95:     duck.Float(r["model_p95"]),
			Burst:        duck.Int(r["burst"]),
			Cold:         duck.Int(r["cold"]),
			AroundBurst:  r["around_burst"] == true,
		}
		if w.Start != nil {
			grp := []any{strconv.FormatInt(w.Start.UnixNano(), 10)}
			p95 := func(metric string) (bool, Interval) {
				d := withCI(Dist{}, ci, false, grp, metric)
				return d.Small[2], d.P95CI
			}
			w.ClientE2ESmall, w.ClientE2ECI = p95("client_e2e")
			w.QueueSmall, w.QueueCI = p95("queue")
			w.ModelSmall, w.ModelCI = p95("model")
		}
		if f := duck.Float(r["width_s"]); f != nil {
			w.WidthS = *f
		}
		if f := duck.Float(r["arrivals_per_s"]); f != nil {
			w.ArrivalsPerS = *f
		}
		out = append(out, w)
	}
	return out, nil
}
