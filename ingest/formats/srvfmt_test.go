package formats

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/infertrace/infertrace/ingest"
	"github.com/infertrace/infertrace/ingest/record"
)

// Fuzz targets and shared checks of the tgi, triton, sglang-metrics,
// sglang-log and trtllm server formats.

// decodeServerLines runs a line format over input and checks the chunker's
// accounting.
func decodeServerLines(t testing.TB, format string, input []byte) (rows []record.ServerRow, rejects []*record.ParseError) {
	d, err := ingest.NewDecoder[record.ServerRow](record.Server, format, bytes.NewReader(input), "in.log")
	if err != nil {
		t.Fatal(err)
	}
	for {
		var row record.ServerRow
		err := d.Next(&row)
		if err == io.EOF {
			break
		}
		var pe *record.ParseError
		if errors.As(err, &pe) {
			if pe.Line < 1 {
				t.Fatalf("reject without a line: %v", pe)
			}
			rejects = append(rejects, pe)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, row)
	}
	c, _ := ingest.Counts(d)
	// A line of these formats gives at most one row.
	decoded := c.Lines - c.Duplicates - c.Blank - int64(len(rejects))
	if decoded < 0 || int64(len(rows)) > decoded {
		t.Fatalf("lines %d, duplicates %d, blank %d, rejected %d, rows %d", c.Lines, c.Duplicates, c.Blank, len(rejects), len(rows))
	}
	return rows, rejects
}

// decodeServerDoc runs a document format over input and checks that every
// unit is either decoded or rejected.
func decodeServerDoc(t testing.TB, parse record.DocParser[record.ServerRow], input []byte) (rows []record.ServerRow, rejects []*record.ParseError) {
	out := &record.DocOut[record.ServerRow]{
		File: "in.json",
		Emit: func(rs []record.ServerRow) error { rows = append(rows, rs...); return nil },
		Reject: func(pe *record.ParseError) error {
			rejects = append(rejects, pe)
			return nil
		},
	}
	if err := parse(bytes.NewReader(input), "in.json", out); err != nil {
		t.Fatalf("a document in memory failed: %v", err)
	}
	if out.Units != out.Decoded+int64(len(rejects)) || out.Rows != int64(len(rows)) {
		t.Fatalf("units %d != decoded %d + rejected %d, or rows %d != %d", out.Units, out.Decoded, len(rejects), out.Rows, len(rows))
	}
	for _, pe := range rejects {
		if pe.Line < 1 || record.Kind(pe) == "other" {
			t.Fatalf("reject without a line or a kind: %v", pe)
		}
	}
	return rows, rejects
}

// checkServerRow holds for every row of every format here.
func checkServerRow(t testing.TB, format string, r *record.ServerRow) {
	t.Helper()
	if r.Format != format || r.SourceLine < 1 {
		t.Fatalf("row without its format or line: %+v", r)
	}
	for name, d := range map[string]*int64{"e2e": r.E2ENS, "queue": r.QueueNS, "ttft": r.TTFTNS,
		"prefill": r.PrefillNS, "decode": r.DecodeNS, "inference": r.InferenceNS} {
		if d != nil && *d < 0 {
			t.Fatalf("negative %s duration %d in %+v", name, *d, r)
		}
	}
	if r.OutputTokens != nil && *r.OutputTokens < 0 || r.PromptTokens != nil && *r.PromptTokens < 0 {
		t.Fatalf("negative token count: %+v", r)
	}
}

// fixtureSeeds adds each input file of a txtar case, and each of its lines,
// as seeds.
func fixtureSeeds(f *testing.F, name string) {
	ar, err := txtar.ParseFile(filepath.Join("..", "..", "testdata", "ingest", name+".txtar"))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range ar.Files {
		if file.Name == "args" || strings.HasPrefix(file.Name, "want/") {
			continue
		}
		f.Add(file.Data)
		for _, l := range bytes.Split(file.Data, []byte("\n")) {
			if len(l) > 0 {
				f.Add(l)
			}
		}
	}
}

func FuzzTGI(f *testing.F) {
	fixtureSeeds(f, "tgi")
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, _ := decodeServerLines(t, formatTGI, in)
		checkTGIRows(t, rows)
	})
}

func FuzzTriton(f *testing.F) {
	fixtureSeeds(f, "triton")
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, _ := decodeServerDoc(t, parseTriton, in)
		for i := range rows {
			r := &rows[i]
			checkServerRow(t, formatTriton, r)
			if r.Arrival != 0 || r.Scheduled != 0 || r.FirstToken != 0 || r.End != 0 || r.EngineRequestID == "" {
				t.Fatalf("a Triton row has durations only and an engine ID: %+v", r)
			}
			if r.Model == "" && r.E2ENS == nil && r.QueueNS == nil && r.InferenceNS == nil {
				t.Fatalf("a Triton row with neither a model nor a duration: %+v", r)
			}
		}
	})
}

func FuzzSGLang(f *testing.F) {
	fixtureSeeds(f, "sglang")
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, format := range []string{formatSGLangMetrics, formatSGLangLog} {
			rows, _ := decodeServerLines(t, format, in)
			for i := range rows {
				r := &rows[i]
				checkServerRow(t, format, r)
				if r.RequestID == "" || r.RequestID != r.EngineRequestID {
					t.Fatalf("an SGLang row has its rid as both IDs: %+v", r)
				}
			}
		}
	})
}

func FuzzTRTLLM(f *testing.F) {
	fixtureSeeds(f, "trtllm")
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, _ := decodeServerDoc(t, parseTRTLLM, in)
		for i := range rows {
			r := &rows[i]
			checkServerRow(t, formatTRTLLM, r)
			if r.Arrival != 0 || r.End != 0 || r.RequestID != "" || r.EngineRequestID == "" {
				t.Fatalf("a TRT-LLM row has durations and an engine ID only: %+v", r)
			}
		}
	})
}

// The formats' sniffers claim their own first lines and nobody else's; the
// native sniffer claims none of theirs.
func TestServerSniffers(t *testing.T) {
	t.Parallel()
	firsts := map[string]string{}
	for _, c := range []struct{ format, file, section string }{
		{formatTGI, "tgi", "tgi.jsonl"},
		{formatTriton, "triton", "trace.json"},
		{formatSGLangMetrics, "sglang", "metrics.jsonl"},
		{formatSGLangLog, "sglang", "requests.log"},
		{formatTRTLLM, "trtllm", "perf.json"},
		{formatNative, "native", "server.jsonl"},
	} {
		ar, err := txtar.ParseFile(filepath.Join("..", "..", "testdata", "ingest", c.file+".txtar"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if f.Name == c.section {
				line, _, _ := bytes.Cut(f.Data, []byte("\n"))
				firsts[c.format] = string(line)
			}
		}
	}
	// Every line of the TGI and SGLang cases that is a request of theirs.
	firsts[formatTGI+" success"] = `{"timestamp":"2026-11-30T10:00:02.639812Z","level":"INFO","message":"Success","target":"text_generation_router::server","span":{"total_time":"1s","name":"generate"}}`
	firsts[formatSGLangLog+" finished"] = `{"timestamp": "2026-11-30T11:00:02.640561", "event": "request.finished", "rid": "b1", "out": {"meta_info": {"id": "b1"}}}`
	for name, line := range firsts {
		want, _, _ := strings.Cut(name, " ")
		f, err := record.SniffFormat(record.Server, []byte(line))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if f.Name != want {
			t.Errorf("%s: sniffed as %s", name, f.Name)
		}
	}
	for _, line := range []string{
		`{"request_id":"r1","arrival":1796032796.9}`,
		`[{"id":"a","t0":1796032800,"t1":1796032801}]`,
		`{"timestamp":"2026-11-30T10:00:00Z","level":"INFO","message":"x","target":"vllm"}`,
		`[]`,
		`[`,
	} {
		if f, err := record.SniffFormat(record.Server, []byte(line)); err == nil && f.Name != formatNative {
			t.Errorf("%s: claimed by %s", line, f.Name)
		}
	}
}

// No prompt, completion, request parameters or abort message of the cases
// (all marked "secret", or "no id here", "cut off mid-") reaches the
// tables or rejects.jsonl.
func TestServerCasesLeakNoText(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"tgi", "triton", "sglang", "trtllm"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "ingest", name+".txtar"))
		if err != nil {
			t.Fatal(err)
		}
		ar := txtar.Parse(b)
		for _, f := range ar.Files {
			if !strings.HasPrefix(f.Name, "want/") {
				continue
			}
			for _, s := range []string{"secret", "no id here", "cut off mid-"} {
				if bytes.Contains(f.Data, []byte(s)) {
					t.Errorf("%s %s holds %q", name, f.Name, s)
				}
			}
		}
	}
}

// checkTGIRows holds for the rows of either TGI form.
func checkTGIRows(t *testing.T, rows []record.ServerRow) {
	for i := range rows {
		r := &rows[i]
		checkServerRow(t, formatTGI, r)
		if r.RequestID != "" || r.End == 0 || (r.Error == "") == (r.E2ENS == nil) {
			t.Fatalf("a TGI row is either a success with total_time or an error, has an end and no ID: %+v", r)
		}
		if r.E2ENS != nil && r.Arrival != r.End-*r.E2ENS {
			t.Fatalf("arrival is not end − total_time: %+v", r)
		}
		if len(r.Error) > tgiErrorMax {
			t.Fatalf("error text not cut: %d bytes", len(r.Error))
		}
	}
}
