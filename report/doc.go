// Package report owns rendering: it turns an analyze.Result into a Markdown
// report (text/template) and a self-contained HTML report (html/template,
// inline CSS and inline SVG charts, no scripts and no external fetches).
// It never parses logs and runs no SQL; every number it prints comes from
// the Result. Log-derived strings (model names, file paths, request IDs,
// reasons) are escaped in both formats.
package report
