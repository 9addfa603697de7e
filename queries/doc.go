// Package queries owns every SQL statement infertrace runs against DuckDB.
// Each query lives in its own .sql file in this directory, is embedded into
// the binary, and is loaded by name (the file name without ".sql") with Get
// or MustGet. Keeping the analysis logic in SQL files lets a user read
// exactly how each number in a report is computed.
//
// requests.parquet is made by a pipeline of steps, one file each, in
// requests/: each file's header declares what it reads and writes, and
// Steps reads them in the order of their names (see Step and
// requests/README.md). The steps that each tier takes alike (its
// deduplication, source numbering and retry choice) are written once, in
// tier.sql.tmpl, and expanded by Get and Steps: a query that holds "{{" is
// a Go text/template. The rules the queries implement are stated in
// docs/attribution.md.
package queries
