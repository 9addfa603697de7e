package ingest

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/ingest/record"
)

// TestNoRowsCause: a file that makes no row is told with the cause its
// first lines show, naming the file and the line that shows it, instead
// of asking for another format; with no cause told, the format is asked
// for as before.
func TestNoRowsCause(t *testing.T) {
	t.Parallel()
	const (
		vllmReq  = `INFO 01-01 00:00:00 [logger.py:49] Received request chatcmpl-7f3c: params: SamplingParams(n=1, temperature=0.7, max_tokens=128), lora_request: None.`
		vllmGen  = `INFO 01-01 00:00:02 [logger.py:78] Generated response chatcmpl-7f3c: output: 'Sure', output_token_ids: [40], finish_reason: length`
		uvicorn  = `(APIServer pid=90211) INFO:     10.0.0.17:51408 - "POST /v1/chat/completions HTTP/1.1" 200 OK`
		sglRecv  = `[2025-01-01 00:00:00] Receive: obj=GenerateReqInput(rid='5b1f0c7e9d2a4e6f8a3b1c0d2e4f6a8b', text='Hello', sampling_params={'max_new_tokens': 128}, stream=False)`
		sglRecv2 = `[2025-01-01 00:00:01] Receive: obj=GenerateReqInput(rid='6c2a1d8f0e3b5f7a9b4c2d1e3f5a7b9c', text='Hi', sampling_params={'max_new_tokens': 64}, stream=True)`
	)
	cases := []struct {
		name, file, format, prefix string
		lines                      []string
		want                       string // the error after "0 of N lines were F records: "; FILE is the file's path
	}{{
		name: "vLLM log with access lines only",
		file: "vllm.log",
		lines: []string{
			`(APIServer pid=90211) INFO 01-01 00:00:00 [api_server.py:1885] vLLM API server version 0.11.0`,
			`(APIServer pid=90211) INFO:     Started server process [90211]`,
			`(APIServer pid=90211) INFO:     Application startup complete.`,
			uvicorn,
			`(APIServer pid=90211) INFO 01-01 00:00:05 [loggers.py:123] Engine 000: Avg prompt throughput: 51.2 tokens/s, Avg generation throughput: 12.8 tokens/s, Running: 0 reqs, Waiting: 0 reqs`,
			`(APIServer pid=90211) INFO:     10.0.0.17:51410 - "POST /v1/chat/completions HTTP/1.1" 200 OK`,
		},
		want: "0 of 6 lines were vllm-log records: FILE:4 is a uvicorn access line, and no line is one of vLLM's request lines " +
			"(Received request, Generated response, aborted…), which it writes only when started with --enable-log-requests " +
			"(older builds: unless --disable-log-requests); access lines have no request ID to read",
	}, {
		name:   "uvicorn lines named as vllm-log",
		file:   "access.log",
		format: "vllm-log",
		lines:  []string{"", `INFO:     10.0.0.17:51408 - "POST /v1/chat/completions HTTP/1.1" 200 OK`},
		want:   "0 of 1 lines were vllm-log records: FILE:2 is a uvicorn access line, and no line is one of vLLM's request lines (Received request, Generated response, aborted…), which it writes only when started with --enable-log-requests (older builds: unless --disable-log-requests); access lines have no request ID to read",
	}, {
		name:  "SGLang Receive lines without Finish lines",
		file:  "sglang.log",
		lines: []string{`[2025-01-01 00:00:00] INFO:     Started server process [4242]`, sglRecv, sglRecv2},
		want: "0 of 3 lines were sglang-text records: FILE:2 is an SGLang Receive: line, and no line is a Finish: line, the one SGLang writes " +
			"with a request's timings when it ends: was the log cut before any request ended, or its Finish: lines filtered out?",
	}, {
		name:   "a docker-compose prefix kept by --prefix none",
		file:   "compose.log",
		format: "vllm-log",
		prefix: PrefixNone,
		lines:  []string{"vllm-1  | " + vllmReq, "vllm-1  | " + vllmGen},
		want:   "0 of 2 lines were vllm-log records: FILE:1 starts with a docker-compose prefix before its vllm-log record, kept by --prefix none: drop --prefix none",
	}, {
		name:   "a docker-compose prefix on too few lines to be detected",
		file:   "up.log",
		format: "vllm-log",
		lines:  []string{"[+] Running 2/2", " ✔ Container llm-vllm-1  Created", "Attaching to vllm-1", "vllm-1  | " + vllmReq, "vllm-1  | " + vllmGen},
		want: "0 of 5 lines were vllm-log records: FILE:4 starts with a docker-compose prefix before its vllm-log record, not detected " +
			"(detection wants it on more than half of the first 16 lines): remove it with --prefix '.{10}' (it is 10 bytes on every line that has it)",
	}, {
		name:   "a prefix of no known shape",
		file:   "shipped.log",
		format: "vllm-log",
		lines:  []string{"[vllm-0] " + vllmReq, "[vllm-12] " + vllmGen},
		want: "0 of 2 lines were vllm-log records: FILE:1 has 9 bytes before its vllm-log record: a collector prefix of no shape " +
			"infertrace detects; remove it with --prefix REGEX (a regular expression matching it at the start of every line)",
	}, {
		name:   "a prefix --prefix does not remove whole",
		file:   "shipped2.log",
		format: "vllm-log",
		prefix: `\[vllm-\d+\]`,
		lines:  []string{"[vllm-0] " + vllmReq},
		want:   "0 of 1 lines were vllm-log records: FILE:1 still has 1 bytes before its vllm-log record once what --prefix matches is removed: correct the expression",
	}, {
		name:   "no cause told",
		file:   "other.log",
		format: "vllm-log",
		lines:  []string{"something else", "entirely"},
		want:   "0 of 2 lines were vllm-log records: is it another format? Name it as FORMAT:GLOB",
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, c.file)
			writeInput(t, path, []byte(strings.Join(c.lines, "\n")+"\n"))
			in := Input{Tier: Server, Format: c.format, Pattern: path}
			m, err := Run(context.Background(), Options{Inputs: []Input{in}, Out: filepath.Join(dir, "out"), Prefix: c.prefix})
			if err != nil {
				t.Fatal(err)
			}
			want := strings.ReplaceAll(c.want, "FILE", path)
			if got := m.Files[0].Error; got != want {
				t.Errorf("error\n got %s\nwant %s", got, want)
			}
		})
	}
}

// TestNoRowsCauseRealSample: vLLM through a log viewer that writes
// "YYYY-MM-DD HH:MM:SS.mmm | " before each line (a real excerpt,
// testdata/real/collectors/SOURCE), named as vllm-log without --prefix:
// the error gives the prefix's length and the --prefix that removes it,
// and with that --prefix the excerpt is read.
func TestNoRowsCauseRealSample(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "testdata", "real", "collectors", "vllm_log_viewer.log")
	in := Input{Tier: Server, Format: "vllm-log", Pattern: path}
	m, err := Run(context.Background(), Options{Inputs: []Input{in}, Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	want := "0 of 3 lines were vllm-log records: " + path + ":2 has 26 bytes before its vllm-log record: a collector prefix of no shape " +
		"infertrace detects; remove it with --prefix '.{26}' (it is 26 bytes on every line that has it)"
	if got := m.Files[0].Error; got != want {
		t.Errorf("error\n got %s\nwant %s", got, want)
	}
	m, err = Run(context.Background(), Options{Inputs: []Input{in}, Out: t.TempDir(), Prefix: ".{26}"})
	if err != nil {
		t.Fatal(err)
	}
	if f := m.Files[0]; f.Rows == 0 || f.Rejected != 0 || f.Error != "" {
		t.Errorf("with the --prefix the error gives: %+v, want rows and no error", f)
	}
}

// TestNoRowsCauseVLLMStartup: a real excerpt of vLLM's start-up route
// listing through docker logs --timestamps (the prefix detected and
// removed) is a vLLM log without request lines, and is told as such.
func TestNoRowsCauseVLLMStartup(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "testdata", "real", "collectors", "vllm_docker_timestamps.log")
	m, err := Run(context.Background(), Options{Inputs: []Input{{Tier: Server, Pattern: path}}, Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	want := "0 of 12 lines were vllm-log records: " + path + ":1 is a line of vLLM's log, and no line is one of vLLM's request lines " +
		"(Received request, Generated response, aborted…), which it writes only when started with --enable-log-requests " +
		"(older builds: unless --disable-log-requests)"
	if f := m.Files[0]; f.Error != want || f.Prefix != "timestamp" {
		t.Errorf("prefix %q, error\n got %s\nwant %s", f.Prefix, f.Error, want)
	}
}

// TestNoRowsCauseVLLMKubectlPrefix: a real excerpt of two vLLM replicas
// through kubectl logs --prefix (the "[pod/NAME/CONTAINER] " removed) is
// a vLLM log without request lines; the line it is told from is line 2,
// the first of vLLM's own ("(EngineCore pid=126) INFO …"), line 1 being
// the weight loader's progress bar.
func TestNoRowsCauseVLLMKubectlPrefix(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "testdata", "real", "collectors", "vllm_kubectl_prefix_gke.log")
	m, err := Run(context.Background(), Options{Inputs: []Input{{Tier: Server, Pattern: path}}, Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	want := "0 of 4 lines were vllm-log records: " + path + ":2 is a line of vLLM's log, and no line is one of vLLM's request lines " +
		"(Received request, Generated response, aborted…), which it writes only when started with --enable-log-requests " +
		"(older builds: unless --disable-log-requests)"
	if f := m.Files[0]; f.Error != want || f.Prefix != "kubectl" || f.Rejected != 0 {
		t.Errorf("prefix %q, %d rejects, error\n got %s\nwant %s", f.Prefix, f.Rejected, f.Error, want)
	}
}

// TestUnknownFormatBehindPrefix: real logs behind a prefix of no shape
// infertrace detects, not named: the error says which format's records
// the lines hold behind how many bytes, and the --prefix that removes
// them, instead of listing the formats that fit worst. The lines and
// widths were read by hand: a log viewer's "YYYY-MM-DD HH:MM:SS " (20
// bytes) before GIN's "[GIN] "; another's "YYYY-MM-DD HH:MM:SS.mmm | "
// (26) before vLLM's lines, whose first line is uvicorn's access line (no
// line vllm-log sniffs); a console's "<epoch ms>\t<ISO time>\t" (39) before
// SGLang's lines, whose first Finish line is line 3.
func TestUnknownFormatBehindPrefix(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		file   string
		line   int
		width  int
		format string
	}{
		{"collectors/ollama_log_viewer_3652.log", 1, 20, "ollama-gin"},
		{"collectors/vllm_log_viewer.log", 2, 26, "vllm-log"},
		{"sglang/issue_25887_finish_bare.log", 3, 39, "sglang-text"},
	} {
		path := filepath.Join("..", "testdata", "real", filepath.FromSlash(c.file))
		m, err := Run(context.Background(), Options{Inputs: []Input{{Tier: Server, Pattern: path}}, Out: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("unknown format: cannot tell the server format from the first lines: %s:%d has %d bytes before its %s record: "+
			"a collector prefix of no shape infertrace detects; remove it with --prefix '.{%d}' (it is %d bytes on every line that has it)",
			path, c.line, c.width, c.format, c.width, c.width)
		if f := m.Files[0]; f.Error != want || f.Rows != 0 || !IsFormatError(f.Error) {
			t.Errorf("%s: error\n got %s\nwant %s", c.file, f.Error, want)
		}
		// With that --prefix the format is sniffed.
		m, err = Run(context.Background(), Options{Inputs: []Input{{Tier: Server, Pattern: path}}, Out: t.TempDir(),
			Prefix: fmt.Sprintf(".{%d}", c.width)})
		if err != nil {
			t.Fatal(err)
		}
		if f := m.Files[0]; f.Format != c.format || f.Prefix != "regex" {
			t.Errorf("%s with --prefix '.{%d}': format %q, prefix %q; want %s", c.file, c.width, f.Format, f.Prefix, c.format)
		}
	}
}

// TestNoRowsCauseOllamaHealthChecks: Ollama's GIN lines of a health check
// only (a real excerpt, testdata/real/collectors/ollama_log_viewer_3652.log,
// read with the --prefix of its log viewer's time) are told as GIN lines
// of routes ollama-gin makes no row of, from line 1; and the cause is
// not given when one GIN line is an inference request or one is rejected.
func TestNoRowsCauseOllamaHealthChecks(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "testdata", "real", "collectors", "ollama_log_viewer_3652.log")
	m, err := Run(context.Background(), Options{Inputs: []Input{{Tier: Server, Pattern: path}}, Out: t.TempDir(),
		Prefix: `\d{4}-\d\d-\d\d \d\d:\d\d:\d\d `})
	if err != nil {
		t.Fatal(err)
	}
	want := "0 of 12 lines were ollama-gin records: " + path + ":1 is a GIN access line of a route other than Ollama's inference " +
		"routes, as are the other GIN lines of the file's first lines: ollama-gin makes rows of /api/generate, /api/chat, " +
		"/api/embed, /api/embeddings and /v1/chat/completions, /v1/completions, /v1/embeddings only, not of health checks " +
		"(HEAD /) or model listings (GET /api/tags)"
	if f := m.Files[0]; f.Error != want || f.Rejected != 0 || f.Decoded != 12 {
		t.Errorf("%+v\nerror\n got %s\nwant %s", f, f.Error, want)
	}

	gin, err := record.Lookup(Server, "ollama-gin")
	if err != nil {
		t.Fatal(err)
	}
	const (
		health = `[GIN] 2024/08/27 - 17:10:19 | 200 |      22.702µs |       127.0.0.1 | HEAD     "/"`
		chat   = `[GIN] 2024/08/27 - 17:10:20 | 200 |  2.639712331s |       127.0.0.1 | POST     "/api/chat"`
		cut    = `[GIN] 2024/08/27 - 17:10:21 | 200 |`
		other  = `time=2024-08-27T17:10:19.000Z level=INFO source=server.go:1 msg="llama runner started"`
	)
	for _, c := range []struct {
		lines []string
		line  int64 // 0: no cause
	}{
		{[]string{other, health, health}, 2},
		{[]string{health, chat}, 0},
		{[]string{health, cut}, 0},
		{[]string{other}, 0},
	} {
		h := record.Head{}
		for i, l := range c.lines {
			h.Lines, h.Nums = append(h.Lines, []byte(l)), append(h.Nums, int64(i+1))
		}
		line, _, ok := gin.NoRowsCause(h)
		if ok != (c.line > 0) || line != c.line {
			t.Errorf("%q: cause at line %d (%v), want %d", c.lines, line, ok, c.line)
		}
	}
}

// FuzzNoRowsCauses: whatever a file's first lines, telling why it could
// make no row never fails for any line format of any tier, and a cause
// names the file and one of the lines it was told from.
func FuzzNoRowsCauses(f *testing.F) {
	f.Add([]byte("vllm-1  | INFO 01-01 00:00:00 [logger.py:49] Received request chatcmpl-1: params: SamplingParams(n=1).\n"))
	f.Add([]byte("[vllm-0] INFO 01-01 00:00:00 [logger.py:49] Received request x.\n\n[vllm-12] {\"request_id\":\"r\"}\n"))
	f.Add([]byte("[2025-01-01 00:00:00] Receive: obj=GenerateReqInput(rid='5b1f', text='Hello')\n"))
	f.Add([]byte("(APIServer pid=1) INFO:     10.0.0.17:51408 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK\n"))
	f.Add([]byte("2025-05-30 09:55:22.282 | INFO 05-30 07:55:22 [async_llm.py:261] Added request chatcmpl-b3d5.\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, setting := range []string{"", PrefixNone, `\S+ `} {
			c := newChunker("f.log", bytes.NewReader(data))
			if setting != "" {
				re, _ := CompilePrefix(setting)
				c.setPrefix(re)
			}
			if _, err := c.peekFirstLine(); err != nil {
				t.Fatal(err)
			}
			h := c.head(causeLines)
			for _, tier := range []Tier{Client, Gateway, Server} {
				for _, name := range record.Formats(tier) {
					format, err := record.Lookup(tier, name)
					if err != nil || format.NewParser == nil {
						continue
					}
					s := &source{format: format, stats: FileStats{Path: "f.log"}}
					prefix, own := noRowsCauses(s, c, Options{Prefix: setting})
					for _, cause := range []string{prefix, own} {
						if cause != "" && !namesHeadLine(cause, h) {
							t.Fatalf("%s (%s): cause %q names no line of %v", name, setting, cause, h.Nums)
						}
					}
				}
			}
		}
	})
}

// namesHeadLine reports whether a cause starts with "f.log:N " for a
// line number N of h.
func namesHeadLine(cause string, h record.Head) bool {
	for _, n := range h.Nums {
		if strings.HasPrefix(cause, "f.log:"+strconv.FormatInt(n, 10)+" ") {
			return true
		}
	}
	return false
}
