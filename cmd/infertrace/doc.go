/*
infertrace finds where the time of LLM requests went: on the network between
client and gateway, in the gateway (the application tier), waiting in the
inference server's queue, or in the model.

Usage:

	infertrace run      --client GLOB --gateway GLOB --server GLOB --out DIR [--by COLS] [--format md,html,json]
	infertrace ingest   --client GLOB --gateway GLOB --server GLOB --out DIR
	infertrace analyze  DIR
	infertrace report   DIR [--by model,use_case] [--format md,html,json]
	infertrace simulate --out DIR [--requests N] [--seed S] [--formats vllm-otlp,gateway=envoy,client=aiperf,...]
	infertrace --help | COMMAND --help | --version

infertrace --help lists the commands, each with one line
(internal/cli/help.go holds the texts); infertrace COMMAND --help (or
infertrace help COMMAND) names the command's arguments, every flag with
its default, and an example.
--version prints infertrace's module version (or, for a development
build, its commit) and the DuckDB version it runs. A mistyped command,
flag or value is a usage error (exit 2) that suggests the nearest name
("unknown flag --gatway: did you mean --gateway?"); a run that fails
exits 1.

ingest streams each tier's logs into DIR/<tier>/*.parquet with every line
accounted for in DIR/manifest.json and every rejected line in
DIR/rejects.jsonl. A GLOB may be prefixed with its format, FORMAT:GLOB;
without it the format is sniffed from each file's first line. Flags may be
repeated. Input may be gzip or zstd compressed.

analyze joins the tiers by request ID in DuckDB and writes
DIR/requests.parquet: one row per request with its latency split into
network, application, queue and model, for end-to-end time and for time to
first token, each taken as a difference of two times of one tier's clock.

report writes DIR/report.md and DIR/report.html: percentiles with sample
counts and windows per workload slice, the attribution, and how each metric
was measured; DIR/report.json holds the same figures for programs
(docs/report-json.md), and --format csv adds DIR/slices.csv.

On a terminal, ingest, analyze, report and run show their progress on
stderr (--quiet: none). Ctrl-C stops them cleanly, leaving no half-written
file under its final name, and exits 130; a second Ctrl-C kills at once.

run does ingest, analyze and report in one go. simulate writes the logs of a
simulated serving stack with known ground truth, to try infertrace without
production data.
*/
package main
