package ingest

import (
	"bytes"
	"strings"
	"testing"
)

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
		{Server, "\n{\n    \"name\": \"llm_request\",\n    \"context\": {\n", `{"name": "llm_request",`, formatVLLMConsole},
		{Server, "{\r\n  \"resourceSpans\": [\r\n", `{"resourceSpans": [`, formatVLLMOTLPJSON},
		{Gateway, "{\n\n  \"resourceSpans\": [\n", `{"resourceSpans": [`, "otel-gateway"},
		{Server, `{"name": "llm_request", "context": {"trace_id": "0x4bf9", "span_id": "0x1a2b"}}` + "\n", `{"name": "llm_request", "context": {"trace_id": "0x4bf9", "span_id": "0x1a2b"}}`, formatVLLMConsole},
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
		f, err := sniffFormat(c.tier, first)
		got := ""
		if err == nil {
			got = f.name
		}
		if got != c.want {
			t.Errorf("%s %q: sniffed %q, want %q", c.tier, first, got, c.want)
		}
	}
}

// TestVLLMConsoleValues checks the typing of printed attributes, which the
// fixture's rows show only through the mapping: ints and floats as Python
// prints them, a float count is refused, a bad trace ID or time names its
// field.
func TestVLLMConsoleValues(t *testing.T) {
	span := func(attrs, extra string) string {
		return "{\n    \"name\": \"llm_request\",\n" + extra + "    \"start_time\": \"2025-01-01T00:00:00.000000Z\",\n" +
			"    \"attributes\": {\n        \"gen_ai.request.id\": \"chatcmpl-x\"" + attrs + "\n    }\n}\n"
	}
	for _, c := range []struct {
		name, in, want string // want: a reject reason, or "" for one row
	}{
		{"int e2e", span(`, "gen_ai.latency.e2e": 2, "gen_ai.usage.prompt_tokens": 512`, ""), ""},
		{"exponent", span(`, "gen_ai.latency.time_in_queue": 3.2e-05`, ""), ""},
		{"float count", span(`, "gen_ai.usage.prompt_tokens": 512.5`, ""), "gen_ai.usage.prompt_tokens: bad value: want a whole number, got 512.5"},
		{"NaN", span(`, "gen_ai.latency.e2e": NaN`, ""), "malformed JSON: not a printed span"},
		{"trace ID", span("", "    \"context\": {\"trace_id\": \"0x12\"},\n"), `context.trace_id: bad value: want 0x and 32 hex digits, got "0x12"`},
		{"time", span("", "    \"end_time\": \"yesterday\",\n"), `end_time: bad time: "yesterday"`},
	} {
		rows, rejects := decodeServerDoc(t, parseVLLMConsole, []byte(c.in))
		switch {
		case c.want == "" && (len(rows) != 1 || len(rejects) != 0):
			t.Errorf("%s: %d rows, rejects %v", c.name, len(rows), rejects)
		case c.want != "" && (len(rejects) != 1 || !strings.Contains(rejects[0].Error(), c.want)):
			t.Errorf("%s: rejects %v, want %q", c.name, rejects, c.want)
		}
	}
	rows, _ := decodeServerDoc(t, parseVLLMConsole, []byte(span(`, "gen_ai.latency.e2e": 2, "gen_ai.latency.time_in_queue": 3.2e-05, "gen_ai.usage.prompt_tokens": 512`, "")))
	if r := rows[0]; *r.E2ENS != 2e9 || *r.QueueNS != 32_000 || *r.PromptTokens != 512 || r.RequestID != "x" || r.End != r.Arrival+2e9 {
		t.Errorf("row %+v", r)
	}
}

// FuzzVLLMConsole: units = decoded + rejected, rows only from decoded
// units, and every row holds the vLLM row invariants.
func FuzzVLLMConsole(f *testing.F) {
	vllmFixtureSeeds(f, "../testdata/ingest/vllm_console.txtar", "stdout.log", false)
	f.Add([]byte("{\n    \"name\": \"llm_request\",\n}\n"))
	f.Add([]byte("{\n{\n}\n}\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var rows []ServerRow
		var rejected int64
		out := &DocOut[ServerRow]{
			file:   "stdout.log",
			emit:   func(rs []ServerRow) error { rows = append(rows, rs...); return nil },
			reject: func(*ParseError) error { rejected++; return nil },
		}
		if err := parseVLLMConsole(bytes.NewReader(in), "stdout.log", out); err != nil {
			t.Fatal(err)
		}
		if out.units != out.decoded+rejected || out.rows != int64(len(rows)) {
			t.Fatalf("accounting: units %d, decoded %d, rejected %d, rows %d/%d", out.units, out.decoded, rejected, out.rows, len(rows))
		}
		for i := range rows {
			checkVLLMRow(t, &rows[i])
			if rows[i].SourceLine < 1 {
				t.Fatalf("row without a line: %+v", rows[i])
			}
		}
	})
}
