package ingest

import (
	"context"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/infertrace/infertrace/ingest/record"
)

// TestRunRestoresGCPercent: Run lowers the collector's target only while it
// works, and leaves a GOGC given in the environment alone.
func TestRunRestoresGCPercent(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "a.jsonl")
	os.WriteFile(in, []byte(`{"request_id":"r1","arrival":1796032800,"end":1796032801}`+"\n"), 0o644)
	run := func() {
		t.Helper()
		if _, err := Run(context.Background(), Options{Out: filepath.Join(dir, "out"),
			Inputs: []Input{{Tier: Server, Format: record.NativeFormat, Pattern: in}}}); err != nil {
			t.Fatal(err)
		}
	}
	defer debug.SetGCPercent(debug.SetGCPercent(123))
	t.Setenv("GOGC", "")
	os.Unsetenv("GOGC")
	run()
	if got := debug.SetGCPercent(123); got != 123 {
		t.Errorf("after Run the GC percent is %d, want the caller's 123", got)
	}
	// Two overlapping runs: the caller's setting is back only after both.
	end1 := tuneGC()
	end2 := tuneGC()
	if now := debug.SetGCPercent(gcPercent); now != gcPercent {
		t.Errorf("during a run the GC percent is %d, want %d", now, gcPercent)
	}
	end1()
	if now := debug.SetGCPercent(gcPercent); now != gcPercent {
		t.Errorf("with a run still under way the GC percent is %d, want %d", now, gcPercent)
	}
	end2()
	if got := debug.SetGCPercent(123); got != 123 {
		t.Errorf("after both runs the GC percent is %d, want the caller's 123", got)
	}
	t.Setenv("GOGC", "400")
	restore := tuneGC()
	if now := debug.SetGCPercent(123); now != 123 {
		t.Errorf("with GOGC set, tuneGC changed the GC percent to %d", now)
	}
	restore()
}
