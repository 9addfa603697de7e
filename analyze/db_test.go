package analyze

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/infertrace/infertrace/internal/duck"
)

// TestOpenInSettings checks what openIn promises about DuckDB's resources:
// the memory limit and threads asked for, the spill directory under the
// output directory, and jemalloc's background threads, without which freed
// pages stay resident beside the buffer pool after every step that spilled.
func TestOpenInSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, done, err := duck.Open(context.Background(), dir, duck.Resources{MemoryLimit: 256 << 20, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	want := map[string]string{
		"memory_limit":                 "256.0 MiB",
		"threads":                      "1",
		"temp_directory":               filepath.Join(dir, duck.TempDirName),
		"allocator_background_threads": "true",
		"preserve_insertion_order":     "false",
	}
	for name, w := range want {
		var got string
		if err := db.QueryRow("SELECT value FROM duckdb_settings() WHERE name = ?", name).Scan(&got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got != w {
			t.Errorf("%s = %q, want %q", name, got, w)
		}
	}
}
