// Package analyzetest writes small, hand-checkable ingest outputs (tier
// Parquet parts, manifest.json, rejects.jsonl) for tests of analyze and
// report. Parquet is written with DuckDB, the same engine analyze reads it
// with, using explicit casts so column types match the ingest contract.
package analyzetest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	// The DuckDB driver, registered as "duckdb".
	_ "github.com/duckdb/duckdb-go/v2"
)

// Base is the instant every fixture time is relative to.
var Base = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// T is a time in milliseconds after Base on the true timeline; nil is NULL.
type T *int64

// At returns a fixture time ms milliseconds after Base.
func At(ms int64) T { return &ms }

// Offsets shifts each tier's host clock by a constant.
type Offsets struct {
	Client, Gateway, Server time.Duration
}

// DefaultOffsets: the gateway's clock runs 2.5 s ahead of the client's and
// the server's 3.1 s behind.
var DefaultOffsets = Offsets{Gateway: 2500 * time.Millisecond, Server: -3100 * time.Millisecond}

// Client is one client record.
type Client struct {
	ID                     string
	Start, FirstToken, End T
	Status                 *int
	Streamed               *bool
	Model, UseCase         string
	Client, Region         string
	PromptTokens, Output   *int
	Line                   int
	// Durations the client measured, in ms (written as ns; never shifted
	// by a clock offset); nil is NULL.
	E2E, TTFT  T
	ResponseID string
	TraceID    string
	Format     string // empty: "native"
	File       string // empty: "logs/client.jsonl"
	Error      string
}

// Gateway is one gateway record.
type Gateway struct {
	ID                                     string
	Start, End, UpstreamStart, UpstreamEnd T
	Status                                 *int
	Route, Upstream, Gateway               string
	Line                                   int
	UpstreamFirstByte                      T
	TTFT                                   T // the gateway's logged TTFT in ms; nil is NULL
	TraceID                                string
	Format                                 string // empty: "native"
	File                                   string // empty: "logs/gateway.log"
}

// Server is one inference-server record.
type Server struct {
	ID                                  string
	Arrival, Scheduled, FirstToken, End T
	Model, Replica                      string
	PromptTokens, Output                *int
	FinishReason                        string
	Status                              *int
	Line                                int
	// Durations the server measured, in ms (written as ns; never shifted
	// by a clock offset); nil is NULL.
	E2E, Queue, TTFT, Prefill, Decode, Inference T
	// InferencePlusNS is added to Inference, in ns: a sub-ms duration,
	// such as a float clock's round-off makes.
	InferencePlusNS int64
	Error           string
	Format          string // empty: "native"
	File            string // empty: "logs/server.jsonl"
	TraceID         string
}

// Fixture is the content of one ingest directory.
type Fixture struct {
	Clients  []Client
	Gateways []Gateway
	Servers  []Server
	Manifest string // manifest.json content; empty: a manifest listing no files
	Rejects  string // rejects.jsonl content; empty: not written
	// TimestampTZ writes times as UTC-adjusted timestamps, which DuckDB
	// reads back as TIMESTAMP WITH TIME ZONE instead of TIMESTAMP_NS.
	TimestampTZ bool
}

// Int and Bool return pointers for nullable fixture fields.
func Int(v int) *int { return &v }

// Bool returns a pointer to v.
func Bool(v bool) *bool { return &v }

func ts(t T, off time.Duration, tz bool) string {
	typ := "TIMESTAMP_NS"
	if tz {
		typ = "TIMESTAMPTZ"
	}
	if t == nil {
		return "NULL::" + typ
	}
	at := Base.Add(time.Duration(*t)*time.Millisecond + off)
	if tz {
		return "'" + at.Format("2006-01-02 15:04:05.000000+00") + "'::TIMESTAMPTZ"
	}
	return "'" + at.Format("2006-01-02 15:04:05.000000000") + "'::TIMESTAMP_NS"
}

func str(s string) string {
	if s == "" {
		return "NULL::VARCHAR"
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'::VARCHAR"
}

// id writes a client or gateway request ID as ingest does: a required
// column, ” when the format logs none.
func id(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'::VARCHAR"
}

func integer(p *int) string {
	if p == nil {
		return "NULL::INTEGER"
	}
	return fmt.Sprintf("%d::INTEGER", *p)
}

func boolean(p *bool) string {
	if p == nil {
		return "NULL::BOOLEAN"
	}
	return fmt.Sprintf("%t", *p)
}

func line(n int) string { return fmt.Sprintf("%d::BIGINT", n) }

// plusNanos is nanos(d) + ns (NULL when d is).
func plusNanos(d T, ns int64) string {
	if d == nil {
		return "NULL::BIGINT"
	}
	return fmt.Sprintf("%d::BIGINT", *d*int64(time.Millisecond)+ns)
}

func nanos(d T) string {
	if d == nil {
		return "NULL::BIGINT"
	}
	return fmt.Sprintf("%d::BIGINT", *d*int64(time.Millisecond))
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Write writes f into dir with the given clock offsets. A tier without
// records gets no directory at all.
func Write(ctx context.Context, dir string, f Fixture, off Offsets) error {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)

	var rows []string
	for _, c := range f.Clients {
		rows = append(rows, "("+strings.Join([]string{
			id(c.ID), ts(c.Start, off.Client, f.TimestampTZ), ts(c.FirstToken, off.Client, f.TimestampTZ), ts(c.End, off.Client, f.TimestampTZ),
			integer(c.Status), str(c.Error), boolean(c.Streamed), str(c.Model), str(c.UseCase),
			str(c.Client), str(c.Region), integer(c.PromptTokens), integer(c.Output),
			nanos(c.E2E), nanos(c.TTFT), str(c.ResponseID), str(c.TraceID), str(or(c.Format, "native")),
			str(or(c.File, "logs/client.jsonl")), line(c.Line)}, ", ")+")")
	}
	if err := copyTier(ctx, db, dir, "client", rows,
		"request_id, start_time, first_token_time, end_time, status, error, streamed, model, use_case, client, region, prompt_tokens, output_tokens, "+
			"e2e_ns, ttft_ns, response_id, trace_id, format, source_file, source_line"); err != nil {
		return err
	}

	rows = nil
	for _, g := range f.Gateways {
		rows = append(rows, "("+strings.Join([]string{
			id(g.ID), ts(g.Start, off.Gateway, f.TimestampTZ), ts(g.End, off.Gateway, f.TimestampTZ), ts(g.UpstreamStart, off.Gateway, f.TimestampTZ),
			ts(g.UpstreamEnd, off.Gateway, f.TimestampTZ), integer(g.Status), str(g.Route), str(g.Upstream), str(g.Gateway),
			ts(g.UpstreamFirstByte, off.Gateway, f.TimestampTZ), nanos(g.TTFT), str(g.TraceID), str(or(g.Format, "native")),
			str(or(g.File, "logs/gateway.log")), line(g.Line)}, ", ")+")")
	}
	if err := copyTier(ctx, db, dir, "gateway", rows,
		"request_id, start_time, end_time, upstream_start_time, upstream_end_time, status, route, upstream, gateway, "+
			"upstream_first_byte_time, ttft_ns, trace_id, format, source_file, source_line"); err != nil {
		return err
	}

	rows = nil
	for _, s := range f.Servers {
		rows = append(rows, "("+strings.Join([]string{
			str(s.ID), ts(s.Arrival, off.Server, f.TimestampTZ), ts(s.Scheduled, off.Server, f.TimestampTZ), ts(s.FirstToken, off.Server, f.TimestampTZ),
			ts(s.End, off.Server, f.TimestampTZ), str(s.Model), str(s.Replica), integer(s.PromptTokens), integer(s.Output),
			str(s.FinishReason), integer(s.Status),
			nanos(s.E2E), nanos(s.Queue), nanos(s.TTFT), nanos(s.Prefill), nanos(s.Decode), plusNanos(s.Inference, s.InferencePlusNS),
			str(s.Error), str(or(s.Format, "native")), str(s.TraceID),
			str(or(s.File, "logs/server.jsonl")), line(s.Line)}, ", ")+")")
	}
	if err := copyTier(ctx, db, dir, "server", rows,
		"request_id, arrival_time, scheduled_time, first_token_time, end_time, model, replica, prompt_tokens, output_tokens, finish_reason, status, "+
			"e2e_ns, queue_ns, ttft_ns, prefill_ns, decode_ns, inference_ns, error, format, trace_id, source_file, source_line"); err != nil {
		return err
	}

	manifest := f.Manifest
	if manifest == "" {
		manifest = `{"version":1,"files":[]}`
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(manifest), 0o644); err != nil {
		return err
	}
	if f.Rejects != "" {
		if err := os.WriteFile(filepath.Join(dir, "rejects.jsonl"), []byte(f.Rejects), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func copyTier(ctx context.Context, db *sql.DB, dir, tier string, rows []string, cols string) error {
	if len(rows) == 0 {
		return nil
	}
	if err := os.MkdirAll(filepath.Join(dir, tier), 0o755); err != nil {
		return err
	}
	out := filepath.Join(dir, tier, "part-0.parquet")
	q := "COPY (SELECT * FROM (VALUES " + strings.Join(rows, ",\n") + ") t(" + cols + ")) TO '" +
		strings.ReplaceAll(out, "'", "''") + "' (FORMAT parquet)"
	if _, err := db.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("write %s fixture: %w", tier, err)
	}
	return nil
}
