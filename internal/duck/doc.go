// Package duck is the DuckDB plumbing every command that reads a store
// shares: it opens a private in-memory database bounded by Resources (memory
// limit, threads, spill directory, UTC), creates the macros of
// queries/macros.sql, runs the named queries of package queries into rows
// or temporary tables, tells a progress display which step begins
// (WithStep, Step), records each statement's profile when asked
// (Resources.Profile), reads DuckDB's values into Go ones (Int, Float,
// String, Time, List, Quantiles) and recognises its out-of-memory errors.
//
// It knows nothing of tiers, requests or reports: analyze, compare,
// explain and whatif build on it.
package duck
