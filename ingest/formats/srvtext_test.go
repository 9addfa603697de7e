package formats

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/infertrace/infertrace/ingest/record"
)

// Fuzz targets and checks of the tgi-text, sglang-text, ollama-json,
// ollama-gin and llmperf formats.

func FuzzTGIText(f *testing.F) {
	fixtureSeeds(f, "tgi_text")
	fixtureSeeds(f, "tgi_text_http_span")
	fixtureSeeds(f, "ansi_written_out")
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, _ := decodeServerLines(t, formatTGIText, in)
		checkTGIRows(t, rows)
	})
}

func FuzzSGLangText(f *testing.F) {
	fixtureSeeds(f, "sglang_text")
	fixtureSeeds(f, "sglang_text_bare")
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, _ := decodeServerLines(t, formatSGLangText, in)
		for i := range rows {
			r := &rows[i]
			checkServerRow(t, formatSGLangLog, r)
			if r.RequestID == "" || r.RequestID != r.EngineRequestID {
				t.Fatalf("an SGLang row has its rid as both IDs: %+v", r)
			}
		}
	})
}

func FuzzOllama(f *testing.F) {
	fixtureSeeds(f, "ollama")
	fixtureSeeds(f, "ansi_written_out")
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, _ := decodeServerLines(t, formatOllamaJSON, in)
		for i := range rows {
			r := &rows[i]
			checkServerRow(t, formatOllamaJSON, r)
			if r.RequestID != "" || r.End == 0 || r.E2ENS == nil || r.Arrival != r.End-*r.E2ENS {
				t.Fatalf("an Ollama row has an end, total_duration, arrival = end − total and no ID: %+v", r)
			}
			if r.LoadNS != nil && *r.LoadNS < 0 {
				t.Fatalf("negative load: %+v", r)
			}
		}
		rows, _ = decodeServerLines(t, formatOllamaGin, in)
		for i := range rows {
			r := &rows[i]
			checkServerRow(t, formatOllamaGin, r)
			if r.End != 0 || r.Arrival != 0 || r.E2ENS == nil || r.Status < 100 {
				t.Fatalf("a GIN row has a status and a latency and no time: %+v", r)
			}
		}
	})
}

func FuzzLLMPerf(f *testing.F) {
	txtarSeeds(f, "llmperf.txtar")
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, _ := lgDecodeDoc(t, parseLLMPerf, in)
		for _, r := range rows {
			if r.Format != formatLLMPerf || r.RequestID != "" || r.Start != 0 || r.End != 0 || r.FirstToken != 0 {
				t.Fatalf("an LLMPerf row has durations only: %+v", r)
			}
			if r.Error != "" && (r.E2ENS != nil || r.TTFTNS != nil || r.OutputTokens != nil) {
				t.Fatalf("a failed request keeps what LLMPerf had when it gave up: %+v", r)
			}
			if r.TTFTNS != nil && *r.TTFTNS <= 0 || r.E2ENS != nil && *r.E2ENS < 0 {
				t.Fatalf("a zero TTFT or a negative E2E: %+v", r)
			}
		}
	})
}

// Each new format's sniffer claims the first lines of its case, and the
// text formats claim their request lines (the first line of a real log is
// often a banner, and a rotated log starts anywhere).
func TestTextSniffers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		tier   record.Tier
		format string
		line   string
	}{
		{record.Server, formatTGIText, "2026-11-30T09:59:00.000001Z  INFO text_generation_launcher: launcher/src/main.rs:1728: Args { model_id: \"m\" }"},
		{record.Server, formatTGIText, "\x1b[2m2026-11-30T10:00:02.639812Z\x1b[0m \x1b[32m INFO\x1b[0m \x1b[1mgenerate\x1b[0m\x1b[1m{\x1b[0m\x1b[3mtotal_time\x1b[0m\x1b[2m=\x1b[0m\"1s\"\x1b[1m}\x1b[0m\x1b[2m:\x1b[0m \x1b[2mtext_generation_router::server\x1b[0m\x1b[2m:\x1b[0m router/src/server.rs:432: Success"},
		{record.Server, formatSGLangText, "[2026-11-30 11:00:02] Finish: obj=GenerateReqInput(rid='b1'), out={'meta_info': {'id': 'b1'}}"},
		{record.Server, formatSGLangText, "[11-30 11:00:00 TP0] Receive: obj=GenerateReqInput(rid='b1')"},
		{record.Server, formatOllamaJSON, `{"model":"llama3.2","created_at":"2026-11-30T10:00:02.639812Z","response":"","done":true}`},
		{record.Server, formatOllamaGin, `[GIN] 2026/11/30 - 10:00:02 | 200 |  2.639712331s |       127.0.0.1 | POST     "/api/generate"`},
		{record.Client, formatLLMPerf, `[{"error_code": null, "error_msg": "", "ttft_s": 0.1}]`},
	}
	for _, c := range cases {
		f, err := record.SniffFormat(c.tier, []byte(c.line))
		if err != nil {
			t.Errorf("%s: %v", c.format, err)
		} else if f.Name != c.format {
			t.Errorf("%.60q: sniffed as %s, want %s", c.line, f.Name, c.format)
		}
	}
	for _, c := range []struct {
		tier record.Tier
		line string
	}{
		{record.Server, "[2016-04-15T20:17:00.310Z] \"POST /api/v1/locations HTTP/2\" 204 - 154 0 226 100"},
		{record.Server, `{"model":"m","choices":[]}`},
		{record.Server, "2026-11-30T10:00:00Z  INFO vllm: x.rs:1: hello"},
		{record.Client, "["},
		{record.Client, `[{"id": "a"}]`},
	} {
		if f, err := record.SniffFormat(c.tier, []byte(c.line)); err == nil &&
			(f.Name == formatTGIText || f.Name == formatSGLangText || f.Name == formatOllamaJSON ||
				f.Name == formatOllamaGin || f.Name == formatLLMPerf) {
			t.Errorf("%.60q: claimed by %s", c.line, f.Name)
		}
	}
}

// Python reprs read as the JSON SGLang's json form would have written.
func TestPyRepr(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{`a=1, b=-2.5, c=1e-05, d=None, e=True, f=False`, `{"a":1,"b":-2.5,"c":1e-05,"d":null,"e":true,"f":false}`},
		{`s='it\'s', t="say \"hi\"\n", u='\x01\u00e9\U0001F600é'`, `{"s":"it's","t":"say \"hi\"\u000a","u":"\u0001é😀é"}`},
		{`o=Req(rid='x', n=[1, (2, 3), (4,)]), d={'k': {1: 'v'}}`, `{"o":{"rid":"x","n":[1,[2,3],[4]]},"d":{"k":{"1":"v"}}}`},
		// not literals: SGLang's cut of a long value, an object repr, inf, nan, positional args
		{`a='head' ... 'tail', b=[1, 2] ... [9], c=<Foo at 0x1>, d=inf, e=-nan, f=Foo(1, 2), g=3`,
			`{"a":null,"b":null,"c":null,"d":null,"e":null,"f":null,"g":3}`},
		{`a={}, b=[], c=()`, `{"a":{},"b":[],"c":[]}`},
	} {
		got, _, err := pyKwargs(nil, []byte(c.in), 0, 0)
		if err != nil || string(got) != c.want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{`a='cut`, `a={'k': [1, 2`, `a=Req(rid='x'`} {
		if _, _, err := pyKwargs(nil, []byte(in), 0, 0); err != errPyCut {
			t.Errorf("%s: got %v, want the truncation error", in, err)
		}
	}
}

// No prompt, completion, stop sequence, abort message or error body of the
// new cases (marked "secret") reaches the tables or rejects.jsonl.
func TestTextCasesLeakNoText(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"tgi_text", "sglang_text", "ollama", "llmperf"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "ingest", name+".txtar"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range txtar.Parse(b).Files {
			if strings.HasPrefix(f.Name, "want/") && bytes.Contains(f.Data, []byte("secret")) {
				t.Errorf("%s %s holds user text", name, f.Name)
			}
		}
	}
}
