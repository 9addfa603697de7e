// Package queries owns every SQL statement infertrace runs against DuckDB.
// Each query lives in its own .sql file in this directory, is embedded into
// the binary, and is loaded by name (the file name without ".sql") with Get
// or MustGet. Keeping the analysis logic in SQL files lets a user read
// exactly how each number in a report is computed.
//
// Blocks that a query applies alike to each tier (requests.sql's
// deduplication, source numbering and retry choice) are written once, in
// tier.sql.tmpl, and expanded by Get: a query that holds "{{" is a Go
// text/template. The rules the queries implement are stated in
// docs/attribution.md.
package queries
