// Package analyze owns the analysis half of infertrace. It opens an
// in-process DuckDB over the typed Parquet that ingest writes and
//
//   - Run: joins the client, gateway and server tiers by request ID into
//     DIR/requests.parquet (queries/requests.sql), one row per request with
//     its latency attributed to network, application, queue and model;
//   - Summarize: reads requests.parquet, manifest.json and rejects.jsonl into
//     a plain Result (coverage, rejects, anomalies, percentiles and
//     attribution per slice, slowest requests, cold/burst/steady phases side
//     by side, per-replica figures and a time series per window) that the
//     report package renders without SQL.
//
// Each request's phase (cold, burst or steady) and concurrency are derived
// in requests.sql from the logs alone, each decision on one host's clock;
// the simulator's truth labels are only for checking them.
//
// Every computation over rows lives in the SQL files of the queries package;
// the Go side opens DuckDB, registers views, runs queries and scans results,
// then words the findings and carries the measurement protocol (Protocol),
// the one description of how each metric is measured. It never imports
// ingest or report.
package analyze
