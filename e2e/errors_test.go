package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorMessages: what a user reads after a bad invocation: one sentence
// saying what is wrong and what to do, with the flag or command likely meant
// and no doubled prefix or Go syntax; exit 2 for the caller's words (then a
// line pointing at --help), 1 for a run that failed. $DIR is a temporary
// directory holding a file, a directory without an ingest and an ingest
// not yet analyzed.
func TestErrorMessages(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "c.jsonl")
	os.WriteFile(log, []byte(`{"request_id":"r1","start":1796032800,"end":1796032801}`+"\n"), 0o644)
	os.Mkdir(filepath.Join(dir, "empty"), 0o755)
	if code, _, stderr := runCLI(t, "ingest", "--client", log, "--out", filepath.Join(dir, "ingested")); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	const (
		simHelp    = "Run 'infertrace simulate --help' for its usage.\n"
		ingestHelp = "Run 'infertrace ingest --help' for its usage.\n"
		reportHelp = "Run 'infertrace report --help' for its usage.\n"
		topHelp    = "Run 'infertrace --help' for the commands.\n"
		formats    = "server: native, vllm-otlp, tgi, triton, sglang-metrics, trtllm; gateway: native, envoy, envoy-json, nginx, nginx-combined, otel-gateway; client: native, aiperf, jsonl"
	)
	for _, tc := range []struct {
		args   string // split at spaces; $DIR is dir
		code   int
		stderr string
	}{
		// Commands and flags.
		{"reprot $DIR", 2, "infertrace: unknown command \"reprot\": did you mean report?\n" + topHelp},
		{"simualte --out x", 2, "infertrace: unknown command \"simualte\": did you mean simulate?\n" + topHelp},
		{"frobnicate", 2, "infertrace: unknown command \"frobnicate\"\n" + topHelp},
		{"help frobnicate", 2, "infertrace: unknown command \"frobnicate\"\n" + topHelp},
		{"--verison", 2, "infertrace: unknown flag --verison: did you mean --version?\n" + topHelp},
		{"--client x", 2, "infertrace: --client is not a command: the command comes first, then its flags (infertrace COMMAND [flags])\n" + topHelp},
		{"ingest --gatway x --out o", 2, "infertrace ingest: unknown flag --gatway: did you mean --gateway?\n" + ingestHelp},
		{"ingest -gateway x --out o", 2, "infertrace ingest: unknown flag -gateway: did you mean --gateway?\n" + ingestHelp},
		{"ingest --bogus", 2, "infertrace ingest: unknown flag --bogus\n" + ingestHelp},
		{"report -x $DIR/ingested", 2, "infertrace report: unknown flag -x\n" + reportHelp},
		{"simulate --out x --format tgi", 2, "infertrace simulate: unknown flag --format: did you mean --formats?\n" + simHelp},
		{"report --formats md $DIR/ingested", 2, "infertrace report: unknown flag --formats: did you mean --format?\n" + reportHelp},
		{"ingest --client x --out", 2, "infertrace ingest: --out needs a value: --out DIR\n" + ingestHelp},
		{"ingest --client x --out o --workers many", 2, "infertrace ingest: --workers \"many\" is not a whole number\n" + ingestHelp},
		{"report --quiet=maybe $DIR/ingested", 2, "infertrace report: --quiet=maybe: want --quiet=true or --quiet=false\n" + reportHelp},
		{"ingest ---client x", 2, "infertrace ingest: ---client is not a flag: write --NAME VALUE, --NAME=VALUE or -X\n" + ingestHelp},
		// Arguments.
		{"report", 2, "infertrace report: missing DIR, the --out directory of an ingest\n" + reportHelp},
		{"report a b", 2, "infertrace report: want one DIR, the --out directory of an ingest, not 2 arguments (a b)\n" + reportHelp},
		{"ingest $DIR/c.jsonl --out o", 2, "infertrace ingest: unexpected argument \"$DIR/c.jsonl\": name the logs with --client, --gateway or --server\n" + ingestHelp},
		{"simulate --out x y", 2, "infertrace simulate: unexpected argument \"y\": simulate takes only flags; the directory is --out DIR\n" + simHelp},
		// Values.
		{"simulate --out x --requests 0", 2, "infertrace simulate: --requests must be at least 1, not 0\n" + simHelp},
		{"simulate --out x --requests abc", 2, "infertrace simulate: --requests \"abc\" is not a whole number\n" + simHelp},
		{"simulate --out x --cold-delay 5", 2, "infertrace simulate: --cold-delay \"5\" is not a duration: write it as 500ms, 5s or 1m30s\n" + simHelp},
		{"simulate --out x --cold-delay -1s", 2, "infertrace simulate: --cold-delay must be 0 or more, not -1s\n" + simHelp},
		{"simulate --out x --errors 503=0.1", 2, "infertrace simulate: --errors \"503=0.1\": \"503=0.1\": want STATUS:SHARE, e.g. 503:0.01\n" + simHelp},
		{"simulate --out x --errors 502:0.1", 2, "infertrace simulate: --errors names status 502, which is no way of failing (want any of [500 503 429 408 499])\n" + simHelp},
		{"simulate --out x --cold warm", 2, "infertrace simulate: --cold names \"warm\", which is no warm-up kind (want any of decode, prefill, load, queue)\n" + simHelp},
		{"simulate --out x --formats bogus", 2, "infertrace simulate: --formats names \"bogus\", which is no format simulate writes (" + formats + ")\n" + simHelp},
		{"simulate --out x --formats gateway=tgi", 2, "infertrace simulate: --formats sets the gateway tier to \"tgi\", which no gateway writes (gateway formats: native, envoy, envoy-json, nginx, nginx-combined, otel-gateway)\n" + simHelp},
		{"report --by modle $DIR/ingested", 2, "infertrace report: --by names \"modle\", which is no column to slice by: did you mean model?\n" + reportHelp},
		{"report --by foo $DIR/ingested", 2, "infertrace report: --by names \"foo\", which is no column to slice by (want any of model, use_case, streamed, client, region, gateway, route, replica, status, finish_reason, phase, concurrency_bucket, prompt_bucket, output_bucket)\n" + reportHelp},
		{"report --format htm $DIR/ingested", 2, "infertrace report: --format names \"htm\", which is no report format: did you mean html?\n" + reportHelp},
		{"ingest --out o --server ", 2, "infertrace ingest: --server needs GLOB or FORMAT:GLOB, not an empty string\n" + ingestHelp},
		{"ingest --out o --server tgi:", 2, "infertrace ingest: --server tgi: names the format but no files: want --server tgi:GLOB\n" + ingestHelp},
		{"ingest --out o --gateway tgi:x.log", 2, "infertrace ingest: --gateway tgi:x.log: unknown gateway format \"tgi\": it is read with --server (the gateway formats are envoy, jsonl, kong, litellm, litellm-json, native, nginx, otel-gateway)\n" + ingestHelp},
		{"ingest --out o --server vllm-otpl:x.jsonl", 2, "infertrace ingest: --server vllm-otpl:x.jsonl: unknown server format \"vllm-otpl\" (known: jsonl, native, ollama-gin, ollama-json, sglang-log, sglang-metrics, sglang-text, tgi, tgi-text, triton, trtllm, vllm-log, vllm-otel-console, vllm-otlp, vllm-otlp-json), and no file matches \"vllm-otpl:x.jsonl\" either: did you mean vllm-otlp:x.jsonl?\n" + ingestHelp},
		{"ingest --client $DIR/c.jsonl --map $DIR/nosuch.toml --out o", 2, "infertrace ingest: cannot read --map $DIR/nosuch.toml: no such file or directory\n" + ingestHelp},
		// Runs that fail.
		{"analyze $DIR/empty", 1, "infertrace analyze: $DIR/empty holds no ingest output (no manifest.json: no ingest into it finished): run infertrace ingest --out $DIR/empty first\n"},
		{"analyze $DIR/c.jsonl", 1, "infertrace analyze: $DIR/c.jsonl holds no ingest output: it is a file, not a directory\n"},
		{"report $DIR/ingested", 1, "infertrace report: $DIR/ingested holds no requests.parquet: run infertrace analyze $DIR/ingested first\n"},
		{"ingest --client $DIR/c.jsonl --out $DIR/c.jsonl/out", 1, "infertrace ingest: cannot create the directory $DIR/c.jsonl/out: not a directory\n"},
	} {
		args := strings.Split(strings.ReplaceAll(tc.args, "$DIR", dir), " ")
		code, _, stderr := runCLI(t, args...)
		if want := strings.ReplaceAll(tc.stderr, "$DIR", dir); code != tc.code || stderr != want {
			t.Errorf("infertrace %s: exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s", tc.args, code, stderr, tc.code, want)
		}
	}
}
