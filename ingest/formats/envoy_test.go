package formats

import (
	"bytes"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/ingest/internal/rowtext"
	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

func envoyRows(t testing.TB, format, input string) ([]record.GatewayRow, []*record.ParseError) {
	t.Helper()
	cfg, err := compileEnvoyConfig(format)
	if err != nil {
		t.Fatal(err)
	}
	return decodeWith(t, newEnvoyParser(cfg), []byte(input))
}

func TestEnvoyDerivation(t *testing.T) {
	t.Parallel()
	const at = "2026-01-15T10:00:00"
	for _, c := range []struct {
		name, format, line string
		want               string // start end upstream_start first_byte upstream_end
	}{
		{"default text: start and end only",
			"", `[` + at + `.004Z] "POST /v1/chat/completions?x=1 HTTP/1.1" 200 - 1843 61440 2144 6 "-" "ua" "r1" "h" "10.1.4.23:8000"`,
			"00.004 02.148 - - -"},
		{"ms operators",
			"%START_TIME% %REQ(X-REQUEST-ID)% %DURATION% %REQUEST_DURATION% %RESPONSE_DURATION% %RESPONSE_TX_DURATION%",
			at + ".004Z r1 2144 1 7 2137", "00.004 02.148 00.005 00.011 -"},
		{"request tx before request duration",
			"%START_TIME% %REQ(X-REQUEST-ID)% %DURATION% %REQUEST_DURATION% %REQUEST_TX_DURATION%",
			at + ".004Z r1 2144 1 3", "00.004 02.148 00.007 - -"},
		{"upstream service time after the request",
			"%START_TIME% %REQ(X-REQUEST-ID)% %DURATION% %REQUEST_DURATION% %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)%",
			at + ".004Z r1 2144 2 6", "00.004 02.148 00.006 00.012 -"},
		{"upstream service time alone places nothing",
			"%START_TIME% %REQ(X-REQUEST-ID)% %DURATION% %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)%",
			at + ".004Z r1 2144 6", "00.004 02.148 - - -"},
		{"common duration points, us, chained",
			"%START_TIME(%s.%6f)% %REQ(X-REQUEST-ID)% %DURATION% %COMMON_DURATION(DS_RX_BEG:US_TX_BEG:us)% %COMMON_DURATION(US_TX_BEG:US_RX_BODY_BEG:us)% %COMMON_DURATION(US_RX_BODY_BEG:US_RX_END:ms)% %COMMON_DURATION(DS_RX_BEG:DS_TX_END:ns)%",
			"1768471200.004200 r1 2144 1900 176900 1965 2144200123", "00.0042 02.148400123 00.0061 00.183 02.148"},
		{"ms end point does not beat DURATION",
			"%START_TIME% %REQ(X-REQUEST-ID)% %DURATION% %COMMON_DURATION(DS_RX_BEG:DS_TX_END:ms)%",
			at + ".004Z r1 2145 2144", "00.004 02.149 - - -"},
		{"no upstream answer: receiving the request is not forwarding it",
			"%START_TIME% %REQ(X-REQUEST-ID)% %DURATION% %REQUEST_DURATION% %RESPONSE_DURATION%",
			at + ".004Z r1 3012 0 -", "00.004 03.016 - - -"},
		{"a direct ms measurement beats a chain of two",
			"%START_TIME% %REQ(X-REQUEST-ID)% %DURATION% %REQUEST_DURATION% %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% %RESPONSE_DURATION%",
			at + ".004Z r1 2144 1 5 7", "00.004 02.148 00.005 00.011 -"},
		{"missing points",
			"%START_TIME% %REQ(X-REQUEST-ID)% %DURATION% %COMMON_DURATION(DS_RX_BEG:US_TX_BEG:us)% %COMMON_DURATION(DS_RX_BEG:US_RX_END:us)%",
			at + ".004Z r1 12 - -", "00.004 00.016 - - -"},
	} {
		rows, rejects := envoyRows(t, c.format, c.line)
		if len(rejects) > 0 || len(rows) != 1 {
			t.Errorf("%s: %v", c.name, rejects)
			continue
		}
		r := rows[0]
		var got []string
		for _, ns := range []int64{r.Start, r.End, r.UpstreamStart, r.UpstreamFirstByte, r.UpstreamEnd} {
			if ns == 0 {
				got = append(got, "-")
				continue
			}
			got = append(got, strings.TrimSuffix(strings.TrimPrefix(scan.FormatNS(ns), at[:17]), "Z"))
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, g, c.want)
		}
		if r.RequestID != "r1" || r.Format != "envoy" {
			t.Errorf("%s: %+v", c.name, r)
		}
	}
}

func TestEnvoyFields(t *testing.T) {
	t.Parallel()
	rows, rejects := envoyRows(t, "", `{"start_time":"2026-01-15T10:00:00.004Z","x-request-id":"r1","response_code":0,"response_flags":"DC","upstream_host":null,`+
		`"route_name":"httproute/llm","upstream_request_attempt_count":"2","hostname":"gw-7","traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",`+
		`"gen_ai.response.model":"m-served","genai_model_name_override":"m-override","genai_tokens_input":"15","token_latency_ttft":179.25}`)
	if len(rejects) > 0 {
		t.Fatal(rejects[0])
	}
	r := rows[0]
	if r.Status != 0 || r.ResponseFlags != "DC" || r.Upstream != "" || r.Route != "httproute/llm" || *r.Attempts != 2 ||
		r.Gateway != "gw-7" || r.TraceID != "4bf92f3577b34da6a3ce929d0e0e4736" || r.Model != "m-served" ||
		*r.PromptTokens != 15 || r.OutputTokens != nil || *r.TTFTNS != 179_250_000 || r.End != 0 {
		t.Errorf("%s", rowtext.Render(&r, ""))
	}
	for line, reason := range map[string]string{
		`{"start_time":"2026-01-15T10:00:00.004Z","x-request-id":null,"duration":5}`:                        "x-request-id: missing required field",
		`{"x-request-id":"r1","duration":5}`:                                                                "START_TIME: missing required field",
		`{"start_time":"2026-01-15T10:00:00.004","x-request-id":"r1"}`:                                      "START_TIME: bad time",
		`{"start_time":"2026-01-15T10:00:00.004Z","x-request-id":"r1","duration":"soon"}`:                   "DURATION: bad value",
		`{"start_time":"2026-01-15T10:00:00.004Z","x-request-id":"r1","response_code":"2000"}`:              "RESPONSE_CODE: bad value",
		`{"start_time":"2026-01-15T10:00:00.004Z","x-request-id":"r1","duration":5`:                         "truncated",
		`[2026-01-15T10:00:00.004Z] "POST /v1/chat/completions HTTP/1.1" 200 - 1843 61440 2144`:             "does not match Envoy's, Istio's or Envoy Gateway's default format",
		"[2026-01-15T10:00:00.004Z] \"POST / HTTP/1.1\" 200 - 1 2 3 4 \"-\" \"ua\" \"r\xff\" \"h\" \"u:1\"": "not valid UTF-8",
	} {
		_, rejects := envoyRows(t, "", line)
		if len(rejects) != 1 || !strings.Contains(rejects[0].Error(), reason) {
			t.Errorf("%s: got %v, want %q", line, rejects, reason)
		}
	}
}

// A format that logs no request ID (a json_format without the member, a
// text format without the operator) keeps its rows without one, to be
// matched by time; a line of a format that logs the ID, with "-" or null
// there, is still rejected. JSON member names are also read in
// lowerCamelCase.
func TestEnvoyWithoutRequestID(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, format, line string
		want               string // request ID, start, end, status, flags, route
	}{
		{"json without the member", "", `{"start_time":"2026-01-15T10:00:00.004Z","duration":5,"response_code":200}`,
			" 10:00:00.004 10:00:00.009 200  "},
		{"camelCase json", "", `{"startTime":"2026-01-15T10:00:00.004Z","duration":"55","responseCode":"503","responseFlags":"UF,URX",` +
			`"requestPath":"/v1/x?y=1","upstreamServiceTime":"-"}`,
			" 10:00:00.004 10:00:00.059 503 UF,URX /v1/x"},
		{"camelCase json with an ID", "", `{"startTime":"2026-01-15T10:00:00.004Z","xRequestId":"r9","duration":1,"responseCode":200}`,
			"r9 10:00:00.004 10:00:00.005 200  "},
		{"text format without the operator", `[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" %RESPONSE_CODE% %DURATION%`,
			`[2026-01-15T10:00:01.000Z] "POST /v1/chat/completions HTTP/1.1" 200 812`,
			" 10:00:01 10:00:01.812 200  /v1/chat/completions"},
	} {
		rows, rejects := envoyRows(t, c.format, c.line)
		if len(rejects) > 0 || len(rows) != 1 {
			t.Errorf("%s: rows %v, rejects %v", c.name, rows, rejects)
			continue
		}
		r := rows[0]
		clock := func(ns int64) string {
			return strings.TrimSuffix(strings.TrimPrefix(scan.FormatNS(ns), "2026-01-15T"), "Z")
		}
		got := strings.Join([]string{r.RequestID, clock(r.Start), clock(r.End), strconv.Itoa(int(r.Status)), r.ResponseFlags, r.Route}, " ")
		if got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
	for _, line := range []string{
		`{"startTime":"2026-01-15T10:00:00.004Z","xRequestId":null,"duration":5}`,
		`{"start_time":"2026-01-15T10:00:00.004Z","request_id":"-","duration":5}`,
	} {
		if _, rejects := envoyRows(t, "", line); len(rejects) != 1 || !strings.Contains(rejects[0].Error(), "x-request-id: missing required field") {
			t.Errorf("%s: %v, want the missing ID rejected", line, rejects)
		}
	}
	if got := lowerCamel("x-envoy-upstream-service-time"); got != "xEnvoyUpstreamServiceTime" {
		t.Errorf("lowerCamel: %q", got)
	}
	for _, k := range []string{"gen_ai.usage.input_tokens", ":path", "duration"} {
		if got := lowerCamel(k); got != k {
			t.Errorf("lowerCamel(%q) = %q, want it unchanged", k, got)
		}
	}
}

// A JSON format object maps member names to operators, nested objects
// included, and a member may hold several operators and literals.
func TestEnvoyJSONFormat(t *testing.T) {
	t.Parallel()
	format := `{"t":"%START_TIME(%s.%3f)%","ids":{"rid":"%REQ(X-REQUEST-ID)%"},"req":"%REQ(:METHOD)% %REQ(:PATH)%","d":"%DURATION%","fb":"%COMMON_DURATION(DS_RX_BEG:US_RX_BODY_BEG:us)%","k":"constant"}`
	rows, rejects := envoyRows(t, format,
		`{"d":2144,"fb":178800,"ids":{"rid":"r1"},"k":"constant","req":"POST /v1/chat/completions?stream=1","t":"1768471200.004"}`+"\n"+
			`{"d":2144,"ids":{"rid":"r2"},"req":"POST","t":"1768471200.004"}`)
	if len(rows) != 1 || len(rejects) != 1 {
		t.Fatalf("rows %v, rejects %v", rows, rejects)
	}
	r := rows[0]
	if r.RequestID != "r1" || r.Route != "/v1/chat/completions" || scan.FormatNS(r.UpstreamFirstByte) != "2026-01-15T10:00:00.1828Z" ||
		scan.FormatNS(r.End) != "2026-01-15T10:00:02.148Z" {
		t.Errorf("%s", rowtext.Render(&r, ""))
	}
	if !strings.Contains(rejects[0].Error(), `member "req" does not match its format`) {
		t.Error(rejects[0])
	}
}

// With --envoy-format, a line in a default format still reads: the format
// applies to every envoy file of the run.
func TestEnvoyUserFormatAndDefaults(t *testing.T) {
	t.Parallel()
	rows, rejects := envoyRows(t, "%START_TIME(%s.%3f)% %REQ(X-REQUEST-ID)% %DURATION%",
		"1768471200.004 r1 2144\n"+
			`[2026-01-15T10:00:00.004Z] "POST /v1 HTTP/1.1" 200 - 1 2 2144 6 "-" "ua" "r2" "h" "u:1"`+"\n"+
			`{"start_time":"2026-01-15T10:00:00.004Z","x-request-id":"r3","duration":2144}`+"\n"+
			"1768471200.004 r4")
	if len(rows) != 3 || len(rejects) != 1 {
		t.Fatalf("rows %v, rejects %v", rows, rejects)
	}
	for i, r := range rows {
		if r.RequestID != "r"+strconv.Itoa(i+1) || scan.FormatNS(r.End) != "2026-01-15T10:00:02.148Z" {
			t.Errorf("%s", rowtext.Render(&r, ""))
		}
	}
	if !strings.Contains(rejects[0].Error(), "does not match the --envoy-format string, nor a default format") {
		t.Error(rejects[0])
	}
}

func TestSniffEnvoy(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]bool{
		`[2016-04-15T20:17:00.310Z] "POST /api/v1/locations HTTP/2" 204 - 154 0 226 100 "10.0.35.28" "nsq2http" "cc21d9b0" "locations" "tcp://10.0.2.1:80"`:                                                                                   true,
		`[2024-06-02T13:24:57.930Z] "GET /x HTTP/2" 0 - http2.remote_reset - "-" 0 0 0 - "192.168.0.24" "Mozilla/5.0 (X11)" "9f69" "auth" "10.0.0.159:8080" outbound|80||k 10.0.1.244:35794 10.0.1.244:8443 192.168.0.24:8459 auth.example -`: true,
		`{"start_time":"2026-01-15T10:00:00.004Z","x-request-id":"r1","user-agent":"a "quoted" agent","duration":"5"}`:                                                                                                                        false,
		`{"start_time":"2026-01-15T10:00:00.004Z","x-request-id":"r1","duration":5}`:                                                                                                                                                          true,
		`{"request_id":"r1","start":"2026-11-30T10:00:02.5Z","upstream_start":"2026-11-30T10:00:02.51Z","end":"2026-11-30T10:00:04.41Z"}`:                                                                                                     false,
		`{"msec":1768471202.149,"request_time":2.145,"start_time":"x","request_id":"r"}`:                                                                                                                                                      false,
		`[2026-11-30T10:00:00.000Z] something else`: false,
		`10.0.0.15 - - [15/Jan/2026:10:00:02 +0000] "POST /v1/chat/completions HTTP/1.1" 200 61440 "-" "python-requests/2.32.3"`: false,
	} {
		if got := sniffEnvoy([]byte(line)); got != want {
			t.Errorf("sniffEnvoy(%s) = %v", line, got)
		}
	}
}

func FuzzEnvoyText(f *testing.F) {
	fuzzSeeds(f,
		`[2026-01-15T10:00:00.004Z] "POST /v1/chat/completions HTTP/1.1" 200 - 1843 61440 2144 6 "10.0.0.15" "python-requests/2.32.3" "4f1c2a9e" "llm-gw" "10.1.4.23:8000"`,
		`[2026-01-15T10:00:00.517Z] "POST /v1/chat/completions HTTP/1.1" 503 UF,URX 1843 91 3012 - "-" "a "b" c" "9a8b" "llm-gw" "10.1.4.22:8000"`,
		`[2024-06-02T13:24:57.930Z] "GET /x HTTP/2" 0 - http2.remote_reset - "-" 0 0 0 - "1.2.3.4" "M" "9f69" "a" "10.0.0.1:80" o|80||k 1.1.1.1:1 2.2.2.2:2 3.3.3.3:3 a -`,
		`[2026-01-15T10:00:00.004Z] "POST /v1/chat/completions HTTP/1.1" 200 - 1843 61440 21`,
	)
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, _ := decodeWith(t, newEnvoyParser(envoyDefaultConfig), in)
		for _, r := range rows {
			if r.RequestID == "" || r.Start == 0 || r.Format != formatEnvoy {
				t.Fatalf("row without its required fields: %+v", r)
			}
		}
	})
}

func FuzzEnvoyJSON(f *testing.F) {
	fuzzSeeds(f,
		`{"start_time":"2026-01-15T10:00:00.004Z","start_time_us":"1768471200.004200","x-request-id":"4f1c","path":"/v1/chat/completions","response_code":200,"response_flags":"-","upstream_host":"10.1.4.23:8000","upstream_request_attempt_count":1,"duration":2144,"request_duration":0,"request_tx_duration":2,"response_duration":7,"response_tx_duration":2137,"us_rx_body_beg_ms":178,"ds_tx_end_ms":2144,"gen_ai.request.model":"m","gen_ai.usage.input_tokens":512,"gen_ai.usage.output_tokens":256,"token_latency_ttft":179,"token_latency_itl":7.7}`,
		`{"start_time":"2026-01-15T10:00:00.004Z","method":"POST","x-envoy-origin-path":"/v1/chat/completions","response_code":"200","duration":"2144","x-envoy-upstream-service-time":"6","user-agent":"a "b"","x-request-id":"4f1c","upstream_host":"10.1.4.23:8000"}`,
		`{":authority":"api","bytes_received":105,"duration":1526,"genai_model_name":"gpt-4o-mini","genai_tokens_input":15,"genai_tokens_output":7,"response_code":200,"start_time":"2025-08-30T16:51:37.894Z","x-request-id":"83b6"}`,
		`{"requestPath":"/v1/chat/completions","upstreamServiceTime":"-","startTime":"2021-07-21T09:42:36.514Z","responseFlags":"UF,URX","responseCode":"503","duration":"55"}`,
		`{"startTime":"2026-01-15T10:00:00.004Z","xRequestId":null,"duration":5}`,
	)
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, _ := decodeWith(t, newEnvoyParser(envoyDefaultConfig), in)
		lines := bytes.Split(in, []byte("\n"))
		for _, r := range rows {
			if r.Start == 0 {
				t.Fatalf("row without its start: %+v", r)
			}
			// Only a JSON record that names no ID member makes a row
			// without an ID.
			if r.RequestID == "" && r.SourceLine >= 1 && int(r.SourceLine) <= len(lines) {
				if l := bytes.TrimSpace(lines[r.SourceLine-1]); len(l) == 0 || l[0] != '{' || envoyIDMember.Match(l) {
					t.Fatalf("row without an ID from %q: %+v", l, r)
				}
			}
		}
	})
}

// envoyIDMember finds a request or stream ID member of a JSON line.
var envoyIDMember = regexp.MustCompile(`"(x-request-id|x_request_id|request_id|requestid|request-id|stream_id|xRequestId|requestId|streamId)"\s*:`)

func BenchmarkEnvoyText(b *testing.B) {
	line := []byte(`[2026-01-15T10:00:00.004Z] "POST /v1/chat/completions HTTP/1.1" 200 - 1843 61440 2144 6 "10.0.0.15" "python-requests/2.32.3" "4f1c2a9e-8b7d-4e21-9c3a-5d6e7f8a9b0c" "llm-gw.example.internal" "10.1.4.23:8000"`)
	benchParser(b, newEnvoyParser(envoyDefaultConfig), line)
}

func BenchmarkEnvoyJSON(b *testing.B) {
	line := []byte(`{"start_time":"2026-01-15T10:00:00.004Z","method":"POST","x-envoy-origin-path":"/v1/chat/completions","protocol":"HTTP/1.1","response_code":"200","response_flags":"-","response_code_details":"via_upstream","connection_termination_details":"-","upstream_transport_failure_reason":"-","bytes_received":"1843","bytes_sent":"61440","duration":"2144","x-envoy-upstream-service-time":"6","x-forwarded-for":"10.0.0.15","user-agent":"python-requests/2.32.3","x-request-id":"4f1c2a9e-8b7d-4e21-9c3a-5d6e7f8a9b0c",":authority":"llm-gw.example.internal","upstream_host":"10.1.4.23:8000","upstream_cluster":"httproute/default/llm/rule/0","upstream_local_address":"10.1.2.7:51234","downstream_local_address":"10.1.2.7:10080","downstream_remote_address":"10.0.0.15:40122","requested_server_name":"-","route_name":"httproute/default/llm/rule/0/match/0/*"}`)
	benchParser(b, newEnvoyParser(envoyDefaultConfig), line)
}

func benchParser(b *testing.B, p record.LineParser[record.GatewayRow], line []byte) {
	var q record.RowQueue[record.GatewayRow]
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		q.Reset()
		if err := p.ParseLine(line, &q); err != nil {
			b.Fatal(err)
		}
	}
}

// Among all the gateway formats registered, each shape is sniffed as its
// own format, and native lines stay native.
func TestGatewaySniffing(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]string{
		`[2026-01-15T10:00:00.004Z] "POST /v1/chat/completions HTTP/1.1" 200 - 1843 61440 2144 6 "10.0.0.15" "python-requests/2.32.3" "4f1c" "llm-gw" "10.1.4.23:8000"`: formatEnvoy,
		`{"start_time":"2026-01-15T10:00:00.004Z","method":"POST","response_code":"200","duration":"2144","x-request-id":"4f1c","upstream_host":"10.1.4.23:8000"}`:      formatEnvoy,
		`{"msec":1768471202.149,"request_id":"7c1e","x_request_id":"4f1c","status":200,"request_time":2.145,"upstream_response_time":"2.144"}`:                          formatNginx,
		`10.0.0.15 - - [15/Jan/2026:10:00:02 +0000] "POST /v1/chat/completions HTTP/1.1" 200 61440 "-" "python-requests/2.32.3"`:                                        formatNginx,
		`{"request_id":"r1","start":"2026-11-30T10:00:02.5Z","upstream_start":"2026-11-30T10:00:02.51Z","end":"2026-11-30T10:00:04.41Z"}`:                               formatNative,
	} {
		f, err := record.SniffFormat(record.Gateway, []byte(line))
		if err != nil || f.Name != want {
			t.Errorf("%s: got %v %v, want %s", line, f, err, want)
		}
	}
}

// TestEnvoyExtraTrailingField: Envoy's default format with
// "%UPSTREAM_CLUSTER%" after "%UPSTREAM_HOST%" (katanemo/plano's, lines
// of testdata/real/strict) never matches the default format by reading
// `host" "cluster` as one quoted value, so the cluster is not taken for
// the upstream host: the line is rejected, saying it goes on past the
// format; with its format string it reads, host and cluster apart.
func TestEnvoyExtraTrailingField(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../testdata/real/strict/plano_envoy_upstream_cluster.log")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		if l, ok := strings.CutPrefix(l, "plano-1  | [access_logs] ["); ok {
			lines = append(lines, "["+l)
		}
	}
	if len(lines) != 4 {
		t.Fatalf("%d access lines in the sample, want 4", len(lines))
	}
	input := strings.Join(lines, "\n")
	rows, rejects := envoyRows(t, "", input)
	if len(rows) != 0 || len(rejects) != 4 {
		t.Fatalf("default format: %d rows %+v, %d rejects; want every line rejected", len(rows), rows, len(rejects))
	}
	// `"input_guards"` and a space: 15 bytes; `"openai"`: 9.
	for i, n := range []string{"15", "9", "15", "15"} {
		want := "line matches Envoy's default format, then goes on for " + n + " more bytes"
		if !strings.Contains(rejects[i].Error(), want) {
			t.Errorf("line %d: %v, want %q", i+1, rejects[i], want)
		}
	}
	const plano = `[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" %RESPONSE_CODE% ` +
		`%RESPONSE_FLAGS% %BYTES_RECEIVED% %BYTES_SENT% %DURATION% %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% ` +
		`"%REQ(X-FORWARDED-FOR)%" "%REQ(USER-AGENT)%" "%REQ(X-REQUEST-ID)%" "%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%" "%UPSTREAM_CLUSTER%"`
	rows, rejects = envoyRows(t, plano, input)
	if len(rows) != 4 || len(rejects) != 0 {
		t.Fatalf("plano's format: %d rows, rejects %v; want 4 rows", len(rows), rejects)
	}
	for i, want := range []string{"192.168.65.254:10500", "172.66.0.243:443", "192.168.65.254:10500", "192.168.65.254:10500"} {
		if rows[i].Upstream != want || rows[i].RequestID != "9b5c24a5-9b3d-96ce-ac30-11d212e6379a" {
			t.Errorf("row %d: upstream %q, request ID %q; want %s", i, rows[i].Upstream, rows[i].RequestID, want)
		}
	}
	// A user agent holding quotes, not followed by a quote and a space,
	// still reads.
	line := strings.TrimSuffix(lines[0], ` "input_guards"`)
	rows, _ = envoyRows(t, "", strings.Replace(line, `"curl/8.7.1"`, `"curl "x"/8"`, 1))
	if len(rows) != 1 || rows[0].Upstream != "192.168.65.254:10500" {
		t.Errorf("quotes inside a quoted value: %+v", rows)
	}
}
