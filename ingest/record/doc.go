// Package record holds what the pipeline (ingest) and the readers of the
// input formats (ingest/formats) share, and nothing else: the row types of
// the three tiers (ClientRow, GatewayRow, ServerRow, the Parquet schemas),
// the errors a reader rejects a line with (ParseError, FieldError and the
// Err* reasons), the interfaces a reader implements, and the registry of
// formats the pipeline reads through.
//
// A line format implements LineParser: one non-blank line to zero or more
// rows, each taken from the RowQueue and filled in; an error rejects the
// line. A format that is one document (a JSON array, a benchmark report)
// is a DocParser reading the whole input and reporting each unit through
// DocOut. Each reader registers itself in an init function of its file:
//
//	func init() {
//		record.RegisterLine(record.Client, "k6", sniffK6, func() record.LineParser[record.ClientRow] { return &k6Parser{} })
//	}
//
// RegisterDoc registers a document format; Register takes a Format whole,
// for a format configured by Options.FormatOptions (--nginx-format).
// RegisterMapping registers the format that reads through mapping files
// (jsonl, --map FILE) and how a mapping is loaded.
//
// The pipeline finds formats with Lookup (by name) and Sniff (from a
// file's first lines: the first line some registered sniffer recognises
// decides), lists them with Formats, and never names one itself, except
// NativeFormat, which an empty file is read as. Sniffers are tried in the
// order the formats registered, which is the order of the file names in
// ingest/formats.
//
// Data flows one way: record imports nothing of infertrace but
// internal/textsafe; ingest/scan, ingest/formats and ingest import it.
package record
