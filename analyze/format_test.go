package analyze

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestReadManifestErrors: a file's error comes without the path that
// starts it, an open error says "cannot open", and only a file whose
// reading stopped is Incomplete.
func TestReadManifestErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"version":2,"files":[
{"tier":"client","path":"logs/a.gz","lines":2991,"error":"logs/a.gz: after line 2990: unexpected EOF","incomplete":true},
{"tier":"client","path":"logs/b","error":"open logs/b: permission denied","incomplete":true},
{"tier":"client","path":"logs/c","lines":3,"rejected":3,"error":"unknown format: no format reads it"},
{"tier":"client","path":"logs/d","lines":3,"incomplete":true}]}`), 0o644)
	in, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		err        string
		incomplete bool
	}{{"after line 2990: unexpected EOF", true}, {"cannot open: permission denied", true}, {"unknown format: no format reads it", false}, {"", false}}
	for i, f := range in.Files {
		if f.Error != want[i].err || f.Incomplete != want[i].incomplete {
			t.Errorf("%s: got %q %v, want %q %v", f.Path, f.Error, f.Incomplete, want[i].err, want[i].incomplete)
		}
	}
	if n, o := len(in.NotRead()), len(in.OtherErrors()); n != 2 || o != 1 {
		t.Errorf("NotRead %d, OtherErrors %d; want 2 and 1", n, o)
	}
}

func TestFormatWindow(t *testing.T) {
	t.Parallel()
	a := time.Date(2026, 3, 1, 23, 59, 59, 999_000_000, time.UTC)
	b := a.Add(1500 * time.Millisecond)
	if got, want := FormatWindow(&a, &a), "2026-03-01 23:59:59.999 – 23:59:59.999 UTC"; got != want {
		t.Errorf("same day: %q, want %q", got, want)
	}
	if got, want := FormatWindow(&a, &b), "2026-03-01 23:59:59.999 – 2026-03-02 00:00:01.499 UTC"; got != want {
		t.Errorf("across days: %q, want %q", got, want)
	}
	if got := FormatWindow(nil, &b); got != "–" {
		t.Errorf("empty window: %q", got)
	}
}
