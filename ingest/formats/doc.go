// Package formats holds every input format's reader, one file per format
// (or per family sharing a wire format: otel_spans.go for the OTel span
// formats, aiperf.go's lg* helpers for the load generators), each
// documenting what it reads, what it fills, on which clock, and what it
// cannot give. Each file registers its formats with ingest/record in an
// init function; the pipeline (ingest) knows them only through that
// registry, and a program that runs it loads them with a blank import:
//
//	import _ "github.com/infertrace/infertrace/ingest/formats"
//
// To add a format, add one file here that implements record.LineParser
// (one line to rows) or record.DocParser (a whole document), reading
// values with ingest/scan, and registers it with a name and a sniffer in
// init; then add a txtar case of its real output under testdata/ingest
// (input, rows, rejects, manifest), a sample under
// ingest/testdata/samples for TestSniffSamples, a fuzz target seeded from
// the case, and its line in the README's table of input formats. No other
// file changes.
//
// formats imports ingest/record and ingest/scan, never ingest: readers
// turn bytes into rows and know nothing of files, workers or Parquet.
package formats
