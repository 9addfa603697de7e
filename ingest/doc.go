// Package ingest turns the logs of the three tiers of an LLM serving stack
// into typed Parquet, one table per tier, keyed by request ID:
//
//	DIR/client/date=D/part-*.parquet   what the client saw       (ClientRow)
//	DIR/gateway/date=D/part-*.parquet  what the gateway saw      (GatewayRow)
//	DIR/server/date=D/part-*.parquet   what the inference server saw (ServerRow)
//	DIR/rejects.jsonl           every line that was not turned into a row, with file, line and reason
//	DIR/manifest.json           per input file: bytes, lines, rows, rejected, duplicates, blank
//
// Each file is written under a temporary name and renamed when complete; a
// run first removes the previous run's files (superseded), or with --append
// adds a batch to them (store.go), and writes the manifest last. Parts are
// partitioned by day (sink.go). LockOut keeps two runs out of one directory.
//
// Every input line is accounted for: lines = decoded + rejected +
// duplicates + blank, per file (and rows = decoded in the native formats).
//
// Each input format is one file of ingest/formats implementing the same
// small pull interface, Decoder (Next(row) error, io.EOF at the end), chosen
// by name (--client FORMAT:GLOB) or sniffed from a file's first lines. Input
// may be gzip or zstd compressed, recognised by its magic bytes, and an
// OpenTelemetry Collector's length-prefixed frames (format: proto,
// compression: zstd) are unframed into OTLP JSON lines (otlp_frames.go). Line formats
// implement record.LineParser (one line to zero or more rows); formats that are one
// document (trace arrays, benchmark reports) implement record.DocParser and report
// each record through DocOut. The formats:
//
//	client   native, jsonl (--map), aiperf, genai-perf, guidellm, vllm-bench, llmperf, k6, otel-client
//	gateway  native, envoy, nginx, otel-gateway, kong, litellm, litellm-json
//	server   native, vllm-otlp, vllm-otlp-json, vllm-otel-console, vllm-log, tgi, tgi-text, triton, sglang-metrics,
//	         sglang-log, sglang-text, trtllm, ollama-json, ollama-gin
//
// Each format's file says what it fills, on which clock, and what it
// cannot give; simulate writes several of them with known ground truth.
//
// The packages: ingest is the pipeline (inputs, decompression, chunking,
// workers, Parquet sinks, manifest, rejects, append, lock, progress) and
// names no format; ingest/record holds the row types, errors, reader
// interfaces and the registry of formats it reads through; ingest/scan the
// JSON scanner and value parsers; ingest/formats the readers, which
// register themselves when loaded, so a program running the pipeline
// imports it for that alone (import _ ".../ingest/formats", as
// internal/cli does). Adding a format touches one file of
// ingest/formats (see its doc) and the table in docs/formats.md.
//
// Run streams: a reader per file (or standard input, the input "-") cuts
// it into 1 MiB chunks of whole lines, numbering lines, dropping exact
// duplicates and stripping a collector's prefix (docker compose, docker and
// kubectl logs, CRI log files, journald; prefix.go) as it goes, keeping
// the prefix's time for each line where it has a full one (the line
// parser's RowQueue.LineTime); a pool of
// workers (one per core) decodes chunks of any file and writes them through
// its own Parquet writer per tier, in bounded row groups. Memory depends on
// the number of workers, never on the size of the input. Decoders convert
// only the members they keep and skip the rest without building values.
//
// The native formats (one JSON object per line) look like this; times are
// RFC 3339 strings with any fractional precision and a zone, or JSON numbers
// of Unix epoch seconds, each on the clock of the host that logged it:
//
//	{"request_id":"r1","start":"2026-11-30T10:00:00.123456Z","first_token":"2026-11-30T10:00:00.48Z","end":1796032802.5,"status":200,"streamed":true,"model":"llama-3-8b","use_case":"chat","client":"web-1","region":"eu-west","prompt_tokens":512,"output_tokens":128}
//
// Ingest never subtracts times; that is the analysis' job, and it only ever
// subtracts two times logged by the same tier.
package ingest
