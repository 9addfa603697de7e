// Package analyze owns the analysis half of infertrace. It opens an
// in-process DuckDB over the typed Parquet that ingest writes and
//
//   - Run: joins the client, gateway and server tiers by request ID into
//     DIR/requests.parquet (queries/requests.sql), one row per request with
//     its latency attributed to network, application, queue and model;
//   - Summarize: reads requests.parquet, manifest.json and rejects.jsonl into
//     a plain Result (coverage, rejects, anomalies, percentiles and
//     attribution per slice, slowest requests) that the report package
//     renders without SQL.
//
// Every computation over rows lives in the SQL files of the queries package;
// the Go side opens DuckDB, registers views, runs queries and scans results,
// then words the findings and carries the measurement protocol (Protocol),
// the one description of how each metric is measured. It never imports
// ingest or report.
package analyze
