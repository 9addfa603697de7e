// Package report owns rendering: it turns an analyze.Result into a Markdown
// report (text/template) and a self-contained HTML report (html/template,
// inline CSS and inline SVG charts, no scripts and no external fetches):
// findings, phases (cold, burst, steady side by side), replicas, a time
// series (a table, and in HTML a chart shading burst windows and marking
// windows with cold requests), inputs, coverage, rejects, anomalies,
// latency and attribution per slice, the slowest requests and the protocol.
// It never parses logs and runs no SQL; every number it prints comes from
// the Result. Log-derived strings (model names, file paths, request IDs,
// reasons) are escaped in both formats.
package report
