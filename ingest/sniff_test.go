package ingest

import (
	"context"
	"fmt"
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

// TestSniffSuggestsNginxFormat: an NGINX access log in one of the common
// log_format shapes that is not combined (main, main or combined with the
// timings of NGINX's monitoring guide or the same times quoted, main with
// $request_time) is told with the --nginx-format string of its shape, and
// ingesting it with that string reads every line, none rejected, each row
// without a request ID and, where the shape logs $request_time, with a
// start. combined itself is sniffed without a suggestion and read the
// same way.
func TestSniffSuggestsNginxFormat(t *testing.T) {
	t.Parallel()
	const combined = `10.0.0.7 - - [01/Mar/2026:12:00:02 +0000] "POST /v1/chat/completions HTTP/1.1" 200 1540 "-" "python-requests/2.31"`
	const main = combined + ` "-"`
	const named = ` rt=2.145 uct="0.001" uht="0.152" urt="2.140"`
	const quoted = ` "2.145" "0.001" "0.152" "2.140"`
	dir := t.TempDir()
	for _, c := range []struct {
		name, file string // file: a real sample instead of lines
		lines      []string
		want       string // the format suggested; "" for combined, sniffed
		start      bool
	}{
		{name: "main timings named (real)", file: filepath.Join("..", "testdata", "real", "no-request-id", "nginx_main_timings.log"),
			want: nginxMainTimings, start: true},
		{name: "main timings named", lines: []string{main + named, strings.Replace(main+named, "12:00:02", "12:00:03", 1)}, want: nginxMainTimings, start: true},
		{name: "combined timings named", lines: []string{combined + named},
			want: strings.Replace(nginxMainTimings, ` "$http_x_forwarded_for"`, "", 1), start: true},
		{name: "main timings quoted", lines: []string{main + quoted},
			want: strings.Replace(nginxMainTimings, ` rt=$request_time uct="$upstream_connect_time" uht="$upstream_header_time" urt="$upstream_response_time"`,
				` "$request_time" "$upstream_connect_time" "$upstream_header_time" "$upstream_response_time"`, 1), start: true},
		{name: "main request_time", lines: []string{main + " 2.145"},
			want: strings.Replace(nginxMainTimings, ` rt=$request_time uct="$upstream_connect_time" uht="$upstream_header_time" urt="$upstream_response_time"`,
				` $request_time`, 1), start: true},
		{name: "main", lines: []string{main, strings.Replace(main, " 200 ", " 502 ", 1)},
			want: strings.Replace(nginxMainTimings, ` rt=$request_time uct="$upstream_connect_time" uht="$upstream_header_time" urt="$upstream_response_time"`, "", 1)},
		{name: "combined", lines: []string{combined}},
	} {
		path := c.file
		if path == "" {
			path = filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".log")
			if err := os.WriteFile(path, []byte(strings.Join(c.lines, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		name, err := sniffFile(t, Gateway, path)
		opts := map[string]string{}
		if c.want == "" {
			if err != nil || name != "nginx" {
				t.Errorf("%s: sniffed %q, %v; want nginx", c.name, name, err)
				continue
			}
		} else {
			_, q, ok := strings.Cut(fmt.Sprint(err), "--nginx-format ")
			if !ok || !strings.HasPrefix(q, "'") || !strings.HasSuffix(q, "'") {
				t.Errorf("%s: no --nginx-format suggested: %v", c.name, err)
				continue
			}
			got := strings.ReplaceAll(q[1:len(q)-1], `'\''`, `'`)
			if got != c.want {
				t.Errorf("%s: suggested\n%s\nwant\n%s", c.name, got, c.want)
				continue
			}
			opts["nginx-format"] = got
		}
		out := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".out")
		m, err := Run(context.Background(), Options{Inputs: []Input{{Tier: Gateway, Pattern: path, Format: "nginx"}},
			Out: out, FormatOptions: opts})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		f := m.Files[0]
		if f.Rows != f.Lines || f.Rejected != 0 || f.Error != "" {
			t.Errorf("%s: %d rows of %d lines, %d rejected, error %q", c.name, f.Rows, f.Lines, f.Rejected, f.Error)
		}
		parts, _ := filepath.Glob(filepath.Join(out, "gateway", "*", "*.parquet"))
		more, _ := filepath.Glob(filepath.Join(out, "gateway", "*.parquet"))
		var rows []GatewayRow
		for _, p := range append(parts, more...) {
			rs, err := readParquet[GatewayRow](p)
			if err != nil {
				t.Fatal(err)
			}
			rows = append(rows, rs...)
		}
		if int64(len(rows)) != f.Rows {
			t.Errorf("%s: read back %d rows, want %d", c.name, len(rows), f.Rows)
		}
		for _, r := range rows {
			if r.RequestID != "" || (r.Start != 0) != c.start {
				t.Errorf("%s: row with request ID %q, start %d; want none, start %v", c.name, r.RequestID, r.Start, c.start)
			}
		}
	}
}
