// Package analyze owns the analysis half of infertrace: it opens an
// in-process DuckDB over the typed Parquet written by ingest, joins the
// client, gateway and server tiers by request ID into DIR/requests.parquet
// (Run), and summarizes that table into a plain Go Result that the report
// package renders (Summarize). All analysis logic lives in the SQL files of
// the queries package; this package only opens DuckDB, registers views, runs
// queries and scans results. It never imports ingest or report.
package analyze
