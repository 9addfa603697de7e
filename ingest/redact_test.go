package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRejectsHideSecrets runs lines that carry user text in every way the
// logs have been seen to (a member called Prompt or PROMPT or spelled with
// escapes, a request body logged as an escaped JSON string, members no
// list of names knew, LiteLLM's raw_request and exception, a vLLM text
// line) through Run, each rejected, and checks that rejects.jsonl holds
// none of the text while the IDs, times and numbers of the members the
// formats read are still there to find the line by.
func TestRejectsHideSecrets(t *testing.T) {
	cases := []struct {
		name, tier, format, line string
		keep                     []string
	}{
		{"Prompt", "client", "native", `{"request_id":"r-1","start":"2026-11-30T10:00:00Z","Prompt":"SECRET alpha beta"}`,
			[]string{`\"request_id\":\"r-1\"`, `\"start\":\"2026-11-30T10:00:00Z\"`}},
		{"PROMPT", "client", "native", `{"request_id":"r-2","start":1796032800,"PROMPT":"SECRET gamma"}`,
			[]string{`\"request_id\":\"r-2\"`, `\"start\":1796032800`}},
		{"escaped name", "client", "native", `{"request_id":"r-3","start":1796032800,"pr\u006fmpt":"SECRET delta"}`,
			[]string{`\"request_id\":\"r-3\"`}},
		{"escaped body", "client", "native", `{"request_id":"r-4","start":1796032800,"request_body":"{\"messages\":[{\"role\":\"user\",\"content\":\"SECRET epsilon\"}]}"}`,
			[]string{`\"request_id\":\"r-4\"`}},
		{"escaped body under a read name", "client", "native", `{"request_id":"{\"prompt\":\"SECRET zeta\"}","start":1796032800}`,
			[]string{`\"start\":1796032800`}},
		{"system_prompt", "server", "native", `{"request_id":"r-5","arrival":1796032800,"system_prompt":"SECRET eta","prompt_tokens":-1}`,
			[]string{`\"request_id\":\"r-5\"`, `\"arrival\":1796032800`, `\"prompt_tokens\":-1`}},
		{"question", "client", "native", `{"request_id":"r-6","start":1796032800,"question":"SECRET theta?"}`,
			[]string{`\"request_id\":\"r-6\"`}},
		{"instructions", "client", "native", `{"request_id":"r-7","start":1796032800,"instructions":"SECRET iota"}`,
			[]string{`\"request_id\":\"r-7\"`}},
		{"nested", "client", "native", `{"request_id":"r-8","start":1796032800,"extra":{"list":["SECRET kappa",{"deep":"SECRET lambda"}]}}`,
			[]string{`\"request_id\":\"r-8\"`}},
		{"truncated", "client", "native", `{"request_id":"r-9","start":1796032800,"note":"SECRET mu cut off`,
			[]string{`\"request_id\":\"r-9\"`}},
		{"litellm", "gateway", "litellm", `{"id":"chatcmpl-10","call_type":"acompletion","startTime":1796032803,` +
			`"raw_request":"curl -X POST https://api.example.com -d '{'messages': [{'content': 'SECRET nu'}]}'",` +
			`"exception":"litellm.BadRequestError: SECRET xi is too long","model":"gpt-4o"}`,
			[]string{`\"id\":\"chatcmpl-10\"`, `\"startTime\":1796032803`, `\"model\":\"gpt-4o\"`}},
		{"OTLP", "server", "vllm-otlp", `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"4bf92f3577b34da6a3ce929d0e0e4705","startTimeUnixNano":"1796032808000000000",` +
			`"attributes":[{"key":"gen_ai.prompt","value":{"stringValue":"SECRET omicron"}},{"key":"SECRET pi","value":{"intValue":"1"}}`,
			[]string{`\"traceId\":\"4bf92f3577b34da6a3ce929d0e0e4705\"`, `\"key\":\"gen_ai.prompt\"`, `1796032808000000000`}},
		{"vllm text line", "server", "native", `INFO 11-30 10:00:00 logger.py:37] Received request chatcmpl-job-7: prompt: 'SECRET rho, call 555-1234', params: SamplingParams(n=1, temperature=0.7), prompt_token_ids: [1, 2, 3], lora_request: None.`,
			[]string{`chatcmpl-job-7`, `11-30 10:00:00`}},
		{"vllm text line, sniffed", "client", "", `INFO 11-30 10:00:00 logger.py:37] Received request chatcmpl-job-8: prompt: "SECRET sigma's call 555-1234", params: SamplingParams(n=1)`,
			[]string{`chatcmpl-job-8`}},
		{"plain text words", "server", "", `SECRET tau and upsilon are words 2026-11-30T10:00:00Z`,
			[]string{`2026-11-30T10:00:00Z`}},
	}
	dir := t.TempDir()
	opt := Options{Out: filepath.Join(dir, "out"), Workers: 1}
	for i, c := range cases {
		path := filepath.Join(dir, c.tier+string(rune('a'+i))+".log")
		if err := os.WriteFile(path, []byte(c.line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		spec := path
		if c.format != "" {
			spec = c.format + ":" + path
		}
		in, err := ParseInput(Tier(c.tier), spec)
		if err != nil {
			t.Fatal(err)
		}
		opt.Inputs = append(opt.Inputs, in)
	}
	if _, err := Run(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(opt.Out, "rejects.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("%d rejects for %d cases:\n%s", len(lines), len(cases), b)
	}
	for i, c := range cases {
		file := c.tier + string(rune('a'+i)) + ".log"
		var got string
		for _, l := range lines {
			if strings.Contains(l, file+`",`) {
				got = l
			}
		}
		if got == "" {
			t.Errorf("%s: no reject for %s", c.name, file)
			continue
		}
		for _, secret := range []string{"SECRET", "555-1234", "api.example.com"} {
			if strings.Contains(got, secret) {
				t.Errorf("%s: rejects.jsonl holds %q:\n%s", c.name, secret, got)
			}
		}
		for _, k := range c.keep {
			if !strings.Contains(got, k) {
				t.Errorf("%s: rejects.jsonl lost %s:\n%s", c.name, k, got)
			}
		}
	}
}

// TestRejectReasonsAreShort checks that a reason gives the shape of a
// value that is not a number or a time, never its bytes, in rejects.jsonl
// and on the terminal, and that what the terminal is shown of a file name
// cannot drive it.
func TestRejectReasonsAreShort(t *testing.T) {
	dir := t.TempDir()
	secret := strings.Repeat("SECRET words of a prompt ", 20)
	name := filepath.Join(dir, "a\x1b[31m\u202eb.log")
	line := `{"request_id":"r-1","start":"` + secret + `","end":1796032801}` + "\n" +
		`{"request_id":"r-2","start":1796032800,"end":1796032801,"status":"` + secret + `"}` + "\n"
	if err := os.WriteFile(name, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	opt := Options{Out: filepath.Join(dir, "out"), Workers: 1, Log: &log,
		Inputs: []Input{{Tier: Client, Format: "native", Pattern: filepath.Join(dir, "a*.log")}}}
	if _, err := Run(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(opt.Out, "rejects.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r Reject
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		reasons = append(reasons, r.Reason)
	}
	if len(reasons) != 2 {
		t.Fatalf("want 2 rejects, got %q", reasons)
	}
	for _, text := range append(reasons, log.String()) {
		if strings.Contains(text, "SECRET") {
			t.Errorf("the value is quoted:\n%s", text)
		}
	}
	for _, r := range reasons {
		if !strings.Contains(r, `a string of 500 letters and spaces`) {
			t.Errorf("reason does not give the value's shape: %s", r)
		}
	}
	if strings.ContainsAny(log.String(), "\x1b\u202e") {
		t.Errorf("terminal output holds control characters: %q", log.String())
	}
	if !strings.Contains(log.String(), `a\x1b[31m\u202eb.log:1: start: bad time`) {
		t.Errorf("terminal output does not name the file, escaped: %q", log.String())
	}
}

// FuzzRedactHidesValues: a string value under any member that is not read
// as an ID, time, number or label where it is, at any depth, never survives
// redaction; below the top, not even under a name read at the top.
func FuzzRedactHidesValues(f *testing.F) {
	for _, s := range [][2]string{{"Prompt", "hello"}, {"pr\\u006fmpt", "x"}, {"system_prompt", `{"a":"b"}`}, {"a b", "c d"}, {"", "-"}} {
		f.Add(s[0], s[1], true)
	}
	f.Fuzz(func(t *testing.T, name, value string, nested bool) {
		if !nested && readPaths[name] {
			return
		}
		v, _ := json.Marshal("zq" + value)
		n, _ := json.Marshal(name)
		line := `{"request_id":"r-1",` + string(n) + `:` + string(v) + `}`
		if nested {
			line = `{"request_id":"r-1","x":[{` + string(n) + `:[` + string(v) + `]}]}`
		}
		out := redact([]byte(line), nil)
		if bytes.Contains(out, v[1:len(v)-1]) && !bytes.Contains(n, v[1:len(v)-1]) {
			t.Fatalf("value survived: %s\n -> %s", line, out)
		}
		if !bytes.Contains(out, []byte(`"request_id":"r-1"`)) {
			t.Fatalf("request_id lost: %s\n -> %s", line, out)
		}
	})
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		`{"id":"r1","prompt":"tell me \"x\"","n":1}`:             `{"id":"r1","prompt":"<redacted 13 bytes>","n":1}`,
		`{"messages":[{"role":"user","content":"hi"}],"id":"r"}`: `{"messages":[{"role":"<redacted 4 bytes>","content":"<redacted 2 bytes>"}],"id":"r"}`,
		`{"id":"r1","prompt":"cut off mid-wri`:                   `{"id":"r1","prompt":"<redacted 15 bytes>"`,
		`{"text": null, "prompt_tokens": 5}`:                     `{"text": null, "prompt_tokens": 5}`,
		`{"resourceSpans":[{"resource":{"attributes":[{"key":"gen_ai.prompt","value":{"stringValue":"hi there"}}]}}]}`: `{"resourceSpans":[{"resource":{"attributes":[{"key":"gen_ai.prompt","value":{"stringValue":"<redacted 8 bytes>"}}]}}]}`,
		`{"resourceSpans":[{"resource":{"attributes":[{"key":"Bearer sk-1","value":{"intValue":"3"}}]}}]}`:             `{"resourceSpans":[{"resource":{"attributes":[{"key":"<redacted 11 bytes>","value":{"intValue":"3"}}]}}]}`,
		`{"key":"gen_ai.prompt","value":{"intValue":"3"}}`:                                                             `{"key":"<redacted 13 bytes>","value":{"intValue":"<redacted 1 bytes>"}}`,
		`{"a b":"x","pr\u006fmpt":"y","model":"m\u0000"}`:                                                              `{"<redacted 3 bytes>":"<redacted 1 bytes>","prompt":"<redacted 1 bytes>","model":"<redacted 7 bytes>"}`,
		`{"model":"` + strings.Repeat("m", 129) + `"}`:                                                                 `{"model":"<redacted 129 bytes>"}`,
		`{"stop":["a","b"],"model":"llama-3"} trailing words`:                                                          `{"stop":["<redacted 1 bytes>","<redacted 1 bytes>"],"model":"llama-3"} <redacted 8 bytes> <redacted 5 bytes>`,
		`[1, 2, 3]`: `[1, 2, 3]`,
		`INFO 11-30 10:00:00 logger.py:37] Received request cmpl-7: prompt: 'a 1', n=1.`:                   `<redacted 4 bytes> 11-30 10:00:00 <redacted 12 bytes>] <redacted 16 bytes> cmpl-7: <redacted 6 bytes>: '<redacted 3 bytes>', <redacted 1 bytes>=1.`,
		`[2026-01-15T10:00:02.000Z] "POST /v1 HTTP/1.1" 200 - 12ms "f0e1d2c3-0000-4000-8000-0000" "don't"`: `[2026-01-15T10:00:02.000Z] "<redacted 17 bytes>" 200 - 12ms "f0e1d2c3-0000-4000-8000-0000" "<redacted 5 bytes>"`,
		`note: it's cut`: `<redacted 4 bytes>: <redacted 2 bytes>'<redacted 5 bytes>`,
	} {
		if got := string(redact([]byte(in), nil)); got != want {
			t.Errorf("redact(%s):\n got %s\nwant %s", in, got, want)
		}
	}
}

// TestRedactTextCredentials: in a text line, what follows a credential's
// name, an authentication scheme or an Authorization header is hidden
// whatever it looks like (an ID-like key would be kept as an ID
// otherwise), and so are a URL's query and a Common Log Format user.
func TestRedactTextCredentials(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`garbage Authorization: Bearer SECRET12345678 api_key=sk-SECRET1234 password=hunter2x99 ok`: `<redacted 7 bytes> <redacted 13 bytes>: <redacted 66 bytes>`,
		`x api_key=sk-abc123def456 token: "f0e1d2c3-0000-4000" Bearer abcdef123456 200`:             `<redacted 1 bytes> <redacted 7 bytes>=<redacted 15 bytes> <redacted 5 bytes>: "<redacted 18 bytes>" <redacted 6 bytes> <redacted 12 bytes> 200`,
		`POST /v1/chat?api_key=abcdef123456&user=u_1234567 HTTP/1.1 200`:                            `<redacted 13 bytes>?<redacted 35 bytes> <redacted 8 bytes> 200`,
		`10.0.0.1 - u_1234567 [15/Jan/2026:10:00:02 +0000] "POST /v1 HTTP/1.1" 200 61`:              `10.0.0.1 - <redacted 9 bytes> [15/Jan/2026:10:00:02 +0000] "<redacted 17 bytes>" 200 61`,
		`10.0.0.1 - - [15/Jan/2026:10:00:02 +0000] "-" 200`:                                         `10.0.0.1 - - [15/Jan/2026:10:00:02 +0000] "-" 200`,
		`params: {'api_key': 'sk-1234567', 'x_api_key'='abcdef1234', "n": 3}`:                       `<redacted 6 bytes>: {'<redacted 7 bytes>': '<redacted 10 bytes>', '<redacted 9 bytes>'='<redacted 10 bytes>', "<redacted 1 bytes>": 3}`,
		`prompt_tokens=512 completion_tokens=128 req-0001234`:                                       `<redacted 13 bytes>=512 <redacted 17 bytes>=128 req-0001234`,
	} {
		if got := string(redact([]byte(in), nil)); got != want {
			t.Errorf("redact(%s):\n got %s\nwant %s", in, got, want)
		}
	}
}

// TestRedactReadPaths: a rejected JSON line keeps the string values the
// formats read only where they read them: "name", "id" or "event" below
// members no format reads are user data, as are a member name that looks
// like a key and a read value that holds a URL's query.
func TestRedactReadPaths(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"request_id":"r1","messages":[{"role":"user","name":"alice_1234","content":"x"}]}`:               `{"request_id":"r1","messages":[{"role":"<redacted 4 bytes>","name":"<redacted 10 bytes>","content":"<redacted 1 bytes>"}]}`,
		`{"request_id":"r1","user":{"id":"u-12345678","name":"bob"}}`:                                      `{"request_id":"r1","user":{"id":"<redacted 10 bytes>","name":"<redacted 3 bytes>"}}`,
		`{"tools":[{"function":{"name":"lookup_account_42"}}],"model":"m"}`:                                `{"tools":[{"function":{"name":"<redacted 17 bytes>"}}],"model":"m"}`,
		`{"metadata":{"event":"password reset for 42"},"event":"done"}`:                                    `{"metadata":{"event":"<redacted 21 bytes>"},"event":"done"}`,
		`{"sk-a1b2c3d4e5f6a7b8":1,"headers":{"x-api-key-0123456789abcdef":"v"},"request_id":"r1"}`:         `{"<redacted 19 bytes>":1,"headers":{"<redacted 26 bytes>":"<redacted 1 bytes>"},"request_id":"r1"}`,
		`{"route":"/v1/chat?api_key=sk-123","upstream":"http://u:pw@10.0.0.1/","request_id":"r1"}`:         `{"route":"<redacted 23 bytes>","upstream":"<redacted 21 bytes>","request_id":"r1"}`,
		`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"abc1","name":"GET /v1?token=t0k3n"}]}]}]}`: `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"abc1","name":"<redacted 19 bytes>"}]}]}]}`,
		`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"abc1","name":"POST /v1/chat"}]}]}]}`:       `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"abc1","name":"POST /v1/chat"}]}]}]}`,
		`{"prompt_tokens":"Bearer sk-1234567","status":"token=abc"}`:                                       `{"prompt_tokens":"<redacted 17 bytes>","status":"<redacted 9 bytes>"}`,
		`[{"request_id":"r2","extra":{"request_id":"r3"}}]`:                                                `[{"request_id":"r2","extra":{"request_id":"<redacted 2 bytes>"}}]`,
		`{"span":{"name":"generate","total_time":"1ms"},"spans":[{"name":"infer"}]}`:                       `{"span":{"name":"generate","total_time":"1ms"},"spans":[{"name":"infer"}]}`,
	} {
		if got := string(redact([]byte(in), nil)); got != want {
			t.Errorf("redact(%s):\n got %s\nwant %s", in, got, want)
		}
	}
	// A mapping's paths are read paths of its format.
	in := `{"meta":{"model":"m-1","id":"x9"},"model":"m-2"}`
	want := `{"meta":{"model":"m-1","id":"<redacted 2 bytes>"},"model":"m-2"}`
	if got := string(redact([]byte(in), []string{"meta.model"})); got != want {
		t.Errorf("with a mapping's paths: got %s, want %s", got, want)
	}
}

func TestErrorClass(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 79.15 GiB total capacity)\nTraceback: …": "CUDA out of memory. Tried to allocate <n> MiB (GPU <n>; <n> GiB total capacity)",
		`invalid request: "tell me about my neighbour's divorce"`:                                         "invalid request: <quoted>",
		`401 Unauthorized: api_key=sk-abcdefghijklmnop is not valid`:                                      "<n> Unauthorized: api_key=<secret> is not valid",
		`Authorization: Bearer abcdefghijklmnopqrstu rejected`:                                            "Authorization: <secret>",
		`rate limit for alice@example.com on /v1/chat?user=alice`:                                         "rate limit for <address> on /v<n>/chat?<query>",
		strings.Repeat("word ", 30):                                                                       strings.TrimSpace(strings.Repeat("word ", 16)) + "…",
		`timeout after 30s for 'x'` + strings.Repeat(" y", 40):                                            "timeout after <n>s for <quoted>" + strings.Repeat(" y", 24) + "…",
	} {
		if got := errorClass(in); got != want {
			t.Errorf("errorClass(%q):\n got %q\nwant %q", in, got, want)
		}
	}
}

// TestErrorColumnKeepsClass: the error column of client and server rows
// keeps only the class of an error text, unless KeepErrorText.
func TestErrorColumnKeepsClass(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	client := filepath.Join(dir, "c.jsonl")
	server := filepath.Join(dir, "s.jsonl")
	os.WriteFile(client, []byte(`{"request_id":"r1","start":1796032800,"end":1796032801,"status":400,"error":"bad request: \"SECRET prompt\" for user 4242"}`+"\n"), 0o644)
	os.WriteFile(server, []byte(`{"request_id":"r1","arrival":1796032800,"end":1796032801}`+"\n"), 0o644)
	for _, keep := range []bool{false, true} {
		out := filepath.Join(dir, fmt.Sprint("out", keep))
		_, err := Run(context.Background(), Options{Out: out, Workers: 1, KeepErrorText: keep,
			Inputs: []Input{{Tier: Client, Format: "native", Pattern: client}, {Tier: Server, Format: "native", Pattern: server}}})
		if err != nil {
			t.Fatal(err)
		}
		parts, _ := filepath.Glob(filepath.Join(out, "client", "*", "*.parquet"))
		if len(parts) != 1 {
			t.Fatalf("parts %v", parts)
		}
		rows, err := readParquet[ClientRow](parts[0])
		if err != nil || len(rows) != 1 {
			t.Fatalf("rows %v, %v", rows, err)
		}
		want := "bad request: <quoted> for user <n>"
		if keep {
			want = `bad request: "SECRET prompt" for user 4242`
		}
		if rows[0].Error != want {
			t.Errorf("KeepErrorText=%v: error %q, want %q", keep, rows[0].Error, want)
		}
	}
}

// TestRedactStrayStringAfterMember is the case a canary found: in a
// pretty-printed record cut into lines, words planted after a member's
// value are not that member's value, and neither is a string that follows
// them, even when the member is one the formats read.
func TestRedactStrayStringAfterMember(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"{\n  \"model_group\": \"llama\", token=\"sk12secret\"\n  \"n\": 1\n}": "{\n  \"model_group\": \"llama\", <redacted 6 bytes>\"<redacted 10 bytes>\"\n  \"n\": 1\n}",
		`{"model": "m" "sk12secret"}`:                                          `{"model": "m" "<redacted 10 bytes>"}`,
		`{"model": 3, "sk12secret"}`:                                           `{"model": 3, "<redacted 10 bytes>"}`,
		`{"model": {"a": 1} "sk12secret"}`:                                     `{"model": {"a": 1} "<redacted 10 bytes>"}`,
		`{"model": "m", "id": "r-1"}`:                                          `{"model": "m", "id": "r-1"}`,
		`{"tries": [{"ip": "10.0.0.1"}], "x": 1}`:                              `{"tries": [{"ip": "10.0.0.1"}], "x": 1}`,
	} {
		if got := string(redact([]byte(in), nil)); got != want {
			t.Errorf("redact(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}
