package ingest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDetectPrefix: each collector's prefix is found from a file's first
// lines and removed, stacked prefixes peeled in order; a log's own start
// (vLLM's level, TGI's six-digit time, Ollama's [GIN], nginx's address, a
// JSON object) is no prefix.
func TestDetectPrefix(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, line, want, stripped string
	}{
		{"compose", "vllm-1  | INFO 11-30 10:00:00 [loggers.py:116] Engine 000", "docker-compose", "INFO 11-30 10:00:00 [loggers.py:116] Engine 000"},
		{"compose v1", "proj_tgi_1   | {\"level\":\"INFO\"}", "docker-compose", `{"level":"INFO"}`},
		{"compose coloured", "\x1b[36mvllm-1  | \x1b[0mINFO 11-30 10:00:00 [loggers.py:116] x", "docker-compose", "INFO 11-30 10:00:00 [loggers.py:116] x"},
		{"compose intense", "\x1b[33;1mtgi-2  | \x1b[0m\x1b[2m2025-01-01T00:00:02.639812Z\x1b[0m  INFO", "docker-compose", "\x1b[2m2025-01-01T00:00:02.639812Z\x1b[0m  INFO"},
		{"compose coloured -t", "\x1b[32mvllm-1  | \x1b[0m2026-11-30T10:00:00.000000000+01:00 INFO x", "docker-compose+timestamp", "INFO x"},
		{"compose colour not reset", "\x1b[36mvllm-1  | INFO x", "", ""},
		{"colour alone", "\x1b[36mINFO\x1b[0m vllm-1 | x", "", ""},
		{"docker -t", "2026-11-30T10:00:00.123456789Z INFO 11-30 x", "timestamp", "INFO 11-30 x"},
		{"offset time", "2026-11-30T10:00:00.123456789+01:00 {\"a\":1}", "timestamp", `{"a":1}`},
		{"kubectl --prefix", "[pod/vllm-7d9f/vllm] INFO 11-30 x", "kubectl", "INFO 11-30 x"},
		{"kubectl --prefix --timestamps", "[pod/vllm-7d9f/vllm] 2026-11-30T10:00:00.123456789Z INFO x", "kubectl+timestamp", "INFO x"},
		{"compose -t", "vllm-1  | 2026-11-30T10:00:00.000000000Z INFO x", "docker-compose+timestamp", "INFO x"},
		{"cri", "2026-11-30T10:00:00.123456789Z stdout F INFO 11-30 x", "cri", "INFO 11-30 x"},
		{"cri stderr short time", "2026-11-30T10:00:00.1Z stderr F x y", "cri", "x y"},
		{"journalctl", "Dec 11 09:58:58 gpu-3 ollama[1543]: time=2026-12-11T09:58:58.123Z level=INFO", "syslog", "time=2026-12-11T09:58:58.123Z level=INFO"},
		{"journalctl padded day", "Dec  1 09:58:58 gpu-3 ollama[1543]: [GIN] x", "syslog", "[GIN] x"},
		{"journalctl no pid", "Dec 11 09:58:58 gpu-3 vllm: INFO x", "syslog", "INFO x"},
		{"journalctl fr_FR", "janv. 20 23:15:37 jarvis-server ollama[1232]: [GIN] x", "syslog", "[GIN] x"},
		{"journalctl fr_FR accent", "févr. 03 08:00:01 h ollama[1]: x", "syslog", "x"},
		{"journalctl de_DE padded", "Mär  5 09:58:58 gpu-3 ollama[1543]: x", "syslog", "x"},
		{"a long word is no month", "WARNING 12 10:00:00 gpu-3 job: x", "", ""},
		{"journalctl short-iso", "2026-12-11T09:58:58+0000 gpu-3 ollama[1543]: x", "syslog", "x"},
		{"vllm", "INFO 11-30 10:00:00 [loggers.py:116] Engine 000", "", ""},
		{"vllm apiserver", "(APIServer pid=90211) INFO 11-30 10:01:00 [logger.py:49] x", "", ""},
		{"tgi text", "2025-01-01T00:00:02.639812Z  INFO generate{x}", "", ""},
		{"gin", "[GIN] 2026/12/11 - 09:58:58 | 200 |  2.1s | 10.0.0.1 | POST \"/api/chat\"", "", ""},
		{"nginx", `10.0.0.15 - - [15/Jan/2026:10:00:02 +0000] "POST /v1/chat/completions HTTP/1.1" 200 6`, "", ""},
		{"json", `{"request_id":"r1","start":1796032800}`, "", ""},
		{"pipe in text", "total | 12", "", ""},
		{"pipe after a number", "10.0.0.1 | 12", "", ""},
		{"bracket not a pod", "[pod/x] y", "", ""},
	} {
		s := detectPrefix([]byte(c.line + "\n"))
		got := ""
		if s != nil {
			got = s.name
		}
		if got != c.want {
			t.Errorf("%s: %q: prefix %q, want %q", c.name, c.line, got, c.want)
			continue
		}
		if s != nil {
			if out := string(s.strip([]byte(c.line))); out != c.stripped {
				t.Errorf("%s: stripped to %q, want %q", c.name, out, c.stripped)
			}
		}
	}
}

// TestDetectPrefixMajority: a prefix is detected when more than half of
// the first non-blank lines have it; lines without it are kept whole.
func TestDetectPrefixMajority(t *testing.T) {
	t.Parallel()
	p := "vllm-1  | INFO x\n"
	other := "Attaching to vllm-1\n"
	if s := detectPrefix([]byte(other + "\n\n" + p + p + p)); s == nil || s.name != "docker-compose" {
		t.Errorf("3 of 4: %v, want docker-compose", s)
	} else if got := string(s.strip([]byte("Attaching to vllm-1"))); got != "Attaching to vllm-1" {
		t.Errorf("a line without the prefix became %q", got)
	}
	if s := detectPrefix([]byte(other + other + p + p)); s != nil {
		t.Errorf("2 of 4: %q, want none", s.name)
	}
	if s := detectPrefix([]byte("\n \n")); s != nil {
		t.Errorf("blank file: %q, want none", s.name)
	}
}

// chunkLines reads r through a chunker and returns its lines as the
// decoder sees them (neither blank nor duplicate), each with its number.
func chunkLines(t *testing.T, r io.Reader) (*chunker, []string) {
	t.Helper()
	c := newChunker("f", r)
	var out []string
	walkLines(t, c, func(_ *chunk, n int64, line []byte) {
		out = append(out, fmt.Sprintf("%d:%s", n, line))
	})
	return c, out
}

// walkLines reads c to its end and calls f with each line the decoder sees
// (neither blank nor duplicate), its number and its chunk.
func walkLines(t *testing.T, c *chunker, f func(ch *chunk, n int64, line []byte)) {
	t.Helper()
	for {
		ch, err := c.next()
		if ch != nil {
			n, dups := ch.firstLine, ch.dups
			for data := ch.data; len(data) > 0; n++ {
				var line []byte
				line, data = cutLine(data)
				if len(dups) > 0 && dups[0] == n {
					dups = dups[1:]
					continue
				}
				if len(bytes.TrimSpace(line)) > 0 {
					f(ch, n, line)
				}
			}
			ch.release()
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestStripKeepsLineNumbers: stripped lines keep their numbers and the
// accounting; two lines the same but for the collector's time are two
// lines, a line delivered twice whole is one.
func TestStripKeepsLineNumbers(t *testing.T) {
	t.Parallel()
	in := "2026-11-30T10:00:00.000000001Z INFO a\n" +
		"2026-11-30T10:00:00.000000002Z INFO a\n" +
		"2026-11-30T10:00:00.000000002Z INFO a\n" +
		"2026-11-30T10:00:00.000000003Z \r\n" +
		"\n" +
		"2026-11-30T10:00:00.000000004Z INFO b\r\n" +
		"2026-11-30T10:00:00.000000005Z INFO c"
	c, got := chunkLines(t, strings.NewReader(in))
	want := []string{"1:INFO a", "2:INFO a", "6:INFO b\r", "7:INFO c"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("lines %q, want %q", got, want)
	}
	if c.lines != 7 || c.blank != 2 || c.dups != 1 {
		t.Errorf("lines %d blank %d dups %d, want 7 2 1", c.lines, c.blank, c.dups)
	}
}

// TestCRIPartialLines: the parts of a line the runtime split (tagged P)
// are joined with the line tagged F that ends them, under the number of the
// first part; the other parts count as blank lines. A P run cut short by a
// line of the other stream, a line of another kind or the end of the file
// ends there: the runtime splits each stream on its own.
func TestCRIPartialLines(t *testing.T) {
	t.Parallel()
	in := "2026-11-30T10:00:00.1Z stdout F one\n" +
		"2026-11-30T10:00:00.2Z stdout P {\"a\":\n" +
		"2026-11-30T10:00:00.3Z stdout P 1,\"b\"\n" +
		"2026-11-30T10:00:00.4Z stdout F :2}\n" +
		"2026-11-30T10:00:00.5Z stderr F \n" +
		"2026-11-30T10:00:00.51Z stderr P half\n" +
		"2026-11-30T10:00:00.52Z stdout F other\n" +
		"2026-11-30T10:00:00.53Z stderr F end\n" +
		"2026-11-30T10:00:00.6Z stdout P cut\n" +
		"not a cri line\n" +
		"2026-11-30T10:00:00.7Z stdout P last"
	c, got := chunkLines(t, strings.NewReader(in))
	want := []string{"1:one", `2:{"a":1,"b":2}`, "6:half", "7:other", "8:end", "9:cut", "10:not a cri line", "11:last"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("lines %q, want %q", got, want)
	}
	if c.lines != 11 || c.blank != 3 || c.dups != 0 || c.prefix == nil || c.prefix.name != "cri" {
		t.Errorf("lines %d blank %d dups %d prefix %v, want 11 3 0 cri", c.lines, c.blank, c.dups, c.prefix)
	}
}

// TestCRIPartialAcrossChunks: lines split in parts are joined whole
// wherever the chunks of a large file are cut (a property: every record
// comes out whole, numbered by its first part).
func TestCRIPartialAcrossChunks(t *testing.T) {
	t.Parallel()
	var in bytes.Buffer
	var want []string
	line := int64(1)
	for i := range 40000 {
		rec := fmt.Sprintf(`{"i":%d,"pad":"%s"}`, i, strings.Repeat("x", i%97))
		want = append(want, fmt.Sprintf("%d:%s", line, rec))
		parts := 1 + i%3
		step := (len(rec) + parts - 1) / parts
		for p := 0; p < parts; p++ {
			tag := "P"
			if p == parts-1 {
				tag = "F"
			}
			fmt.Fprintf(&in, "2026-11-30T10:00:%02d.%09dZ stdout %s %s\n", i%60, i, tag, rec[min(p*step, len(rec)):min((p+1)*step, len(rec))])
			line++
		}
	}
	if in.Len() < 3*chunkSize {
		t.Fatalf("only %d bytes: not several chunks", in.Len())
	}
	c, got := chunkLines(t, &in)
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("record %d: %q, want %q", i, got[i], want[i])
		}
	}
	if c.lines != line-1 || c.blank != line-1-int64(len(want)) {
		t.Errorf("lines %d blank %d, want %d %d", c.lines, c.blank, line-1, line-1-int64(len(want)))
	}
}

// wrapLines puts a collector's prefix before every line of data.
func wrapLines(data []byte, prefix func(i int) string) []byte {
	var out bytes.Buffer
	lines := strings.SplitAfter(string(data), "\n")
	for i, l := range lines {
		if l == "" {
			continue
		}
		out.WriteString(prefix(i) + l)
	}
	return out.Bytes()
}

// TestRunCollectorPrefixes is a metamorphic test: a sample log read as
// its tool wrote it and through each collector gives the same format and
// the same counts, and the manifest names the prefix stripped.
func TestRunCollectorPrefixes(t *testing.T) {
	t.Parallel()
	ts := func(i int) string { return fmt.Sprintf("2026-11-30T10:00:%02d.%09dZ ", i%60, i) }
	wraps := []struct {
		name   string
		prefix func(i int) string
	}{
		{"docker-compose", func(int) string { return "vllm-1     | " }},
		// Compose writing to a terminal colours each service's prefix.
		{"docker-compose", func(i int) string { return fmt.Sprintf("\x1b[%dmvllm-%d  | \x1b[0m", 36-i%2*3, 1+i%2) }},
		{"timestamp", ts},
		{"kubectl", func(int) string { return "[pod/vllm-7d9f/vllm] " }},
		{"kubectl+timestamp", func(i int) string { return "[pod/vllm-7d9f/vllm] " + ts(i) }},
		{"cri", func(i int) string { return strings.TrimSuffix(ts(i), " ") + " stdout F " }},
		{"syslog", func(i int) string { return fmt.Sprintf("Dec 11 09:58:%02d gpu-3 tool[1543]: ", i%60) }},
	}
	samples := []struct {
		tier Tier
		file string
	}{
		{Server, "server/tgi_text_output.log"},
		{Server, "server/tgi_json_output.jsonl"},
		{Server, "server/sglang_log_requests.text.log"},
		{Server, "server/ollama_generate_final.json"},
		{Gateway, "gateway/nginx_combined.log"},
		{Client, "client/k6_json_output_llm_constructed.jsonl"},
	}
	dir := t.TempDir()
	ingestOne := func(tier Tier, path, prefixOpt string) FileStats {
		t.Helper()
		m, err := Run(context.Background(), Options{Inputs: []Input{{Tier: tier, Pattern: path}}, Out: filepath.Join(dir, "out"), Workers: 1, Prefix: prefixOpt})
		if err != nil {
			t.Fatal(err)
		}
		return m.Files[0]
	}
	for _, s := range samples {
		data, err := os.ReadFile(filepath.Join("testdata/samples", s.file))
		if err != nil {
			t.Fatal(err)
		}
		base := ingestOne(s.tier, filepath.Join("testdata/samples", s.file), "")
		if base.Rows == 0 || base.Prefix != "" {
			t.Fatalf("%s as written: %+v", s.file, base)
		}
		for i, w := range wraps {
			path := filepath.Join(dir, fmt.Sprintf("%d-%s", i, filepath.Base(s.file)))
			os.WriteFile(path, wrapLines(data, w.prefix), 0o644)
			got := ingestOne(s.tier, path, "")
			if got.Prefix != w.name || got.Format != base.Format || got.Rows != base.Rows || got.Decoded != base.Decoded ||
				got.Rejected != base.Rejected || got.Lines != base.Lines || got.Error != "" {
				t.Errorf("%s through %s:\n got %+v\nwant %+v", s.file, w.name, got, base)
			}
		}
	}
	// --prefix REGEX for a collector not known, and none turning
	// detection off.
	path := filepath.Join(dir, "custom.log")
	data, _ := os.ReadFile("testdata/samples/gateway/nginx_combined.log")
	os.WriteFile(path, wrapLines(data, func(i int) string { return fmt.Sprintf("<%d>lb01 ", i) }), 0o644)
	base := ingestOne(Gateway, "testdata/samples/gateway/nginx_combined.log", "")
	if got := ingestOne(Gateway, path, `<\d+>\S+ `); got.Prefix != "regex" || got.Rows != base.Rows || got.Format != base.Format {
		t.Errorf("--prefix regex: %+v, want the rows of %+v", got, base)
	}
	path = filepath.Join(dir, "compose.log")
	os.WriteFile(path, wrapLines(data, func(int) string { return "nginx-1 | " }), 0o644)
	if got := ingestOne(Gateway, path, PrefixNone); got.Prefix != "" || got.Rows != 0 {
		t.Errorf("--prefix none: %+v, want nothing stripped and no rows", got)
	}
	if _, err := Run(context.Background(), Options{Inputs: []Input{{Tier: Gateway, Pattern: path}}, Out: filepath.Join(dir, "out"), Prefix: "("}); err == nil || !strings.Contains(err.Error(), "--prefix") {
		t.Errorf("a bad --prefix: %v", err)
	}
}

// TestRealCollectorSamples: real logs pasted in public issues as their
// collector gave them (testdata/real/collectors/SOURCE) are read whole:
// the prefix stripped, the format sniffed, rows made (the excerpts
// without request lines make none), no line rejected; the manifest names
// a collector time only for a prefix with a full one (journalctl's
// default "Dec 11 09:58:58" has none).
func TestRealCollectorSamples(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		file, prefixOpt, prefix, format string
		rows                            bool // the excerpt holds records
		collectorTime                   string
	}{
		{"ollama_journald.log", "", "syslog", "ollama-gin", true, ""},
		{"ollama_journald_header.log", "", "syslog", "ollama-gin", true, ""},
		{"vllm_log_viewer.log", `\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \| `, "regex", "vllm-log", true, ""},
		{"vllm_docker_timestamps.log", "", "timestamp", "vllm-log", false, "timestamp: arrival_time, end_time"},
		{"vllm_compose_2947.log", "", "docker-compose", "vllm-log", true, ""},
		{"ollama_journald_fr.log", "", "syslog", "ollama-gin", true, ""},
		{"ollama_journald_masked.log", "", "syslog", "ollama-gin", true, ""},
		{"vllm_kubectl_prefix_gke.log", "", "kubectl", "vllm-log", false, ""},
		{"ollama_docker_timestamps_ov4.log", "", "timestamp", "ollama-gin", false, "timestamp: end_time"},
	} {
		path := filepath.Join("..", "testdata", "real", "collectors", c.file)
		m, err := Run(context.Background(), Options{Inputs: []Input{{Tier: Server, Pattern: path}}, Out: t.TempDir(), Prefix: c.prefixOpt})
		if err != nil {
			t.Fatal(err)
		}
		f := m.Files[0]
		if f.Prefix != c.prefix || f.Format != c.format || (f.Rows > 0) != c.rows || f.Rejected != 0 || (c.rows && f.Error != "") ||
			f.CollectorTime != c.collectorTime {
			t.Errorf("%s: %+v, want prefix %s, format %s, rows %v, no rejects and collector_time %q",
				c.file, f, c.prefix, c.format, c.rows, c.collectorTime)
		}
		// Read as it stands, the prefix hides every record.
		m, err = Run(context.Background(), Options{Inputs: []Input{{Tier: Server, Pattern: path}}, Out: t.TempDir(), Prefix: PrefixNone})
		if err != nil {
			t.Fatal(err)
		}
		if f := m.Files[0]; f.Rows != 0 || f.Prefix != "" {
			t.Errorf("%s with no prefix stripped: %+v, want no rows", c.file, f)
		}
	}
}

// FuzzStripLines: stripping prefixes in place never fails and keeps every
// line of the input counted, whatever the lines.
func FuzzStripLines(f *testing.F) {
	f.Add([]byte("2026-11-30T10:00:00.1Z stdout P a\n2026-11-30T10:00:00.1Z stdout F b\n"))
	f.Add([]byte("vllm-1  | x\nvllm-1  |\n\nother\r\nvllm-1  | y"))
	f.Add([]byte("\x1b[36mvllm-1  | \x1b[0mx\n\x1b[33;1mvllm-2  | \x1b[0m\n\x1b[36mvllm-1  | y\n"))
	f.Add([]byte("[pod/a/b] 2026-11-30T10:00:00.123456789Z x\n[pod/a/b] 2026-11-30T10:00:00.123456789Z x\n"))
	f.Add([]byte("Dec 11 09:58:58 h o[1]: x\nDec 11 09:58:58 h o[1]:\n"))
	f.Add([]byte("janv. 20 23:15:37 h o[1]: x\nfévr. 03 08:00:01 h o[1]:\nMär  5 09:58:58 h o: y\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, _ := chunkLines(t, bytes.NewReader(data))
		want := int64(bytes.Count(data, []byte{'\n'}))
		if len(data) > 0 && data[len(data)-1] != '\n' {
			want++
		}
		if c.lines != want || c.blank+c.dups > c.lines {
			t.Errorf("lines %d (blank %d, dups %d), want %d", c.lines, c.blank, c.dups, want)
		}
	})
}
