package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestServerModel: --server-model fills the model of server rows whose
// format logs none, and leaves a logged model alone, for line and document
// formats alike.
func TestServerModel(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(
		`{"request_id":"r1","arrival":1796032800,"end":1796032801}`+"\n"+
			`{"request_id":"r2","arrival":1796032800,"end":1796032801,"model":"logged"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "perf.json"), []byte(
		`[{"request_id":7,"perf_metrics":{"first_iter":1,"last_iter":3,"timing_metrics":{"arrival_time":100.0,"first_scheduled_time":100.5,"first_token_time":100.75,"last_token_time":101.0}}}]`), 0o644)
	out := filepath.Join(dir, "out")
	_, err := Run(context.Background(), Options{Out: out, ServerModel: "llama-3.1-8b", Inputs: []Input{
		{Tier: Server, Format: formatNative, Pattern: filepath.Join(dir, "a.jsonl")},
		{Tier: Server, Format: formatTRTLLM, Pattern: filepath.Join(dir, "perf.json")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	models := map[string]string{}
	parts, _ := filepath.Glob(filepath.Join(out, "server", "*.parquet"))
	for _, p := range parts {
		rows, err := readParquet[ServerRow](p)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			models[r.RequestID+"/"+r.EngineRequestID] = r.Model
		}
	}
	want := map[string]string{"r1/": "llama-3.1-8b", "r2/": "logged", "/7": "llama-3.1-8b"}
	for k, v := range want {
		if models[k] != v {
			t.Errorf("%s: model %q, want %q (all: %v)", k, models[k], v, models)
		}
	}
}

func readParquet[T Row](path string) ([]T, error) { return parquet.ReadFile[T](path) }

// TestSinkStartsNewParts: a sink closes its part after partRows rows and
// goes on in part-NAME-1.parquet and so on, so the footer metadata a
// Parquet writer keeps in memory is bounded; every row is in exactly one
// part, in order.
func TestSinkStartsNewParts(t *testing.T) {
	defer func(n int64) { partRows = n }(partRows)
	partRows = 3 * batchRows
	dir := t.TempDir()
	s := newSink[ClientRow](dir, Client, "w00")
	const n = 7*batchRows + 5
	for i := range n {
		*s.slot() = ClientRow{RequestID: fmt.Sprint("r", i), Format: "test", SourceLine: int64(i)}
		if err := s.commit(); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	var got []string
	next := 0
	for _, part := range []struct {
		name string
		rows int
	}{{"part-w00.parquet", 3 * batchRows}, {"part-w00-1.parquet", 3 * batchRows}, {"part-w00-2.parquet", batchRows + 5}} {
		rows, err := readParquet[ClientRow](filepath.Join(dir, "client", part.name))
		if err != nil {
			t.Fatalf("%s: %v", part.name, err)
		}
		if len(rows) != part.rows {
			t.Errorf("%s: %d rows, want %d", part.name, len(rows), part.rows)
		}
		for _, r := range rows {
			if r.SourceLine != int64(next) || r.RequestID != fmt.Sprint("r", next) {
				t.Fatalf("%s: row %+v, want line %d", part.name, r, next)
			}
			next++
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "client"))
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if len(got) != 3 {
		t.Errorf("files %v, want the three parts", got)
	}
}
