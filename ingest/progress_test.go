package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// recorder is a Progress that keeps what it was told.
type recorder struct {
	mu           sync.Mutex
	starts       []int64
	bytes, lines int64
	onLines      func() // called, outside the lock, by a Read with lines
}

func (r *recorder) Start(total int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.starts = append(r.starts, total)
}

func (r *recorder) Read(bytes, lines int64) {
	r.mu.Lock()
	r.bytes += bytes
	r.lines += lines
	r.mu.Unlock()
	if lines > 0 && r.onLines != nil {
		r.onLines()
	}
}

// TestProgressCounts: Run tells Progress the inputs' size on disk once,
// before reading, then every byte read from disk (a compressed file's
// compressed bytes) and every line, blank and duplicate ones included: the
// manifest's Lines.
func TestProgressCounts(t *testing.T) {
	dir := t.TempDir()
	line := `{"request_id":"r%d","start":1796032800,"end":1796032801}` + "\n"
	plain := strings.Repeat(strings.Replace(line, "%d", "1", 1), 2) + "\n" + strings.Replace(line, "%d", "2", 1) // 4 lines: a duplicate, a blank
	// Over a chunk, so that lines are told as chunks are cut: 20000 lines.
	var big strings.Builder
	for i := range 20000 {
		big.WriteString(strings.Replace(line, "%d", strings.Repeat("x", i%7), 1))
	}
	gz := gzipBytes(t, []byte(big.String()))
	os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(plain), 0o644)
	os.WriteFile(filepath.Join(dir, "b.jsonl.gz"), gz, 0o644)
	var p recorder
	m, err := Run(context.Background(), Options{Out: filepath.Join(dir, "out"), Workers: 2, Progress: &p,
		Inputs: []Input{{Tier: Client, Pattern: filepath.Join(dir, "*.jsonl*")}}})
	if err != nil {
		t.Fatal(err)
	}
	total := int64(len(plain) + len(gz))
	if len(p.starts) != 1 || p.starts[0] != total {
		t.Errorf("Start: %v, want once with %d", p.starts, total)
	}
	if p.bytes != total {
		t.Errorf("bytes read: %d, want %d", p.bytes, total)
	}
	if p.lines != 4+20000 || m.Totals().Lines != p.lines {
		t.Errorf("lines: %d, want 20004 (manifest: %d)", p.lines, m.Totals().Lines)
	}
}

// TestInterruptedRunLeavesNoParts: a run whose ctx ends part-way (Ctrl-C)
// leaves no part file, complete or not, of the inputs it had read: without
// a manifest they would be a table of some of the inputs under its final
// name. Here the first input, a document format, is decoded and its part
// closed before the run is interrupted while it reads the second.
func TestInterruptedRunLeavesNoParts(t *testing.T) {
	dir := t.TempDir()
	doc := `{"date": "20261130-110000", "backend": "vllm", "model_id": "m2", "duration": 1.0, "completed": 1, "failed": 0, "input_lens": [32], "output_lens": [16], "ttfts": [0.05], "latencies": [0.2], "errors": [""]}` + "\n"
	os.WriteFile(filepath.Join(dir, "a.json"), []byte(doc), 0o644)
	os.WriteFile(filepath.Join(dir, "b.jsonl"), []byte(`{"request_id":"r1","start":1796032800,"end":1796032801}`+"\n"), 0o644)
	ctx, cancel := context.WithCancelCause(context.Background())
	interrupted := errors.New("interrupted")
	p := &recorder{onLines: func() { cancel(interrupted) }}
	out := filepath.Join(dir, "out")
	_, err := Run(ctx, Options{Out: out, Workers: 1, Progress: p, Inputs: []Input{
		{Tier: Client, Format: "vllm-bench", Pattern: filepath.Join(dir, "a.json")},
		{Tier: Client, Pattern: filepath.Join(dir, "b.jsonl")},
	}})
	if !errors.Is(err, interrupted) {
		t.Fatalf("Run: %v, want the interruption", err)
	}
	var left []string
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(out, p)
			left = append(left, rel)
		}
		return nil
	})
	if len(left) != 0 {
		t.Errorf("an interrupted run left %v", left)
	}
}
