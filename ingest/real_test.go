package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/ingest/record"
)

// realSample is one file of testdata/real (its directory's SOURCE says
// where it comes from) and how it must be read.
type realSample struct {
	tier   Tier
	format string // the format sniffed (or named, with named)
	named  bool
	prefix string // Options.Prefix
	opts   map[string]string
	zones  []string // Options.TimeZones (--timezone)
	// What the manifest must say of it: the collector prefix and framing
	// found; rows > 0 unless noRows (an excerpt without request lines,
	// which the manifest says as the file's error).
	wantPrefix, framing string
	noRows              bool
	// rejects: lines that are not records of the format (a collector's
	// own lines); such a sample is read, but not fully.
	rejects int64
}

// realSamples lists every real sample; TestRealSamples fails on a file of
// testdata/real missing from it, so that the count of samples read fully
// (docs/formats.md) is the count of this table.
var realSamples = map[string]realSample{
	"collectors/ollama_journald.log":        {tier: Server, format: "ollama-gin", wantPrefix: "syslog"},
	"collectors/ollama_journald_header.log": {tier: Server, format: "ollama-gin", wantPrefix: "syslog"},
	"collectors/vllm_log_viewer.log": {tier: Server, format: "vllm-log", wantPrefix: "regex",
		prefix: `\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \| `},
	"collectors/vllm_docker_timestamps.log": {tier: Server, format: "vllm-log", wantPrefix: "timestamp", noRows: true},

	"pretty-json/ollama_generate_final.json": {tier: Server, format: "ollama-json", framing: "json-records"},
	"pretty-json/ollama_chat_final.json":     {tier: Server, format: "ollama-json", framing: "json-records"},

	"versions/aiperf_dev_2025-10_profile_export.jsonl": {tier: Client, format: "aiperf"},

	"no-request-id/nginx_main_timings.log": {tier: Gateway, format: "nginx", named: true, opts: map[string]string{"nginx-format": nginxMainTimings}},
	"no-request-id/nginx_msec_timings.log": {tier: Gateway, format: "nginx", named: true, opts: map[string]string{"nginx-format": `` +
		`'$remote_addr - $remote_user [$time_local] ' '"$request" $status $bytes_sent "$http_referer" ' ` +
		`'"$http_user_agent" "$uid_got" "$uid_set" $msec ' 'adfr="$cookie_adfr" ' 'dv="$cookie_dv" dvr="$cookie_dvr" ' ` +
		`'lv="$cookie_lv" lvr="$cookie_lvr" ' 'rt=$request_time ut="$upstream_response_time" ' ` +
		`'cs=$upstream_cache_status ua="$upstream_addr" us="$upstream_status"'`}},
	"no-request-id/kong_2.2_file_log.json": {tier: Gateway, format: "kong", framing: "json-records"},

	"ollama/api_generate_no_stream.json":          {tier: Server, format: "ollama-json", framing: "json-records"},
	"ollama/api_generate_structured_outputs.json": {tier: Server, format: "ollama-json", framing: "json-records"},
	"ollama/api_generate_json_mode.json":          {tier: Server, format: "ollama-json", framing: "json-records"},
	"ollama/api_generate_images.json":             {tier: Server, format: "ollama-json", framing: "json-records"},
	"ollama/api_generate_reproducible.json":       {tier: Server, format: "ollama-json", framing: "json-records"},
	"ollama/api_generate_options.json":            {tier: Server, format: "ollama-json", framing: "json-records"},
	"ollama/api_generate_load_model.json":         {tier: Server, format: "ollama-json", framing: "json-records", noRows: true},
	"ollama/api_chat_no_stream.json":              {tier: Server, format: "ollama-json", framing: "json-records"},
	"ollama/api_chat_tools_no_stream.json":        {tier: Server, format: "ollama-json", framing: "json-records"},
	"ollama/api_chat_reproducible.json":           {tier: Server, format: "ollama-json", framing: "json-records"},

	// LiteLLM writes its spend logs' times without a zone: read in UTC.
	"litellm/spend_logs_payload.json": {tier: Gateway, format: "litellm-json", zones: []string{"UTC"}},

	"vllm/issue_8031_added_requests.log":     {tier: Server, format: "vllm-log"},
	"vllm/issue_2731_received_no_prompt.log": {tier: Server, format: "vllm-log"},

	"vllm/issue_34503_apiserver_pid.log": {tier: Server, format: "vllm-log"},
	"vllm/issue_2484_aborted.log":        {tier: Server, format: "vllm-log"},
	"vllm/issue_16361_v1_received.log":   {tier: Server, format: "vllm-log"},
	"vllm/librechat_5116_aborted.log":    {tier: Server, format: "vllm-log"},
	"vllm/kserve_4470_wrapped.log":       {tier: Server, format: "vllm-log"},

	"collectors/vllm_compose_2947.log":      {tier: Server, format: "vllm-log", wantPrefix: "docker-compose"},
	"collectors/ollama_journald_fr.log":     {tier: Server, format: "ollama-gin", wantPrefix: "syslog"},
	"collectors/ollama_journald_masked.log": {tier: Server, format: "ollama-gin", wantPrefix: "syslog"},
	// kubectl logs --prefix of NGINX's "main" format (no request ID: named
	// nginx, with the format sniffing suggests).
	// A log viewer's "YYYY-MM-DD HH:MM:SS " before Ollama's GIN lines of a
	// health check: no inference request.
	"collectors/ollama_log_viewer_3652.log": {tier: Server, format: "ollama-gin", wantPrefix: "regex", noRows: true,
		prefix: `\d{4}-\d\d-\d\d \d\d:\d\d:\d\d `},
	// kubectl logs --prefix of two vLLM replicas' start-up: no request line.
	"collectors/vllm_kubectl_prefix_gke.log": {tier: Server, format: "vllm-log", wantPrefix: "kubectl", noRows: true},
	"collectors/nginx_kubectl_prefix.log": {tier: Gateway, format: "nginx", named: true, wantPrefix: "kubectl",
		opts: map[string]string{"nginx-format": nginxMain}},
	// ingress-nginx in a CRI log file, its default log-format-upstream
	// (named: no NGINX format is sniffed from a format of its own).
	"collectors/ingress_nginx_cri_crowdsec.log": {tier: Gateway, format: "nginx", named: true, wantPrefix: "cri",
		opts: map[string]string{"nginx-format": ingressNginxUpstreamInfo}},
	// docker logs --timestamps of Ollama: GIN lines of a health check, a
	// model listing and an upload, no inference request.
	"collectors/ollama_docker_timestamps_ov4.log": {tier: Server, format: "ollama-gin", wantPrefix: "timestamp", noRows: true},

	"ollama-serve/issue_5816_windows_gin.log": {tier: Server, format: "ollama-gin"},
	"ollama-serve/issue_8983_serve_mixed.log": {tier: Server, format: "ollama-gin"},
	// GIN's colours as "^[[…m" (a terminal's caret notation); its GIN
	// lines come after 13 lines of llama.cpp output, past what sniffing
	// reads: named ollama-gin.
	"ollama-serve/issue_2839_caret_colours.log": {tier: Server, format: "ollama-gin", named: true},

	// SGLang's Finish lines without "[time] ", behind a log console's
	// "<epoch ms>\t<ISO time>\t" prefix (no collector infertrace knows).
	"sglang/issue_25887_finish_bare.log": {tier: Server, format: "sglang-text", wantPrefix: "regex", prefix: `\d{13}\t\S+\t`},
	// A Receive line only: the request's Finish line is not in the excerpt.
	"sglang/issue_4045_receive_only.log": {tier: Server, format: "sglang-text", noRows: true},

	"guidellm/benchmarks_stripped_2025-06-12.json": {tier: Client, format: "guidellm"},
	"guidellm/benchmarks_stripped_2025-06-26.json": {tier: Client, format: "guidellm"},
	"guidellm/benchmarks_stripped_2025-07-23.json": {tier: Client, format: "guidellm"},

	"aiperf/profile_export_docs_success.json":   {tier: Client, format: "aiperf", framing: "json-records"},
	"aiperf/profile_export_docs_cancelled.json": {tier: Client, format: "aiperf", framing: "json-records"},

	"envoy/gateway_direct_response_jq.json":    {tier: Gateway, format: "envoy", framing: "json-records"},
	"envoy/ai_gateway_accesslog_docs.json":     {tier: Gateway, format: "envoy", framing: "json-records"},
	"envoy/ai_gateway_mcp_accesslog_docs.json": {tier: Gateway, format: "envoy", framing: "json-records"},
	// A json_format of its own: lowerCamelCase names, no request ID (not
	// sniffed: named envoy).
	"envoy/issue_17432_camel_case_no_id.json": {tier: Gateway, format: "envoy", named: true},

	"litellm/standard_logging_payload.json": {tier: Gateway, format: "litellm-json", zones: []string{"UTC"}},

	// A documentation excerpt of timestamps without the trace's info
	// fragment: whether it is a request or an ensemble's child cannot be
	// told, so it is rejected rather than guessed.
	"triton/docs_timestamps_only.json": {tier: Server, format: "triton"},

	// OpenLLMetry's span of one streamed chat completion: TTFT from its
	// first chunk event (see TestRealOTelStream for the figures).
	"otel/openllmetry_openai_stream.json": {tier: Client, format: "otel-client"},
	// OpenInference's INTERNAL LLM span of one streamed chat completion:
	// TTFT from its "First Token Stream Event" (TestRealOpenInferenceStream).
	"otel/openinference_openai_stream.json": {tier: Client, format: "otel-client"},

	// LLMPerf's individual responses as its leaderboard committed them
	// (json.dump with indent=4: a lone "[" first, sniffed all the same).
	"llmperf/leaderboard_groq_70b.json":       {tier: Client, format: "llmperf"},
	"llmperf/leaderboard_perplexity_70b.json": {tier: Client, format: "llmperf"},
	"llmperf/leaderboard_together_13b.json":   {tier: Client, format: "llmperf"},
	"llmperf/leaderboard_bedrock_13b.json":    {tier: Client, format: "llmperf"},
	"llmperf/leaderboard_lepton_7b.json":      {tier: Client, format: "llmperf"},

	// ingress-nginx's default log-format-upstream, which ends with $req_id
	// (named: no NGINX format is sniffed from a format of its own).
	"nginx/filebeat_ingress_controller.log": {tier: Gateway, format: "nginx", named: true,
		opts: map[string]string{"nginx-format": ingressNginxUpstreamInfo}},

	// TGI's text output as Datadog's log pipeline tests hold it: a
	// Success, an error in a request's spans, the launcher's banner.
	"tgi/datadog_tgi_log_samples.log": {tier: Server, format: "tgi-text"},

	"strict/plano_envoy_default.log": {tier: Gateway, format: "envoy"},
	"strict/plano_envoy_upstream_cluster.log": {tier: Gateway, format: "envoy", named: true, wantPrefix: "regex", rejects: 2,
		prefix: `plano-1  \| \[access_logs\] ?`, opts: map[string]string{"envoy-format": `[%START_TIME%] "%REQ(:METHOD)% ` +
			`%REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" %RESPONSE_CODE% %RESPONSE_FLAGS% %BYTES_RECEIVED% %BYTES_SENT% ` +
			`%DURATION% %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% "%REQ(X-FORWARDED-FOR)%" "%REQ(USER-AGENT)%" ` +
			`"%REQ(X-REQUEST-ID)%" "%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%" "%UPSTREAM_CLUSTER%"`}},
}

// ingressNginxUpstreamInfo is ingress-nginx's default log-format-upstream
// (its ConfigMap documentation), which filebeat's ingress_controller
// fixture (nginx/filebeat_ingress_controller.log) was written with.
const ingressNginxUpstreamInfo = `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" ` +
	`"$http_user_agent" $request_length $request_time [$proxy_upstream_name] [$proxy_alternative_upstream_name] ` +
	`$upstream_addr $upstream_response_length $upstream_response_time $upstream_status $req_id`

// nginxMain is NGINX's default "main" log_format (the nginx.conf of its
// packages and images), which collectors/nginx_kubectl_prefix.log was
// written with.
const nginxMain = `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" ` +
	`"$http_user_agent" "$http_x_forwarded_for"`

// nginxMainTimings is NGINX's main log_format with the timings of NGINX's
// monitoring guide and no request ID, as the suggestion for such a log
// gives it (no-request-id/nginx_main_timings.log).
const nginxMainTimings = `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" ` +
	`"$http_user_agent" "$http_x_forwarded_for" rt=$request_time uct="$upstream_connect_time" uht="$upstream_header_time" urt="$upstream_response_time"`

// TestRealSamples: every real sample is read whole: its format sniffed (or
// as named), its prefix and framing found, rows made, no line rejected and
// no error. Real logs, so each case fails on a regression that fixtures
// written from the documentation would not show.
func TestRealSamples(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "testdata", "real")
	files, err := filepath.Glob(filepath.Join(root, "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, path := range files {
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		if filepath.Base(path) == "SOURCE" {
			continue
		}
		seen[rel] = true
		c, ok := realSamples[rel]
		if !ok {
			t.Errorf("%s: a real sample missing from realSamples", rel)
			continue
		}
		if src, err := os.ReadFile(filepath.Join(filepath.Dir(path), "SOURCE")); err != nil || !bytes.Contains(src, []byte(filepath.Base(path))) {
			t.Errorf("%s: not described in its directory's SOURCE", rel)
		}
		t.Run(rel, func(t *testing.T) {
			t.Parallel()
			in := Input{Tier: c.tier, Pattern: path}
			if c.named {
				in.Format = c.format
			}
			m, err := Run(context.Background(), Options{Inputs: []Input{in}, Out: t.TempDir(), Prefix: c.prefix, FormatOptions: c.opts, TimeZones: c.zones})
			if err != nil {
				t.Fatal(err)
			}
			f := m.Files[0]
			if f.Format != c.format || f.Prefix != c.wantPrefix || f.Framing != c.framing ||
				(f.Rows > 0) == c.noRows || f.Rejected != c.rejects || (f.Error != "") != c.noRows || f.Decoded+f.Rejected+f.Duplicates+f.Blank != f.Lines {
				b, _ := json.Marshal(f)
				t.Errorf("read as %s\nwant format %s, prefix %q, framing %q, rows %v, %d rejects and no error",
					b, c.format, c.wantPrefix, c.framing, !c.noRows, c.rejects)
			}
		})
	}
	var missing []string
	for rel := range realSamples {
		if !seen[rel] {
			missing = append(missing, rel)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("realSamples names files not in testdata/real: %v", missing)
	}
}

// TestPrettyJSONSameRecords: records of line formats pretty-printed as
// `jq .` writes them, or wrapped in an array, read as the same rows as
// one record per line; a record's line is the one it starts on; and the
// lines a document repeats (`  },`) are never counted as duplicates.
func TestPrettyJSONSameRecords(t *testing.T) {
	t.Parallel()
	for _, s := range []struct {
		tier Tier
		file string
	}{
		{Server, "server/tgi_json_output.jsonl"},
		{Server, "server/sglang_request_metrics_export.jsonl"},
		{Client, "client/aiperf_profile_export_docs.jsonl"},
		{Gateway, "gateway/envoy_ai_gateway_json_docs.jsonl"},
		{Gateway, "gateway/nginx_escape_json.jsonl"},
	} {
		data, err := os.ReadFile(filepath.Join("testdata", "samples", s.file))
		if err != nil {
			t.Fatal(err)
		}
		var pretty, array bytes.Buffer
		var starts []int64 // the line each record starts on, pretty-printed
		array.WriteString("[\n")
		n := 0
		for _, line := range bytes.Split(bytes.TrimSpace(data), []byte{'\n'}) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			starts = append(starts, int64(bytes.Count(pretty.Bytes(), []byte{'\n'}))+1)
			if err := json.Indent(&pretty, bytes.TrimSpace(line), "", "  "); err != nil {
				t.Fatalf("%s: %v", s.file, err)
			}
			pretty.WriteByte('\n')
			if n > 0 {
				array.WriteString(",\n")
			}
			array.Write(bytes.TrimSpace(line))
			n++
		}
		array.WriteString("\n]\n")
		dir := t.TempDir()
		base := readRows(t, s.tier, filepath.Join("testdata", "samples", s.file), dir, "lines")
		for name, doc := range map[string][]byte{"pretty.json": pretty.Bytes(), "array.json": array.Bytes()} {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, doc, 0o644); err != nil {
				t.Fatal(err)
			}
			got := readRows(t, s.tier, path, dir, name)
			if got.stats.Framing != "json-records" || got.stats.Duplicates != 0 || got.stats.Lines != int64(n) ||
				got.stats.Rows != base.stats.Rows || got.stats.Rejected != base.stats.Rejected || got.stats.Format != base.stats.Format {
				t.Errorf("%s as %s: %+v\nwant the %d records of %+v", s.file, name, got.stats, n, base.stats)
			}
			if len(got.rows) != len(base.rows) {
				continue
			}
			// Records are numbered from 1 in the file of lines (blank
			// lines aside, which these samples have none of).
			for i, row := range got.rows {
				want := base.rows[i]
				if row.json != want.json {
					t.Errorf("%s as %s: row %d\n got %s\nwant %s", s.file, name, i, row.json, want.json)
				}
				if name == "pretty.json" && row.line != starts[want.line-1] {
					t.Errorf("%s as %s: row %d on line %d, want %d", s.file, name, i, row.line, starts[want.line-1])
				}
			}
		}
	}
}

type readBack struct {
	stats FileStats
	rows  []tierRow
}

// tierRow is a row of any tier, as JSON without its source, and its line.
type tierRow struct {
	json string
	line int64
}

// readRows ingests the one file path of tier into dir/name and reads its
// rows back, in the order of their lines.
func readRows(t *testing.T, tier Tier, path, dir, name string) readBack {
	t.Helper()
	return readInput(t, Input{Tier: tier, Pattern: path}, nil, dir, name)
}

// readInput is readRows of an input that may name its format, read with
// the format options opts.
func readInput(t *testing.T, in Input, opts map[string]string, dir, name string) readBack {
	t.Helper()
	tier := in.Tier
	out := filepath.Join(dir, name+".out")
	m, err := Run(context.Background(), Options{Inputs: []Input{in}, Out: out, Workers: 2, FormatOptions: opts})
	if err != nil {
		t.Fatal(err)
	}
	rb := readBack{stats: m.Files[0]}
	err = filepath.WalkDir(filepath.Join(out, string(tier)), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".parquet" {
			return err
		}
		switch tier {
		case Client:
			rb.rows, err = appendRows[ClientRow](rb.rows, p)
		case Gateway:
			rb.rows, err = appendRows[GatewayRow](rb.rows, p)
		case Server:
			rb.rows, err = appendRows[ServerRow](rb.rows, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.SliceStable(rb.rows, func(i, j int) bool { return rb.rows[i].line < rb.rows[j].line })
	return rb
}

func appendRows[T Row](dst []tierRow, path string) ([]tierRow, error) {
	rows, err := readParquet[T](path)
	for i := range rows {
		var src struct{ SourceLine int64 }
		b, _ := json.Marshal(rows[i])
		if err := json.Unmarshal(b, &src); err != nil {
			return nil, err
		}
		record.SetSource(&rows[i], "", 0)
		b, _ = json.Marshal(rows[i])
		dst = append(dst, tierRow{string(b), src.SourceLine})
	}
	return dst, err
}

// realOTelRow reads the one client row of a real OTLP sample.
func realOTelRow(t *testing.T, file string) (ClientRow, string) {
	t.Helper()
	got := readRows(t, Client, filepath.Join("..", "testdata", "real", "otel", file), t.TempDir(), "otel")
	if len(got.rows) != 1 {
		t.Fatalf("%d rows, want 1: %+v", len(got.rows), got.stats)
	}
	var row ClientRow
	if err := json.Unmarshal([]byte(got.rows[0].json), &row); err != nil {
		t.Fatal(err)
	}
	return row, got.rows[0].json
}

// ttftOf is a row's TTFT, from its first token time when it has no TTFT;
// -1 when neither.
func ttftOf(row ClientRow) int64 {
	switch {
	case row.TTFTNS != nil:
		return *row.TTFTNS
	case row.FirstToken != 0:
		return row.FirstToken - row.Start
	}
	return -1
}

// TestRealOpenInferenceStream: OpenInference's span of one streamed chat
// completion (testdata/real/otel) gives one client row with the figures
// worked out by hand from its OTLP: start 1722809513563529000, "First
// Token Stream Event" 1722809514030552000 (TTFT 467,023,000 ns), end
// 1722809514125001000 (E2E 561,472,000 ns), the model of llm.model_name,
// streamed from the "stream": true of llm.invocation_parameters, no token
// counts, the trace ID in hex, and none of its content or labels.
func TestRealOpenInferenceStream(t *testing.T) {
	t.Parallel()
	row, text := realOTelRow(t, "openinference_openai_stream.json")
	for name, c := range map[string]struct{ got, want any }{
		"start":       {row.Start, int64(1722809513563529000)},
		"E2E (ns)":    {row.End - row.Start, int64(561472000)},
		"TTFT":        {ttftOf(row), int64(467023000)},
		"first token": {row.FirstToken, int64(1722809514030552000)},
		"streamed":    {row.Streamed != nil && *row.Streamed, true},
		"model":       {row.Model, "gpt-4o-mini-2024-07-18"},
		"tokens":      {row.PromptTokens == nil && row.OutputTokens == nil, true},
		"trace ID":    {row.TraceID, "03cb2eb84dd52ac9bc1496a99c733880"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v\nrow: %s", name, c.got, c.want, text)
		}
	}
	for _, secret := range []string{"Hey there", "helpful assistant", "my-test", "tag-1", "foo", "chatcmpl"} {
		if strings.Contains(text, secret) {
			t.Errorf("the row holds the text %q: %s", secret, text)
		}
	}
}

// TestRealOTelStream: OpenLLMetry's span of one streamed chat completion
// (testdata/real/otel) gives one client row with the figures worked out
// by hand from its OTLP: start 1722866602559872000, first chunk event
// 1722866604464076000 (TTFT 1,904,204,000 ns), end 1722866604545023000
// (E2E 1,985,151,000 ns), streamed from llm.is_streaming, the trace ID in
// hex, and none of its prompt or completion text.
func TestRealOTelStream(t *testing.T) {
	t.Parallel()
	row, text := realOTelRow(t, "openllmetry_openai_stream.json")
	ttft := ttftOf(row)
	for name, c := range map[string]struct{ got, want any }{
		"start":    {row.Start, int64(1722866602559872000)},
		"E2E (ns)": {row.End - row.Start, int64(1985151000)},
		"TTFT":     {ttft, int64(1904204000)},
		"streamed": {row.Streamed != nil && *row.Streamed, true},
		"model":    {row.Model, "gpt-4o-mini"},
		"trace ID": {row.TraceID, "8615098c2c72e72330e800ef3ab1d8b8"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v\nrow: %s", name, c.got, c.want, text)
		}
	}
	for _, secret := range []string{"yous", "Hey there", "helpful assistant"} {
		if strings.Contains(text, secret) {
			t.Errorf("the row holds the text %q: %s", secret, text)
		}
	}
}
