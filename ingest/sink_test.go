package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/infertrace/infertrace/ingest/record"
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
		{Tier: Server, Format: record.NativeFormat, Pattern: filepath.Join(dir, "a.jsonl")},
		{Tier: Server, Format: "trtllm", Pattern: filepath.Join(dir, "perf.json")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	models := map[string]string{}
	parts, _ := filepath.Glob(filepath.Join(out, "server", "*", "*.parquet"))
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
		rows, err := readParquet[ClientRow](filepath.Join(dir, "client", "date=__HIVE_DEFAULT_PARTITION__", part.name))
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
	entries, _ := os.ReadDir(filepath.Join(dir, "client", "date=__HIVE_DEFAULT_PARTITION__"))
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if len(got) != 3 {
		t.Errorf("files %v, want the three parts", got)
	}
}

// TestSinkPartitionsByDay: each row lands under date=<UTC day of its own
// start>, a row without a start under date=__HIVE_DEFAULT_PARTITION__, and
// rows of more days than maxOpenParts, interleaved, are all written once,
// each in its day's partition.
func TestSinkPartitionsByDay(t *testing.T) {
	dir := t.TempDir()
	s := newSink[ClientRow](dir, Client, "run1-w00")
	const day = int64(86400e9)
	base := int64(1796083200e9) // 2026-12-01T00:00:00Z
	want := map[string]int{}
	n := 0
	for range 3 {
		for d := -1; d < maxOpenParts+2; d++ { // day -1 of base is 2026-11-30
			for i := range batchRows + 7 {
				start := base + int64(d)*day + int64(i)*1e6
				if d == maxOpenParts+1 {
					start = 0 // no start: durations only
				}
				*s.slot() = ClientRow{RequestID: fmt.Sprint("r", n), Start: start, Format: "test", SourceLine: int64(n)}
				if err := s.commit(); err != nil {
					t.Fatal(err)
				}
				want[PartitionDir(start)]++
				n++
			}
		}
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	if PartitionDir(base-1) != "date=2026-11-30" || PartitionDir(base) != "date=2026-12-01" || PartitionDir(0) != "date=__HIVE_DEFAULT_PARTITION__" {
		t.Errorf("partition names: %s %s %s", PartitionDir(base-1), PartitionDir(base), PartitionDir(0))
	}
	got := map[string]int{}
	seen := map[int64]bool{}
	parts, _ := filepath.Glob(filepath.Join(dir, "client", "*", "*.parquet"))
	for _, p := range parts {
		rows, err := readParquet[ClientRow](p)
		if err != nil {
			t.Fatal(err)
		}
		part := filepath.Base(filepath.Dir(p))
		for _, r := range rows {
			if PartitionDir(r.Start) != part {
				t.Errorf("%s holds a row starting %d (%s)", p, r.Start, PartitionDir(r.Start))
			}
			if seen[r.SourceLine] {
				t.Errorf("line %d written twice", r.SourceLine)
			}
			seen[r.SourceLine] = true
			got[part]++
		}
	}
	if len(seen) != n || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%d of %d rows; per partition %v, want %v", len(seen), n, got, want)
	}
	if len(parts) <= len(want) {
		t.Errorf("%d parts for %d days interleaved: the least recently used day was never closed", len(parts), len(want))
	}
}

// TestSinkClosesStaleDay: a log in time order leaves a day behind; once the
// sink has taken staleRows rows of other days, that day's part is complete
// under its final name while the sink goes on, so a file spanning many days
// holds one day's writer, not one per day. A late row of the old day goes
// into a new part of it.
func TestSinkClosesStaleDay(t *testing.T) {
	dir := t.TempDir()
	s := newSink[ClientRow](dir, Client, "w00")
	const day = int64(86400e9)
	base := int64(1796083200e9) // 2026-12-01T00:00:00Z
	n := 0
	add := func(start int64, rows int) {
		for range rows {
			*s.slot() = ClientRow{RequestID: fmt.Sprint("r", n), Start: start, Format: "test", SourceLine: int64(n)}
			if err := s.commit(); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	first := filepath.Join(dir, "client", "date=2026-12-01", "part-w00.parquet")
	add(base, 2*batchRows)
	add(base+day, staleRows-batchRows)
	if _, err := os.Stat(first); err == nil {
		t.Fatalf("%s closed after %d rows of the next day (staleRows %d)", first, staleRows-batchRows, staleRows)
	}
	add(base+day, 2*batchRows)
	rows, err := readParquet[ClientRow](first)
	if err != nil {
		t.Fatalf("day left behind for more than staleRows rows still open: %v", err)
	}
	if len(rows) != 2*batchRows {
		t.Errorf("%s: %d rows, want %d", first, len(rows), 2*batchRows)
	}
	if _, err := os.Stat(first + ".tmp"); err == nil {
		t.Errorf("%s.tmp left behind", first)
	}
	add(base+5, 3) // a late row of the closed day
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	late, err := readParquet[ClientRow](filepath.Join(dir, "client", "date=2026-12-01", "part-w00-1.parquet"))
	if err != nil || len(late) != 3 {
		t.Errorf("late rows of a closed day: %d rows, %v", len(late), err)
	}
	next, err := readParquet[ClientRow](filepath.Join(dir, "client", "date=2026-12-02", "part-w00.parquet"))
	if err != nil || len(next) != staleRows+batchRows {
		t.Errorf("the next day: %d rows, want %d (%v)", len(next), staleRows+batchRows, err)
	}
}
