package explain

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/internal/duck"
	"github.com/infertrace/infertrace/queries"
)

// Options picks the requests Explain explains: IDs, else the
// slowest requests matching every filter given (Client, Region, Model,
// starting in [From, To)), at most Limit (0: 5).
type Options struct {
	IDs                   []string
	Client, Region, Model string
	From, To              *time.Time
	Limit                 int
	Resources             duck.Resources

	// By lists the slice columns of the slice each request is set
	// against; empty means analyze.DefaultBy (model, use case).
	By []string
}

// Result is what explain shows: each request's waterfall, components
// against its slice, and context; the clock offsets behind the drawing.
type Result struct {
	Dir      string
	By       []string // the slice columns
	Requests []Request
	Missing  []string // IDs asked for that no request has
	Offsets  []ClockOffset
}

// ClockOffset is one host's clock offset against one gateway host,
// estimated from the bounds its requests give (queries/clock_offsets.sql).
type ClockOffset struct {
	Tier, Host, Gateway string
	Minute              *time.Time // the minute of the gateway's clock the bounds come from
	NLower, NUpper      int64
	LowerMs, UpperMs    *float64
	OffsetMs            *float64 // NULL when a bound is missing or the bounds cross by more than 5 ms
	UncertaintyMs       *float64 // half the distance of LowerMs and UpperMs
	CrossedMs           *float64
}

// Request is one request explained.
type Request struct {
	RequestID                      string
	Start                          *time.Time
	Model, UseCase, Client, Region string
	Gateway, Replica, Phase        string
	Status                         *int64
	Streamed                       bool
	Concurrency, QueueDepth        *int64
	ClientRecords, GatewayRecords  int64
	ServerRecords                  int64
	ClientSource, GatewaySource    string
	ServerSource, Anomaly          string
	// Aborted: the client left before the response ended; WastedMs is
	// the server's time after it left (requests.parquet's wasted_ms).
	Aborted                    bool
	WastedMs                   *float64
	ClientHost, GatewayHost    string
	ServerHost                 string
	ClientOffset, ServerOffset Offset
	Components                 []Component // E2E, its components and split, then TTFT's
	// Answer: the largest part of its E2E and of its TTFT, with its share.
	Answer Answer
	Spans  []Span // the waterfall, on the gateway's clock

	// Slice is the requests it is set against, "model=m, use_case=u";
	// ServerJoin how its server record joined ("id", or "time" for a TGI
	// record matched by time, whose host then gets no offset).
	Slice, ServerJoin string
}

// Offset is a host's offset against the request's gateway, as used to
// place its boxes.
type Offset struct {
	Ms, UncertaintyMs *float64
	Bounds            int64 // requests whose bounds it rests on
}

// Component is one of a request's figures beside its slice's.
type Component struct {
	Metric             string // "client_e2e", "queue", "ttft_network", ...
	Value              *float64
	SliceN             int64
	SliceP50, SliceP95 *float64
	// SliceSmall: the slice's P50, P95 from too few samples
	// (pct_too_small): "n too small", and nothing is called above it.
	SliceSmall [2]bool
	// SliceP95Hi is the upper bound of the 95% interval of SliceP95 (nil:
	// open, fewer than 110 samples, or too small); AboveP95 the noise
	// rule's verdict (see AboveP95): Value beyond SliceP95's noise.
	SliceP95Hi *float64
	AboveP95   bool
}

// Span is one box of the waterfall: [StartMs, EndMs] after the gateway's
// start, on its clock; NULL ends where the time is unknown or the host's
// offset is.
type Span struct {
	Tier, Name     string
	StartMs, EndMs *float64
	// UncertaintyMs is the placement's ± from the host's offset (0 for
	// the gateway's own times).
	UncertaintyMs *float64
}

// Explain explains requests of the analyzed dir.
func Run(ctx context.Context, dir string, opts Options) (*Result, error) {
	by, err := analyze.ValidateBy(opts.By)
	if err != nil {
		return nil, err
	}
	db, closeDB, err := analyze.OpenAnalyzed(ctx, dir, opts.Resources)
	if err != nil {
		return nil, err
	}
	defer closeDB()
	if err := analyze.RegisterSliced(ctx, db, by, nil); err != nil { // default token buckets
		return nil, err
	}
	ids := opts.IDs
	if len(ids) == 0 {
		if ids, err = pick(ctx, db, opts); err != nil {
			return nil, err
		}
	}
	ex := &Result{Dir: dir, By: by}
	if _, err := db.ExecContext(ctx, "CREATE OR REPLACE TEMP TABLE explain_ids (request_id VARCHAR, ord INTEGER)"); err != nil {
		return nil, fmt.Errorf("explain: %w", err)
	}
	for i, id := range ids {
		if _, err := db.ExecContext(ctx, "INSERT INTO explain_ids VALUES (?, ?)", id, i); err != nil {
			return nil, fmt.Errorf("explain: %w", err)
		}
	}
	for _, name := range []string{"explain_records", "clock_offsets"} {
		q, err := queries.Get(name)
		if err != nil {
			return nil, err
		}
		duck.Step(ctx, name)
		if _, err := db.ExecContext(ctx, "CREATE OR REPLACE TEMP TABLE "+name+" AS "+duck.Strip(q)); err != nil {
			return nil, fmt.Errorf("query %s: %w", name, err)
		}
	}
	rows, err := duck.Rows(ctx, db, "clock_offsets")
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		ex.Offsets = append(ex.Offsets, ClockOffset{
			Tier: duck.String(r["tier"]), Host: duck.String(r["host"]), Gateway: duck.String(r["gateway_host"]),
			Minute: duck.Time(r["minute"]),
			NLower: duck.Int(r["n_lower"]), NUpper: duck.Int(r["n_upper"]),
			LowerMs: duck.Float(r["lower_ms"]), UpperMs: duck.Float(r["upper_ms"]),
			OffsetMs: duck.Float(r["offset_ms"]), UncertaintyMs: duck.Float(r["uncertainty_ms"]), CrossedMs: duck.Float(r["crossed_ms"]),
		})
	}
	if ex.Requests, err = explained(ctx, db, by); err != nil {
		return nil, err
	}
	found := map[string]bool{}
	for _, r := range ex.Requests {
		found[r.RequestID] = true
	}
	for _, id := range ids {
		if !found[id] {
			ex.Missing = append(ex.Missing, id)
		}
	}
	return ex, nil
}

func pick(ctx context.Context, db *sql.DB, o Options) ([]string, error) {
	q, err := queries.Get("explain_pick")
	if err != nil {
		return nil, err
	}
	limit := o.Limit
	if limit <= 0 {
		limit = 5
	}
	str := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	tm := func(t *time.Time) any {
		if t == nil {
			return nil
		}
		return *t
	}
	duck.Step(ctx, "explain_pick")
	rows, err := db.QueryContext(ctx, q, str(o.Client), str(o.Region), str(o.Model), tm(o.From), tm(o.To), limit)
	if err != nil {
		return nil, fmt.Errorf("query explain_pick: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("query explain_pick: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

func asIntPtr(v any) *int64 {
	if v == nil {
		return nil
	}
	n := duck.Int(v)
	return &n
}

func explained(ctx context.Context, db *sql.DB, by []string) ([]Request, error) {
	rows, err := duck.Rows(ctx, db, "explain")
	if err != nil {
		return nil, err
	}
	comps, err := duck.Rows(ctx, db, "explain_components")
	if err != nil {
		return nil, err
	}
	var out []Request
	for _, r := range rows {
		e := Request{
			RequestID: duck.String(r["request_id"]), Start: duck.Time(r["start"]),
			Model: duck.String(r["model"]), UseCase: duck.String(r["use_case"]), Client: duck.String(r["client"]),
			Region: duck.String(r["region"]), Gateway: duck.String(r["gateway"]), Replica: duck.String(r["replica"]),
			Phase: duck.String(r["phase"]), Status: asIntPtr(r["status"]), Streamed: r["streamed"] == true,
			ServerJoin:  duck.String(r["server_join"]),
			Concurrency: asIntPtr(r["concurrency"]), QueueDepth: asIntPtr(r["queue_depth"]),
			ClientRecords: duck.Int(r["client_records"]), GatewayRecords: duck.Int(r["gateway_records"]), ServerRecords: duck.Int(r["server_records"]),
			ClientSource: duck.String(r["client_source"]), GatewaySource: duck.String(r["gateway_source"]), ServerSource: duck.String(r["server_source"]),
			Anomaly: duck.String(r["anomaly"]),
			Aborted: r["aborted"] == true, WastedMs: duck.Float(r["wasted_ms"]),
			ClientHost: duck.String(r["client_host"]), GatewayHost: duck.String(r["gateway_host"]), ServerHost: duck.String(r["server_host"]),
			ClientOffset: Offset{Ms: duck.Float(r["client_offset_ms"]), UncertaintyMs: duck.Float(r["client_offset_uncertainty_ms"]), Bounds: duck.Int(r["client_offset_bounds"])},
			ServerOffset: Offset{Ms: duck.Float(r["server_offset_ms"]), UncertaintyMs: duck.Float(r["server_offset_uncertainty_ms"]), Bounds: duck.Int(r["server_offset_bounds"])},
		}
		zero := 0.0
		span := func(tier, name, a, b string, unc *float64) {
			e.Spans = append(e.Spans, Span{Tier: tier, Name: name, StartMs: duck.Float(r[a]), EndMs: duck.Float(r[b]), UncertaintyMs: unc})
		}
		span("client", "request → response", "c_start_at", "c_end_at", e.ClientOffset.UncertaintyMs)
		if r["c_first_at"] != nil {
			span("client", "first token received", "c_first_at", "c_first_at", e.ClientOffset.UncertaintyMs)
		}
		span("gateway", "before forwarding", "g_start_at", "g_up_start_at", &zero)
		span("gateway", "upstream", "g_up_start_at", "g_up_end_at", &zero)
		span("gateway", "after the upstream", "g_up_end_at", "g_end_at", &zero)
		span("server", "queue", "s_arrival_at", "s_scheduled_at", e.ServerOffset.UncertaintyMs)
		if r["s_first_at"] != nil {
			span("server", "prefill", "s_scheduled_at", "s_first_at", e.ServerOffset.UncertaintyMs)
			span("server", "decode", "s_first_at", "s_end_at", e.ServerOffset.UncertaintyMs)
		} else {
			span("server", "model", "s_scheduled_at", "s_end_at", e.ServerOffset.UncertaintyMs)
		}
		vals := map[string]*float64{}
		for _, m := range []string{"gateway_e2e_ms", "server_e2e_ms", "upstream_ms", "network_application_ms", "unsplit_ms",
			"ttft_network_application_ms", "ttft_unsplit_ms"} {
			vals[strings.TrimSuffix(m, "_ms")] = duck.Float(r[m])
		}
		for _, c := range comps {
			if duck.String(c["request_id"]) != e.RequestID {
				continue
			}
			if e.Slice == "" {
				var parts []string
				for i, v := range duck.List(c["slice_key"]) {
					s := "(none)"
					if v != nil {
						s = duck.String(v)
					}
					if i < len(by) {
						parts = append(parts, by[i]+"="+s)
					}
				}
				e.Slice = strings.Join(parts, ", ")
			}
			comp := Component{
				Metric: duck.String(c["metric"]), Value: duck.Float(c["value"]), SliceN: duck.Int(c["slice_n"]),
				SliceP50: duck.Float(c["slice_p50"]), SliceP95: duck.Float(c["slice_p95"]),
				SliceSmall: [2]bool{c["slice_p50_small"] == true, c["slice_p95_small"] == true},
				SliceP95Hi: duck.Float(c["slice_p95_hi"]),
			}
			// Never above a P95 its slice's sample cannot support.
			comp.AboveP95 = comp.Value != nil && comp.SliceP95 != nil && !comp.SliceSmall[1] &&
				AboveP95(*comp.Value, *comp.SliceP95, comp.SliceP95Hi)
			vals[comp.Metric] = comp.Value
			e.Components = append(e.Components, comp)
		}
		// Without a client record, whether it was streamed is unknown, and so
		// is its client TTFT.
		e.Answer = answer(vals, e.Streamed || e.ClientRecords == 0)
		out = append(out, e)
	}
	return out, nil
}
