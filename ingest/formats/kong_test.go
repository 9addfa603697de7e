package formats

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// seedFromCase adds the lines of one file of a txtar case to a fuzz corpus.
func seedFromCase(f *testing.F, caseFile, name string) {
	ar, err := txtar.ParseFile("../../testdata/ingest/" + caseFile)
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range ar.Files {
		if file.Name == name {
			f.Add(file.Data)
			for _, l := range strings.Split(string(file.Data), "\n") {
				f.Add([]byte(l))
			}
			return
		}
	}
	f.Fatalf("%s has no file %s", caseFile, name)
}

func FuzzKong(f *testing.F) {
	seedFromCase(f, "kong.txtar", "kong.log")
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, _ := decodeFormat[record.GatewayRow](t, record.Gateway, formatKong, in)
		for _, r := range rows {
			// A record without a request ID (Kong before 3.5) is kept,
			// to be matched by time; none is kept without its start.
			if r.Start == 0 || r.Format != formatKong {
				t.Fatalf("row without its required fields: %+v", r)
			}
			if r.End != 0 && r.End < r.Start {
				t.Fatalf("row ends before it starts: %+v", r)
			}
		}
	})
}

func FuzzLiteLLM(f *testing.F) {
	seedFromCase(f, "litellm.txtar", "lines.jsonl")
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, _ := decodeFormat[record.GatewayRow](t, record.Gateway, formatLiteLLM, in)
		for _, r := range rows {
			if r.RequestID == "" || r.End == 0 || r.UpstreamStart == 0 {
				t.Fatalf("row without its required fields: %+v", r)
			}
		}
	})
}

// FuzzJSONRecords feeds arbitrary documents to the record scanner behind
// the document forms (litellm-json): no panic, and every unit is either
// decoded or rejected.
func FuzzJSONRecords(f *testing.F) {
	seedFromCase(f, "litellm.txtar", "doc.json")
	f.Add([]byte(`{"a":1}{"b":2}`))
	f.Add([]byte(`[1, {"a":"]"}]`))
	f.Fuzz(func(t *testing.T, in []byte) {
		parse := record.JSONRecords(func() record.LineParser[record.GatewayRow] { return &liteLLMParser{} })
		var units, rejected int64
		out := &record.DocOut[record.GatewayRow]{File: "doc.json",
			Emit:   func([]record.GatewayRow) error { return nil },
			Reject: func(*record.ParseError) error { rejected++; return nil }}
		if err := parse(strings.NewReader(string(in)), "doc.json", out); err != nil {
			t.Fatal(err)
		}
		units = out.Units
		if out.Decoded+rejected != units {
			t.Fatalf("units %d != decoded %d + rejected %d", units, out.Decoded, rejected)
		}
	})
}

// Kong before 3.5 logs no request.id (Kong's documented 2.2.1 record,
// testdata/real/no-request-id, compacted to one line): with no
// X-Request-Id header either, the row is kept without a request ID, its
// times placed as usual. started_at 1614232668342 = 05:57:48.342; upstream
// start +kong 58 = .400; first byte +proxy 457 = .857; end +request 515 =
// .857; no receive, so no upstream end (0, written as NULL).
func TestKongWithoutRequestID(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "testdata", "real", "no-request-id", "kong_2.2_file_log.json"))
	if err != nil {
		t.Fatal(err)
	}
	rows, rejects := decodeWith(t, &kongParser{}, record.CompactJSON(bytes.TrimSpace(doc)))
	if len(rows) != 1 || len(rejects) != 0 {
		t.Fatalf("rows %v, rejects %v", rows, rejects)
	}
	r := rows[0]
	got := gatewayTimes(r)
	want := "|2021-02-25T05:57:48.342Z|2021-02-25T05:57:48.4Z|2021-02-25T05:57:48.857Z|1970-01-01T00:00:00Z|2021-02-25T05:57:48.857Z|/log|200"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// gatewayTimes is a gateway row's ID, times, route and status, "|"-joined:
// what the tests of gateway logs without a request ID compare.
func gatewayTimes(r record.GatewayRow) string {
	return strings.Join([]string{r.RequestID, scan.FormatNS(r.Start), scan.FormatNS(r.UpstreamStart), scan.FormatNS(r.UpstreamFirstByte),
		scan.FormatNS(r.UpstreamEnd), scan.FormatNS(r.End), r.Route, strconv.Itoa(int(r.Status))}, "|")
}
