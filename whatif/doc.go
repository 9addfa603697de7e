// Package whatif answers "what if the serving pool were different?" from
// an analyzed dir's logs: it replays the logged arrivals through a
// discrete-event model of the pool (Replay), estimated from the same logs
// (each model's routing among its replicas, each replica's slots and when
// it appeared, each request's prefill and decode time and their slowdown
// as the batch grows: decode fitted per model and replica by
// queries/whatif_fits.sql, prefill by fitPrefill), first
// unchanged — the as-is replay, which must reproduce the logged P50 and
// P95 of queue, TTFT and E2E per model within Tolerance before anything is
// predicted — then with the changes of Options: more or fewer replicas,
// other slots, traffic played faster; a model the changes leave alone
// keeps its as-is figures, and a changed pool that cannot keep up gets a
// saturation verdict instead of percentiles. whatif returns figures (a
// Result); report words them (report.WhatIfHeadline, report.RenderWhatIf:
// whatif.md, whatif.html, whatif.json).
//
// The input is Data (queries/whatif_*.sql); for a change
// such as
//
//	infertrace whatif out --replicas llama-3.1-70b=+1 --traffic 1.5
//
// the output is, per model, logged vs as-is replay vs predicted P50, P95
// and P99 of server queue, TTFT and E2E with n and window, and the pool's
// estimate with its evidence.
package whatif
