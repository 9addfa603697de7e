// Package compare compares two sets of analyzed requests — two stores,
// two windows of one store, or two values of a slice column — per slice
// (queries/compare.sql: each quantile's change with an order-statistic
// interval, requests clustered in time counted as one event), and judges
// the change against the product contract. It returns data (Comparison,
// with the types of its slices, changes and verdict, which live here and
// not in analyze); report words its findings and verdict.
//
// Trend is the same comparison between the last two periods of a report
// by day or week (TrendComparison), which report takes beside the
// analyze.Result it reports.
package compare
