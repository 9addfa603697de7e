package whatif

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"time"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/internal/duck"
	"github.com/infertrace/infertrace/queries"
)

// Data is what infertrace whatif replays, as the logs of an analyzed
// dir give it (queries/whatif_*.sql): every request with a server record
// and its times, the clock offsets between replicas and gateways, the
// service-time fits and the pool's limits.
type Data struct {
	Dir      string
	Requests []LoggedRequest
	// LeftOut counts the requests with a server record that could not be
	// placed (no arrival instant, queue or server E2E).
	LeftOut int64
	// ServerRecords counts the requests with a server record per model,
	// placed or not.
	ServerRecords map[string]int64
	// Unlogged are the forwarded requests whose server record is missing
	// (queries/whatif_unlogged.sql).
	Unlogged []Unlogged
	Offsets  []Offset
	Fits     []TPOTFit
	Replicas []ReplicaLoad
}

// LoggedRequest is one request as whatif_requests.sql gives it. Instants
// are ns since the Unix epoch on the replica's clock; durations in ms, NaN
// where unknown (a request's fields hold no pointers: there may be
// millions).
type LoggedRequest struct {
	Model, Replica, UseCase, Phase string
	Start                          *time.Time // requests.parquet's start, for the window
	Completed, Streamed            bool
	PromptTokens, OutputTokens     int64
	ArrNs, SchedNs, EndNs          int64
	Batch                          int64 // running on the replica when it was scheduled, itself included
	GatewayHost                    string
	QueueMs, PrefillMs, DecodeMs   float64
	ModelMs, TTFTMs, E2EMs         float64
	OverheadMs, TTFTOverheadMs     float64
	TPOTMs                         float64
}

// Unlogged is a request the gateway forwarded at GatewayUpNs (its
// clock) whose server record is missing.
type Unlogged struct {
	ID, Model, GatewayHost     string
	Start                      *time.Time
	PromptTokens, OutputTokens int64
	GatewayUpNs                int64
}

// Offset is the smallest arrival minus upstream start over the
// requests of one replica and gateway host (queries/whatif_offsets.sql).
type Offset struct {
	Replica, Gateway string
	N                int64
	MinDeltaNs       int64
}

// TPOTFit is one row of queries/whatif_fits.sql; Replica "" for the
// model's replicas together.
type TPOTFit struct {
	Model, Replica                   string
	TPOTN                            int64
	TPOTIntercept, TPOTSlope, TPOTR2 *float64
}

// ReplicaLoad is one row of queries/whatif_pool.sql.
type ReplicaLoad struct {
	Model, Replica                 string
	N, FirstArrNs, MaxBatch, AtMax int64
	Queued, QueuedBelow            int64
}

// ReadInput reads what whatif replays from the analyzed dir.
func ReadInput(ctx context.Context, dir string, res duck.Resources) (*Data, error) {
	db, closeDB, err := analyze.OpenAnalyzed(ctx, dir, res)
	if err != nil {
		return nil, err
	}
	defer closeDB()
	q, err := queries.Get("whatif_requests")
	if err != nil {
		return nil, err
	}
	duck.Step(ctx, "whatif_requests")
	if _, err := db.ExecContext(ctx, "CREATE OR REPLACE TEMP TABLE whatif_requests AS "+duck.Strip(q)); err != nil {
		return nil, fmt.Errorf("query whatif_requests: %w", err)
	}
	d := &Data{Dir: dir}
	counts, err := duck.Maps(ctx, db, "whatif server records", "SELECT model, count(*) AS n FROM requests WHERE has_server AND model IS NOT NULL GROUP BY model")
	if err != nil {
		return nil, err
	}
	d.ServerRecords = map[string]int64{}
	var servers int64
	for _, r := range counts {
		d.ServerRecords[duck.String(r["model"])] = duck.Int(r["n"])
		servers += duck.Int(r["n"])
	}
	if err := scanRequests(ctx, db, d); err != nil {
		return nil, err
	}
	d.LeftOut = servers - int64(len(d.Requests))
	rows, err := duck.Rows(ctx, db, "whatif_unlogged")
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		d.Unlogged = append(d.Unlogged, Unlogged{ID: duck.String(r["request_id"]), Model: duck.String(r["model"]),
			GatewayHost: duck.String(r["gateway_host"]), Start: duck.Time(r["start"]),
			PromptTokens: duck.Int(r["prompt_tokens"]), OutputTokens: duck.Int(r["output_tokens"]), GatewayUpNs: duck.Int(r["g_up_ns"])})
	}
	if rows, err = duck.Rows(ctx, db, "whatif_offsets"); err != nil {
		return nil, err
	}
	for _, r := range rows {
		d.Offsets = append(d.Offsets, Offset{Replica: duck.String(r["replica"]), Gateway: duck.String(r["gateway_host"]),
			N: duck.Int(r["n"]), MinDeltaNs: duck.Int(r["min_delta_ns"])})
	}
	if rows, err = duck.Rows(ctx, db, "whatif_fits"); err != nil {
		return nil, err
	}
	for _, r := range rows {
		d.Fits = append(d.Fits, TPOTFit{Model: duck.String(r["model"]), Replica: duck.String(r["replica"]),
			TPOTN: duck.Int(r["tpot_n"]), TPOTIntercept: duck.Float(r["tpot_intercept"]), TPOTSlope: duck.Float(r["tpot_slope"]),
			TPOTR2: duck.Float(r["tpot_r2"])})
	}
	if rows, err = duck.Rows(ctx, db, "whatif_pool"); err != nil {
		return nil, err
	}
	for _, r := range rows {
		d.Replicas = append(d.Replicas, ReplicaLoad{Model: duck.String(r["model"]), Replica: duck.String(r["replica"]),
			N: duck.Int(r["n"]), FirstArrNs: duck.Int(r["first_arr_ns"]), MaxBatch: duck.Int(r["max_batch"]),
			AtMax: duck.Int(r["at_max"]), Queued: duck.Int(r["queued"]), QueuedBelow: duck.Int(r["queued_below"])})
	}
	return d, nil
}

// scanRequests reads the whatif_requests table row by row into
// d.Requests, each repeated label stored once.
func scanRequests(ctx context.Context, db *sql.DB, d *Data) error {
	rows, err := db.QueryContext(ctx, `SELECT model, replica, use_case, phase, start, completed,
		prompt_tokens, output_tokens, arr_ns, sched_ns, end_ns, batch, gateway_host,
		queue_ms, prefill_ms, decode_ms, model_ms, server_ttft_ms, server_e2e_ms,
		server_overhead_ms, ttft_server_overhead_ms, tpot_ms, streamed
		FROM whatif_requests`)
	if err != nil {
		return fmt.Errorf("query whatif_requests: %w", err)
	}
	defer rows.Close()
	labels := map[string]string{}
	label := func(v any) string {
		s := duck.String(v)
		if l, ok := labels[s]; ok {
			return l
		}
		labels[s] = s
		return s
	}
	flt := func(v any) float64 {
		if p := duck.Float(v); p != nil {
			return *p
		}
		return math.NaN()
	}
	vals := make([]any, 23)
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for n := 0; rows.Next(); n++ {
		if n&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		clear(vals)
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("query whatif_requests: %w", err)
		}
		w := LoggedRequest{
			Model: label(vals[0]), Replica: label(vals[1]), UseCase: label(vals[2]), Phase: label(vals[3]),
			Start: duck.Time(vals[4]), PromptTokens: duck.Int(vals[6]), OutputTokens: duck.Int(vals[7]),
			ArrNs: duck.Int(vals[8]), SchedNs: duck.Int(vals[9]), EndNs: duck.Int(vals[10]), Batch: duck.Int(vals[11]),
			GatewayHost: label(vals[12]),
			QueueMs:     flt(vals[13]), PrefillMs: flt(vals[14]), DecodeMs: flt(vals[15]), ModelMs: flt(vals[16]),
			TTFTMs: flt(vals[17]), E2EMs: flt(vals[18]), OverheadMs: flt(vals[19]), TTFTOverheadMs: flt(vals[20]),
			TPOTMs: flt(vals[21]),
		}
		w.Completed, _ = vals[5].(bool)
		w.Streamed, _ = vals[22].(bool)
		d.Requests = append(d.Requests, w)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("query whatif_requests: %w", err)
	}
	return nil
}
