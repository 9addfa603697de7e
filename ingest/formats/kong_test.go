package formats

import (
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/infertrace/infertrace/ingest/record"
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
			if r.RequestID == "" || r.Start == 0 || r.Format != formatKong {
				t.Fatalf("row without its required fields: %+v", r)
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
