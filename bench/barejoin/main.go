// Command barejoin is the baseline infertrace's analyze and report are
// measured against: what an expert would write by hand in DuckDB on the
// Parquet infertrace ingested, with none of infertrace's rules (no
// duplicate or retry handling, no joins but by request ID, no TGI matching,
// no phases, no slices but the model). It joins the three tiers by
// request_id and computes, per model, P50/P90/P95/P99 of client E2E and of
// three components, each a difference on one host's clock: network (client
// E2E − gateway E2E), queue (server scheduled − arrival) and model (server
// end − scheduled).
//
//	go run ./bench/barejoin DIR
package main

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
)

const query = `
WITH c AS (SELECT request_id, start_time, end_time FROM read_parquet(%[1]s)),
g AS (SELECT request_id, start_time, end_time FROM read_parquet(%[2]s)),
s AS (SELECT request_id, model, arrival_time, scheduled_time, end_time FROM read_parquet(%[3]s)),
j AS (
  SELECT s.model,
    (epoch_ns(c.end_time) - epoch_ns(c.start_time)) / 1e6 AS e2e_ms,
    ((epoch_ns(c.end_time) - epoch_ns(c.start_time)) - (epoch_ns(g.end_time) - epoch_ns(g.start_time))) / 1e6 AS network_ms,
    (epoch_ns(s.scheduled_time) - epoch_ns(s.arrival_time)) / 1e6 AS queue_ms,
    (epoch_ns(s.end_time) - epoch_ns(s.scheduled_time)) / 1e6 AS model_ms
  FROM c JOIN g USING (request_id) JOIN s USING (request_id)
)
SELECT model, count(*),
  quantile_cont(e2e_ms, [0.5, 0.9, 0.95, 0.99]),
  quantile_cont(network_ms, [0.5, 0.9, 0.95, 0.99]),
  quantile_cont(queue_ms, [0.5, 0.9, 0.95, 0.99]),
  quantile_cont(model_ms, [0.5, 0.9, 0.95, 0.99])
FROM j GROUP BY model ORDER BY model`

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: barejoin DIR")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "barejoin:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	glob := func(tier string) string { return quote(filepath.Join(dir, tier, "*", "*.parquet")) }
	start := time.Now()
	rows, err := db.Query(fmt.Sprintf(query, glob("client"), glob("gateway"), glob("server")))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var model sql.NullString
		var n int64
		var e2e, network, queue, mdl any
		if err := rows.Scan(&model, &n, &e2e, &network, &queue, &mdl); err != nil {
			return err
		}
		fmt.Printf("%s n=%d e2e=%v network=%v queue=%v model=%v\n", model.String, n, e2e, network, queue, mdl)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	fmt.Printf("%.2fs\n", time.Since(start).Seconds())
	return nil
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
