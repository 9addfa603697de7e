// Package explain answers "why was my request slow?": for the requests an
// ID names (or the slowest that match a client, region, model and window)
// it returns each one's waterfall on one clock, its components beside the
// P50 and P95 of its slice, and the clock offsets that placed each tier,
// as data. report writes the page and its sentences.
//
// It reads an analyzed store through analyze.OpenAnalyzed and runs
// queries/explain*.sql.
package explain
