// Package formats holds every input format's reader, one file per format,
// each documenting what it reads, what it fills, on which clock, and what it
// cannot give. Each reader's file registers its formats with ingest/record
// in an init function; the pipeline (ingest) knows them only through that
// registry, and a program that runs it loads them with a blank import:
//
//	import _ "github.com/infertrace/infertrace/ingest/formats"
//
// To add a format, add one file here that implements record.LineParser
// (one line to rows) or record.DocParser (a whole document), reading
// values with ingest/scan, and registers it with a name and a sniffer in
// init (a setting the user gives, such as a log format string, is declared
// there too with record.RegisterOption and becomes a flag of ingest); then
// add a txtar case of its real output under testdata/ingest
// (input, rows, rejects, manifest), a sample under
// ingest/testdata/samples for TestSniffSamples, a fuzz target seeded from
// the case, and its line in the table of input formats in docs/formats.md.
// No other file changes.
//
// A reader uses nothing defined in another reader's file, except in its
// own family (files whose names share the stem before '_': tgi.go and
// tgi_text.go, the vllm_*.go and otel_*.go readers of one tool's outputs);
// TestReadersSelfContained (ingest) checks it. What several readers share
// lives in files that register nothing, by purpose: loadgen.go (lg*: the
// load generators' fields with units, JSON member walks and the streaming
// document reader, also used by mapped and ollama), server.go (srv*: the
// servers' JSON arrays and text cuts), text.go (servers' text log lines:
// ANSI codes, cutPrefix, logLineError), accesslog.go (envoy and nginx),
// otlp.go (OTLP JSON), otel_spans.go (the OTel span formats),
// and envoyformat.go (access-log format strings). JSON documents
// (pretty-printed records, arrays of records) are read as records of any
// line format by record.JSONRecords. A general value or JSON parser belongs in
// ingest/scan instead.
//
// formats imports ingest/record and ingest/scan, never ingest: readers
// turn bytes into rows and know nothing of files, workers or Parquet.
package formats
