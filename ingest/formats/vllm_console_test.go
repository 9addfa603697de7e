package formats

import (
	"bytes"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/ingest/record"
)

// TestVLLMConsoleValues checks the typing of printed attributes, which the
// fixture's rows show only through the mapping: ints and floats as Python
// prints them, a float count is refused, a bad trace ID or time names its
// field.
func TestVLLMConsoleValues(t *testing.T) {
	t.Parallel()
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
	vllmFixtureSeeds(f, "../../testdata/ingest/vllm_console.txtar", "stdout.log", false)
	f.Add([]byte("{\n    \"name\": \"llm_request\",\n}\n"))
	f.Add([]byte("{\n{\n}\n}\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var rows []record.ServerRow
		var rejected int64
		out := &record.DocOut[record.ServerRow]{
			File:   "stdout.log",
			Emit:   func(rs []record.ServerRow) error { rows = append(rows, rs...); return nil },
			Reject: func(*record.ParseError) error { rejected++; return nil },
		}
		if err := parseVLLMConsole(bytes.NewReader(in), "stdout.log", out); err != nil {
			t.Fatal(err)
		}
		if out.Units != out.Decoded+rejected || out.Rows != int64(len(rows)) {
			t.Fatalf("accounting: units %d, decoded %d, rejected %d, rows %d/%d", out.Units, out.Decoded, rejected, out.Rows, len(rows))
		}
		for i := range rows {
			checkVLLMRow(t, &rows[i])
			if rows[i].SourceLine < 1 {
				t.Fatalf("row without a line: %+v", rows[i])
			}
		}
	})
}
