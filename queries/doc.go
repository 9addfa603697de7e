// Package queries owns every SQL statement infertrace runs against DuckDB.
// Each query lives in its own .sql file in this directory, is embedded into
// the binary, and is loaded by name (the file name without ".sql") with Get
// or MustGet. Keeping the analysis logic in SQL files lets a user read
// exactly how each number in a report is computed.
package queries
