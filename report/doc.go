// Package report owns rendering and wording: it says in sentences what an
// analyze.Result shows (Say: the headlines of the first screen, what
// changed in a trend's latest period when compare.Trend's comparison is
// given beside the Result, the findings about all requests, about the data
// and about each slice; the contract's verdict per use case), writes every
// figure in its unit (a constraint's value, target, interval, change and
// allowance among them: the analysis types carry numbers and units, not
// text), and turns it into a Markdown
// report (text/template) and a self-contained HTML report (html/template,
// inline CSS and inline SVG charts, no scripts and no external fetches).
// Both answer first: a summary of headlines per question and a table of the
// slices, slowest first, with attribution bars; then the evidence, and the
// data quality (inputs, coverage, rejects, anomalies) at the end:
// findings, phases (cold, burst, steady side by side), replicas, a time
// series (a table, and in HTML a chart shading burst windows and marking
// windows with cold requests), inputs, coverage with what each server format
// gave (annotation records and TGI matches by time included), rejects,
// anomalies, latency and attribution per slice (with prefill, decode and
// server overhead under model and application where known, and the server
// formats behind each figure), the slowest requests, the protocol and what
// each server format can give.
// It renders the other pages alike: compare's (RenderCompare), explain's
// (RenderExplain) and the what-if's (RenderWhatIf, opening with
// WhatIfHeadline), whose packages return figures and no sentences.
// It never parses logs and runs no SQL; every number it prints comes from
// the Result. Log-derived strings (model names, file paths, request IDs,
// reasons) are escaped in both formats.
package report
