package formats

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/infertrace/infertrace/ingest/record"
)

func FuzzAIPerf(f *testing.F) {
	txtarSeeds(f, "aiperf.txtar")
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, _ := lgDecodeLines(t, &aiperfParser{}, in)
		for _, r := range rows {
			// Only a first-schema record (timestamp_ns) of a failed request
			// lacks an end, and then it has no latency either.
			if r.Start == 0 || r.End == 0 && r.E2ENS != nil || r.Format != formatAIPerf {
				t.Fatalf("row without its required fields: %+v", r)
			}
			if r.TTFTNS != nil && r.FirstToken != r.Start+*r.TTFTNS {
				t.Fatalf("first token %d is not start %d + TTFT %d", r.FirstToken, r.Start, *r.TTFTNS)
			}
		}
	})
}

// TestAIPerfFirstSchema: records of the first profile_export.jsonl schema
// (metadata.timestamp_ns, no end instant), from AIPerf's own example
// artifacts (testdata/real/versions/SOURCE), read by shape: line 1 a
// cancelled request (a start, no end), line 12 a streamed one whose end is
// its max_response_timestamp.
func TestAIPerfFirstSchema(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../testdata/real/versions/aiperf_dev_2025-10_profile_export.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(data, []byte("\n"))
	if !sniffAIPerf(lines[0]) || !sniffAIPerf(lines[11]) {
		t.Fatal("the first schema is not sniffed as aiperf")
	}
	rows, rejects := lgDecodeLines(t, &aiperfParser{}, data)
	if len(rows) != 16 || len(rejects) != 0 {
		t.Fatalf("%d rows, rejects %v; want 16 rows", len(rows), rejects)
	}
	cancelled := record.ClientRow{RequestID: "c087da26-5552-4785-958a-cad75c7b22de", Start: 1759522419154829652,
		Status: 499, Error: "RequestCancellationError", Format: formatAIPerf}
	if got := rows[0]; !reflect.DeepEqual(got, cancelled) {
		t.Errorf("line 1:\n got %+v\nwant %+v", got, cancelled)
	}
	// 1759522419159192408 + 1680.543782 ms = 1759522420839736190; the
	// latency 7936.968269 ms is max_response_timestamp - start exactly.
	streamed := record.ClientRow{RequestID: "1ed40a0d-e708-434d-bb8e-fb1b44cb8717", Start: 1759522419159192408,
		FirstToken: 1759522420839736190, End: 1759522427096160677, Streamed: record.BoolPtr(true),
		PromptTokens: record.Int32Ptr(550), OutputTokens: record.Int32Ptr(193),
		E2ENS: record.NSPtr(7936968269), TTFTNS: record.NSPtr(1680543782), Format: formatAIPerf}
	if got := rows[11]; !reflect.DeepEqual(got, streamed) {
		t.Errorf("line 12:\n got %+v\nwant %+v", got, streamed)
	}
	// Without max_response_timestamp the end is start + request_latency.
	line := bytes.Replace(lines[11], []byte(`"max_response_timestamp"`), []byte(`"other_timestamp"`), 1)
	rows, _ = lgDecodeLines(t, &aiperfParser{}, line)
	if len(rows) != 1 || rows[0].End != 1759522419159192408+7936968269 {
		t.Errorf("without max_response_timestamp: %+v, want end = start + latency", rows)
	}
}

func TestScaledNS(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in    string
		scale int64
		want  int64
		err   bool
	}{
		{"187.5", 1e6, 187500000, false},
		{"297.52522799999997", 1e6, 297525228, false},
		{"0.0000000005", 1e9, 1, false}, // rounds half up
		{"0.0000000004", 1e9, 0, false},
		{"2e-05", 1e9, 20000, false},
		{"1796032800123456789", 1, 1796032800123456789, false},
		{"9223372036854775807", 1, 9223372036854775807, false},
		{"9223372036854775808", 1, 0, true},
		{"9223372037", 1e9, 0, true},
		{"-0.0", 1e6, 0, false},
		{"-1", 1e6, 0, true},
		{"1.", 1e6, 0, true},
		{".5", 1e6, 0, true},
		{"1x", 1e6, 0, true},
		{"NaN", 1e6, 0, true},
	} {
		got, err := lgScaledNS([]byte(tc.in), tc.scale)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("lgScaledNS(%s, %d) = %d, %v; want %d, error %v", tc.in, tc.scale, got, err, tc.want, tc.err)
		}
	}
}

// lgDecodeLines runs a line parser over each non-blank line of input, as
// the chunk decoder does (the chunker itself is fuzzed with the native
// formats; leaving it out makes an execution many times cheaper).
func lgDecodeLines(t testing.TB, p record.LineParser[record.ClientRow], input []byte) (rows []record.ClientRow, rejects []error) {
	var q record.RowQueue[record.ClientRow]
	for n, line := range bytes.Split(input, []byte("\n")) {
		if line = record.TrimCR(line); record.IsBlank(line) {
			continue
		}
		q.Reset()
		if err := p.ParseLine(line, &q); err != nil {
			var fe *record.FieldError
			if !errors.As(err, &fe) && !errors.Is(err, record.ErrSyntax) {
				t.Fatalf("line %d: an error that is neither a field nor a syntax error: %v", n+1, err)
			}
			rejects = append(rejects, err)
			continue
		}
		for _, r := range q.Rows {
			if r.Format == "" {
				t.Fatalf("line %d: row without its format: %+v", n+1, r)
			}
			rows = append(rows, r)
		}
	}
	return rows, rejects
}

// txtarSeeds adds the input files of a testdata/ingest case as fuzz seeds,
// whole and line by line.
func txtarSeeds(f *testing.F, name string) {
	ar, err := txtar.ParseFile("../../testdata/ingest/" + name)
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range ar.Files {
		if file.Name == "args" || strings.HasPrefix(file.Name, "want/") {
			continue
		}
		f.Add(file.Data)
		for _, line := range bytes.Split(file.Data, []byte("\n")) {
			f.Add(line)
		}
	}
}
