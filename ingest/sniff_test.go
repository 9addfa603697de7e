package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/ingest/record"
)

// sniffFile sniffs the format of one file as Run does.
func sniffFile(t *testing.T, tier Tier, path string) (string, error) {
	t.Helper()
	rc, _, err := openInput(path, &meter{ctx: context.Background()})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	c := newChunker(path, rc)
	lines, doc, err := c.peekSniffLines()
	if err != nil {
		t.Fatal(err)
	}
	f, err := record.Sniff(tier, path, lines, doc)
	if err != nil {
		return "", err
	}
	return f.Name, nil
}

// TestSniffSamples: every real-format sample (copies of the project's
// shared samples in testdata/samples/TIER) is sniffed as its format, or,
// where the table in docs/formats.md says a flag is needed, told as not known. A
// sample added without an entry here fails the test.
func TestSniffSamples(t *testing.T) {
	want := map[string]string{
		"client/aiperf_profile_export_docs.jsonl":                      "aiperf",
		"client/genai_perf_profile_export.json":                        "genai-perf",
		"client/genai_perf_profile_export_genai_perf.csv":              "", // summary statistics, no requests
		"client/genai_perf_profile_export_genai_perf_constructed.json": "", // summary statistics, no requests
		"client/guidellm_benchmarks_constructed.json":                  "guidellm",
		"client/k6_json_output.jsonl":                                  "k6",
		"client/k6_json_output_llm_constructed.jsonl":                  "k6",
		"client/llmperf_individual_responses_constructed.json":         "llmperf",
		"client/vllm_bench_serve_detailed_constructed.json":            "vllm-bench",
		"gateway/envoy_ai_gateway_json_docs.jsonl":                     "envoy",
		"gateway/envoy_common_duration_text.log":                       "", // custom format: --envoy-format
		"gateway/envoy_default_text_docs.log":                          "envoy",
		"gateway/envoy_default_text_llm.log":                           "envoy",
		"gateway/envoy_gateway_default_format.log":                     "envoy",
		"gateway/envoy_typed_json_timing_constructed.jsonl":            "envoy",
		"gateway/kong_ai_file_log_constructed.json":                    "kong",
		"gateway/litellm_spendlogs_row_constructed.json":               "litellm-json",
		"gateway/litellm_standard_logging_payload_constructed.json":    "litellm-json",
		"gateway/nginx_combined.log":                                   "nginx",
		"gateway/nginx_escape_json.jsonl":                              "nginx",
		"gateway/nginx_timing_text.log":                                "", // custom log_format: --nginx-format
		"gateway/otel_collector_fileexporter_traces.jsonl":             "otel-gateway",
		"server/ollama_generate_final.json":                            "ollama-json",
		"server/ollama_gin_access.log":                                 "ollama-gin",
		"server/sglang_log_requests.json.log":                          "sglang-log",
		"server/sglang_log_requests.text.log":                          "sglang-text",
		"server/sglang_request_metrics_export.jsonl":                   "sglang-metrics",
		"server/tgi_json_output.jsonl":                                 "tgi",
		"server/tgi_text_output.log":                                   "tgi-text",
		"server/triton_trace_file.json":                                "triton",
		"server/trtllm_perf_metrics.json":                              "trtllm",
		"server/vllm_otel_llm_request_span.collector_file.jsonl":       "vllm-otlp",
		"server/vllm_otel_llm_request_span.collector_file.jsonl.zst":   "vllm-otlp",
		"server/vllm_otel_llm_request_span.collector_file_proto.pb":    "vllm-otlp",
		"server/vllm_otel_llm_request_span.console.json":               "vllm-otel-console",
		"server/vllm_otel_llm_request_span.otlp.json":                  "vllm-otlp",
		"server/vllm_prometheus_excerpt.txt":                           "", // metrics, no requests
		"server/vllm_request_log.new.txt":                              "vllm-log",
		"server/vllm_request_log.old.txt":                              "vllm-log",
	}
	seen := 0
	for _, tier := range []Tier{Client, Gateway, Server} {
		files, err := filepath.Glob(filepath.Join("testdata", "samples", string(tier), "*"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no %s samples: %v", tier, err)
		}
		for _, path := range files {
			key := string(tier) + "/" + filepath.Base(path)
			w, ok := want[key]
			if !ok {
				t.Errorf("%s: a sample with no expected format in this test", key)
				continue
			}
			seen++
			got, err := sniffFile(t, tier, path)
			if got != w {
				t.Errorf("%s: sniffed %q (%v), want %q", key, got, err, w)
			}
			if w == "" && (err == nil || !strings.Contains(err.Error(), "name it with --"+string(tier)+" ")) {
				t.Errorf("%s: error %v does not give the flag to pass", key, err)
			}
			if key == "gateway/nginx_timing_text.log" && (err == nil || !strings.Contains(err.Error(), "--nginx-format")) {
				t.Errorf("%s: error %v does not say to give the log format", key, err)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("%d of the %d expected samples are in testdata/samples", seen, len(want))
	}
}

// TestSniffPastBanner: comments, blank lines and a banner before the
// records, and records re-serialized with spaces, do not hide the format;
// a file no format decodes names the closest formats.
func TestSniffPastBanner(t *testing.T) {
	dir := t.TempDir()
	tgi := `{"timestamp": "2026-11-30T10:00:02.639812Z", "level": "INFO", "message": "Success", "target": "text_generation_router::server", "span": {"total_time": "2.5ms", "name": "generate"}}`
	cases := []struct {
		tier        Tier
		name, in    string
		want, wantE string
	}{
		{Server, "spaced.jsonl", tgi + "\n", "tgi", ""},
		{Server, "banner.log", "# shipped by fluent-bit\n\n// node 3\ntext-generation-launcher 2.4.0\n" + tgi + "\n", "tgi", ""},
		{Client, "pretty.json", "[\n  {\n    \"benchmarks\": []\n  }\n]\n", "", "no known format decodes them"},
		{Gateway, "csv.log", "ts,request_id\n2026-11-30T10:00:00Z,r1\n", "", "name it with --gateway FORMAT:"},
		// A TGI record whose target is not TGI's is not sniffed, but TGI's
		// parser decodes it: tgi is named, with the flag.
		{Server, "router.log", `{"timestamp":"2026-11-30T10:00:02.639812Z","level":"INFO","message":"Success","target":"router::server","span":{"total_time":"2.5ms","name":"generate"}}` + "\nbanner\n", "",
			"(closest: tgi decodes 1 of 2); name it with --server tgi:" + filepath.Join(dir, "router.log")},
	}
	for _, c := range cases {
		p := filepath.Join(dir, c.name)
		os.WriteFile(p, []byte(c.in), 0o644)
		got, err := sniffFile(t, c.tier, p)
		if got != c.want || (c.wantE != "" && (err == nil || !strings.Contains(err.Error(), c.wantE))) {
			t.Errorf("%s: sniffed %q, %v; want %q, error with %q", c.name, got, err, c.want, c.wantE)
		}
	}
}

// TestSniffPrettyDocuments: a file whose first line is a lone "{" is
// sniffed from that line joined with the next one, so the console
// exporter's spans and pretty-printed OTLP documents need no format name.
func TestSniffPrettyDocuments(t *testing.T) {
	for _, c := range []struct {
		tier  Tier
		in    string
		first string
		want  string // format; "" when none
	}{
		{Server, "\n{\n    \"name\": \"llm_request\",\n    \"context\": {\n", `{"name": "llm_request",`, "vllm-otel-console"},
		{Server, "{\r\n  \"resourceSpans\": [\r\n", `{"resourceSpans": [`, "vllm-otlp-json"},
		{Gateway, "{\n\n  \"resourceSpans\": [\n", `{"resourceSpans": [`, "otel-gateway"},
		{Server, `{"name": "llm_request", "context": {"trace_id": "0x4bf9", "span_id": "0x1a2b"}}` + "\n", `{"name": "llm_request", "context": {"trace_id": "0x4bf9", "span_id": "0x1a2b"}}`, "vllm-otel-console"},
		{Server, "{\n    \"name\": \"POST /v1/chat/completions\",\n", `{"name": "POST /v1/chat/completions",`, ""},
		{Server, `{"name": "llm_request", "kind": 2}` + "\n", `{"name": "llm_request", "kind": 2}`, ""},
		{Server, "{\n", "{", ""},
		{Server, "{\n\n", "{", ""},
	} {
		first, err := newChunker("in", strings.NewReader(c.in)).peekFirstLine()
		if err != nil || string(first) != c.first {
			t.Errorf("%q: first line %q, %v; want %q", c.in, first, err, c.first)
			continue
		}
		f, err := record.SniffFormat(c.tier, first)
		got := ""
		if err == nil {
			got = f.Name
		}
		if got != c.want {
			t.Errorf("%s %q: sniffed %q, want %q", c.tier, first, got, c.want)
		}
	}
}

// TestSniffAccessLogHint: an access log in a format of its own (NGINX with
// a log_format of the user's) is told as one, with the formats that take
// a format string and their flags, from the registered formats.
func TestSniffAccessLogHint(t *testing.T) {
	path := filepath.Join("testdata", "samples", "gateway", "nginx_timing_text.log")
	_, err := sniffFile(t, Gateway, path)
	want := "unknown format: cannot tell the gateway format from the first lines " +
		"(an access log in a format of its own: closest nginx or envoy, given the format string); " +
		"name it with --gateway nginx:" + path + " --nginx-format '…' (or envoy with --envoy-format)"
	if err == nil || err.Error() != want {
		t.Errorf("error\n%v\nwant\n%s", err, want)
	}
}
