package formats

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/infertrace/infertrace/ingest"
	"github.com/infertrace/infertrace/ingest/record"
)

func TestVLLMRequestID(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		id       string
		internal bool
		want     string
	}{
		// Chat: only the prefix goes, whatever the client ID ends with.
		{"chatcmpl-4f1c2a9e-8b7d-4e21-9c3a-5d6e7f8a9b0c", false, "4f1c2a9e-8b7d-4e21-9c3a-5d6e7f8a9b0c"},
		{"chatcmpl-job-12", false, "job-12"},
		{"chatcmpl-r-deadbeef", false, "r-deadbeef"},
		{"chatcmpl-7f3c9a2e4b1d4c8f9e0a1b2c3d4e5f60", false, "7f3c9a2e4b1d4c8f9e0a1b2c3d4e5f60"}, // random default
		{"chatcmpl-chatcmpl-x", false, "chatcmpl-x"},                                             // prefix stripped once
		// Completions: vLLM always appends the prompt index; exactly one goes.
		{"cmpl-job-12-0", false, "job-12"},
		{"cmpl-job-12", false, "job"}, // as logged by vLLM, the -12 is a prompt index
		{"cmpl-b5d0c7e2a1f34e6c9d8b7a6f5e4d3c2b-3", false, "b5d0c7e2a1f34e6c9d8b7a6f5e4d3c2b"},
		{"cmpl-4f1c2a9e-8b7d-4e21-9c3a-5d6e7f8a9b0c-0", false, "4f1c2a9e-8b7d-4e21-9c3a-5d6e7f8a9b0c"},
		{"cmpl-abc", false, "abc"},
		// Internal IDs: the 8-hex suffix and the n>1 child prefix go.
		{"chatcmpl-r-deadbeef-0a1b2c3d", true, "r-deadbeef"},
		{"chatcmpl-4f1c2a9e-8b7d-4e21-9c3a-5d6e7f8a9b0c-3be1c0d2", true, "4f1c2a9e-8b7d-4e21-9c3a-5d6e7f8a9b0c"},
		{"1_chatcmpl-r7-0a1b2c3d", true, "r7"},
		{"12_cmpl-job-12-0-0a1b2c3d", true, "job-12"},
		{"chatcmpl-r-deadbeef-0A1B2C3D", true, "r-deadbeef-0A1B2C3D"}, // random_uuid() is lower case
		{"chatcmpl-r-0a1b2c3", true, "r-0a1b2c3"},                     // 7 hex: not vLLM's
		// The 8-hex suffix is never stripped from external IDs.
		{"chatcmpl-r-deadbeef-0a1b2c3d", false, "r-deadbeef-0a1b2c3d"},
		// Anything else is kept as is.
		{"4f1c2a9e-8b7d-4e21-9c3a-5d6e7f8a9b0c", false, "4f1c2a9e-8b7d-4e21-9c3a-5d6e7f8a9b0c"},
		{"1_foo", true, "1_foo"},
		{"embd-abc-0", false, "embd-abc-0"},
		{"chatcmpl-", false, "chatcmpl-"},
		{"cmpl-", false, "cmpl-"},
		{"42", false, "42"},
		{"", false, ""},
	} {
		if got := vllmRequestID(c.id, c.internal); got != c.want {
			t.Errorf("vllmRequestID(%q, internal=%v) = %q, want %q", c.id, c.internal, got, c.want)
		}
	}
}

func TestSecondsToNS(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s    float64
		want int64
	}{
		{0.3512, 351_200_000}, // 0.3512*1e9 is 351200000.00000006 in float64
		{2.6398, 2_639_800_000},
		{0.1, 100_000_000},
		{0.0421234565, 42_123_457},  // half a ns: away from zero
		{0.0421234564, 42_123_456},  // under half: down
		{0.04212345649, 42_123_456}, // the tenth digit alone decides only with the rest
		{-0.002, -2_000_000},
		{-0.0000000015, -2},
		{1e-9, 1},
		{4e-10, 0},
		{5e-10, 1},
		{0, 0},
		{12345.678901234, 12_345_678_901_234},
		{1.7960328e9, 1_796_032_800_000_000_000},
		{9.1e9, 9_100_000_000_000_000_000},
	} {
		got, ok := secondsToNS(c.s)
		if !ok || got != c.want {
			t.Errorf("secondsToNS(%v) = %d, %v; want %d", c.s, got, ok, c.want)
		}
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 9.3e9, -1e10} {
		if got, ok := secondsToNS(bad); ok {
			t.Errorf("secondsToNS(%v) = %d, want not ok", bad, got)
		}
	}
}

// Each format's sniffer claims its own first lines and no other format's.
func TestSniffVLLM(t *testing.T) {
	t.Parallel()
	otlpLine := `{"resourceSpans":[{"resource":{},"scopeSpans":[]}]}`
	cases := map[string]string{
		otlpLine:                        formatVLLMOTLP,
		` { "resourceSpans" : [] } `:    formatVLLMOTLP,
		`{"resourceSpans": [`:           formatVLLMOTLPJSON,
		`{"resourceSpans":[{"resource"`: formatVLLMOTLPJSON,
		`INFO 11-30 10:00:00 logger.py:37] Received request x: params: y`:                               formatVLLMLog,
		`(APIServer pid=1) INFO 11-30 10:00:00 [__init__.py:216] Automatically detected platform cuda.`: formatVLLMLog,
		"\x1b[1;36m(VllmWorker TP0 pid=3)\x1b[0;0m \x1b[33mWARNING\x1b[0m 11-30 10:00:00 [x.py:1] hi":   formatVLLMLog,
		`{"request_id":"r1","arrival":1796032796.9}`:                                                    formatNative,
		`{`:                                     "",
		`{"request_id":"r1","resourceSpans":1}`: formatVLLMOTLP,
		`INFO:     10.0.0.17:51408 - "POST /v1/chat/completions HTTP/1.1" 200 OK`: "",
		`2026-11-30 10:00:00 INFO Received request x`:                             "",
	}
	mine := map[string]func([]byte) bool{
		formatVLLMOTLP: isOTLPLine, formatVLLMOTLPJSON: sniffOTLPDocument, formatVLLMLog: sniffVLLMLog,
		formatNative: sniffNative(record.Server),
	}
	for line, want := range cases {
		for name, sniff := range mine {
			if got := sniff([]byte(line)); got != (name == want) {
				t.Errorf("%s sniffer on %q: %v", name, line, got)
			}
		}
	}
	// A first line cut at 64 KiB for sniffing is still a line of the file exporter.
	long := []byte(`{"resourceSpans":[` + strings.Repeat(`{"resource":{},"scopeSpans":[]},`, 4000))[:64<<10]
	if !isOTLPLine(long) || sniffOTLPDocument(long) {
		t.Error("a cut 64 KiB first line is not sniffed as vllm-otlp")
	}
}

// decodeVLLMLines runs a line format over input, chunk by chunk as Run does, and
// checks that every line is accounted for.
func decodeVLLMLines(t testing.TB, format string, input []byte) (rows []record.ServerRow, rejects []*record.ParseError) {
	f, err := record.Lookup(record.Server, format)
	if err != nil {
		t.Fatal(err)
	}
	p := f.NewParser.(func() record.LineParser[record.ServerRow])()
	d := ingest.NewLineDecoder(p, bytes.NewReader(input), "in.log")
	for {
		var row record.ServerRow
		err := d.Next(&row)
		if err == io.EOF {
			break
		}
		if err == nil {
			rows = append(rows, row)
			continue
		}
		var pe *record.ParseError
		if !errors.As(err, &pe) {
			t.Fatal(err)
		}
		if pe.File != "in.log" || pe.Line < 1 || record.Kind(pe) == "other" {
			t.Fatalf("reject without a position or a kind: %v", pe)
		}
		rejects = append(rejects, pe)
	}
	c, _ := ingest.Counts(d)
	if got := c.Decoded + int64(len(rejects)) + c.Duplicates + c.Blank; got != c.Lines {
		t.Fatalf("lines %d != decoded %d + rejected %d + duplicates %d + blank %d", c.Lines, c.Decoded, len(rejects), c.Duplicates, c.Blank)
	}
	return rows, rejects
}

// vllmFixtureSeeds adds a file of a testdata case as a fuzz seed, and each of its
// lines too when perLine.
func vllmFixtureSeeds(f *testing.F, txtarPath, file string, perLine bool) {
	ar, err := txtar.ParseFile(txtarPath)
	if err != nil {
		f.Fatal(err)
	}
	for _, af := range ar.Files {
		if af.Name != file {
			continue
		}
		f.Add(af.Data)
		for _, l := range bytes.Split(af.Data, []byte("\n")) {
			if perLine {
				f.Add(l)
			}
		}
		return
	}
	f.Fatalf("%s has no file %s", txtarPath, file)
}

// checkVLLMRow holds for every row of the vLLM formats.
func checkVLLMRow(t *testing.T, r *record.ServerRow) {
	t.Helper()
	if r.Format == "" {
		t.Fatalf("row without a format: %+v", r)
	}
	for name, v := range map[string]int64{"scheduled": r.Scheduled, "first token": r.FirstToken, "end": r.End} {
		if v != 0 && (r.Arrival == 0 || v < r.Arrival) {
			t.Fatalf("%s time %d before arrival %d: %+v", name, v, r.Arrival, r)
		}
	}
}

// FuzzVLLMOTLP runs the vllm-otlp line reader and the vllm-otlp-json
// document reader over the same input. Its seeds are whole fixture files of
// several KiB, which Go spends a minute minimising each time one widens
// coverage, with no progress shown meanwhile; run it with
// -fuzzminimizetime 2s.
func FuzzVLLMOTLP(f *testing.F) {
	vllmFixtureSeeds(f, "../../testdata/ingest/vllm_otlp.txtar", "lines.jsonl", true)
	vllmFixtureSeeds(f, "../../testdata/ingest/vllm_otlp_json.txtar", "doc.json", false)
	vllmFixtureSeeds(f, "../../testdata/ingest/vllm_otlp_json.txtar", "doc2.json", false)
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, _ := decodeVLLMLines(t, formatVLLMOTLP, in)
		for i := range rows {
			checkVLLMRow(t, &rows[i])
		}
		// The document reader: units = decoded + rejected, and rows only
		// from decoded units.
		var docRows []record.ServerRow
		var rejected int64
		out := &record.DocOut[record.ServerRow]{
			File:   "in.json",
			Emit:   func(rs []record.ServerRow) error { docRows = append(docRows, rs...); return nil },
			Reject: func(*record.ParseError) error { rejected++; return nil },
		}
		if err := parseVLLMOTLPDocument(bytes.NewReader(in), "in.json", out); err != nil {
			t.Fatal(err)
		}
		if out.Units != out.Decoded+rejected || out.Rows != int64(len(docRows)) {
			t.Fatalf("document accounting: units %d, decoded %d, rejected %d, rows %d/%d",
				out.Units, out.Decoded, rejected, out.Rows, len(docRows))
		}
		for i := range docRows {
			checkVLLMRow(t, &docRows[i])
			if docRows[i].SourceLine < 1 {
				t.Fatalf("document row without a line: %+v", docRows[i])
			}
		}
	})
}
