package formats

import (
	"bytes"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/ingest/record"
)

func FuzzGenAIPerf(f *testing.F) {
	txtarSeeds(f, "genaiperf.txtar")
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, _ := lgDecodeDoc(t, parseGenAIPerf, in)
		for _, r := range rows {
			if r.Start == 0 || r.RequestID != "" || r.FirstToken != 0 && (r.End < r.FirstToken || r.Streamed == nil || !*r.Streamed) {
				t.Fatalf("row out of shape: %+v", r)
			}
		}
	})
}

// The document walker keeps the records before a cut and before a syntax
// error, and reports where each record starts.
func TestLgDocReader(t *testing.T) {
	t.Parallel()
	in := "{\"experiments\" :\n [ {\"requests\": [\n{\"timestamp\":1796032800000000000,\"response_timestamps\":[1796032801000000000]},\n" +
		"  {\"timestamp\":1796032802000000000,\"response_timestamps\":[]}, {\"timestamp\":17960328\n"
	rows, rejects := lgDecodeDoc(t, parseGenAIPerf, []byte(in))
	if len(rows) != 2 || rows[0].SourceLine != 3 || rows[1].SourceLine != 4 || rows[1].Error != "no response" {
		t.Fatalf("rows: %+v", rows)
	}
	if len(rejects) != 1 || rejects[0].Line != 4 || !strings.Contains(rejects[0].Error(), "truncated") {
		t.Fatalf("rejects: %v", rejects)
	}
	out := &record.DocOut[record.ClientRow]{File: "x", Emit: func([]record.ClientRow) error { return nil }, Reject: func(*record.ParseError) error { return nil }}
	for in, want := range map[string]string{
		`{"experiments":[{"requests":[}]}`:  "malformed JSON: line 1: unexpected '}'",
		`{"experiments":[{"requests":{}}]}`: `malformed JSON: line 1: expected '['`,
		`[1]`:                               `malformed JSON: line 1: expected '{'`,
		`{"version":"1"}`:                   `malformed JSON: no "experiments" member: not a GenAI-Perf profile_export.json`,
		``:                                  ``,
		`{"00\u"`:                           `malformed JSON: line 1: bad member name`,
	} {
		err := parseGenAIPerf(strings.NewReader(in), "x", out)
		if got := fmtErr(err); got != want {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// lgDecodeDoc runs a document parser over input, checking its units add up.
func lgDecodeDoc(t testing.TB, parse record.DocParser[record.ClientRow], input []byte) (rows []record.ClientRow, rejects []*record.ParseError) {
	out := &record.DocOut[record.ClientRow]{
		File: "in.json",
		Emit: func(rs []record.ClientRow) error { rows = append(rows, rs...); return nil },
		Reject: func(pe *record.ParseError) error {
			if pe.Line < 1 {
				t.Fatalf("reject without a line: %v", pe)
			}
			rejects = append(rejects, pe)
			return nil
		},
	}
	parse(bytes.NewReader(input), "in.json", out)
	if out.Units != out.Decoded+int64(len(rejects)) || out.Rows != int64(len(rows)) {
		t.Fatalf("units %d != decoded %d + rejected %d, or rows %d != %d", out.Units, out.Decoded, len(rejects), out.Rows, len(rows))
	}
	for _, r := range rows {
		if r.Format == "" || r.SourceLine < 1 {
			t.Fatalf("row without its format or line: %+v", r)
		}
	}
	return rows, rejects
}

// TestGenAIPerfOutOfOrder: response timestamps that are not in arrival
// order reject their request, naming the element and its line, and the
// requests around it are kept.
func TestGenAIPerfOutOfOrder(t *testing.T) {
	t.Parallel()
	in := "{\"experiments\":[{\"requests\":[\n" +
		"{\"timestamp\":1796032800000000000,\"response_timestamps\":[1796032800100000000,1796032800900000000]},\n" +
		"{\"timestamp\":1796032801000000000,\"response_timestamps\":[1796032802000000000,1796032801500000000]},\n" +
		"{\"timestamp\":1796032803000000000,\"response_timestamps\":[1796032803500000000]}]}]}\n"
	rows, rejects := lgDecodeDoc(t, parseGenAIPerf, []byte(in))
	if len(rows) != 2 || rows[0].FirstToken != 1796032800100000000 || rows[0].End != 1796032800900000000 || rows[1].SourceLine != 4 {
		t.Errorf("rows: %+v", rows)
	}
	if len(rejects) != 1 || rejects[0].Line != 3 ||
		!strings.Contains(rejects[0].Error(), "response_timestamps: element 1 (1796032801500000000) is earlier than the one before it (1796032802000000000): not in arrival order") {
		t.Errorf("rejects: %v", rejects)
	}
}
