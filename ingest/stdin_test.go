package ingest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStdinInput: the input "-" reads Options.Stdin as a file: its format
// sniffed, a collector's prefix stripped, gzip undone, and the manifest
// naming it (stdin) with the bytes read; it is the same rows as the file.
func TestStdinInput(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/samples/server/tgi_json_output.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file, err := Run(context.Background(), Options{Inputs: []Input{{Tier: Server, Pattern: "testdata/samples/server/tgi_json_output.jsonl"}}, Out: filepath.Join(dir, "file")})
	if err != nil {
		t.Fatal(err)
	}
	want := file.Files[0]
	kubectl := wrapLines(data, func(int) string { return "[pod/tgi-5c8d/tgi] " })
	for _, c := range []struct {
		name, prefix string
		in           []byte
	}{
		{"plain", "", data},
		{"kubectl logs --prefix", "kubectl", kubectl},
		{"gzip", "", gzipBytes(t, data)},
	} {
		m, err := Run(context.Background(), Options{Inputs: []Input{{Tier: Server, Pattern: "-"}}, Stdin: bytes.NewReader(c.in), Out: filepath.Join(dir, "stdin")})
		if err != nil {
			t.Fatal(err)
		}
		got := m.Files[0]
		if got.Path != "(stdin)" || got.Format != want.Format || got.Rows != want.Rows || got.Lines != want.Lines ||
			got.Rejected != 0 || got.Prefix != c.prefix || got.Bytes != int64(len(c.in)) || got.Fingerprint == "" || got.Error != "" {
			t.Errorf("%s: %+v\nwant the rows of %+v, prefix %q, %d bytes", c.name, got, want, c.prefix, len(c.in))
		}
	}
	// Named format, and standard input for one tier only.
	m, err := Run(context.Background(), Options{Inputs: []Input{{Tier: Server, Format: want.Format, Pattern: "-"}}, Stdin: bytes.NewReader(data), Out: filepath.Join(dir, "named")})
	if err != nil || m.Files[0].Rows != want.Rows {
		t.Errorf("FORMAT:-: %v %+v", err, m)
	}
	_, err = Run(context.Background(), Options{Inputs: []Input{{Tier: Server, Pattern: "-"}, {Tier: Client, Pattern: "-"}}, Stdin: bytes.NewReader(data), Out: filepath.Join(dir, "two")})
	if err == nil || !strings.Contains(err.Error(), "only one input may be -") {
		t.Errorf("two tiers from stdin: %v", err)
	}
}

// TestStdinAppend: standard input can be a batch of a store; the same
// content piped again is not counted twice (the run is refused).
func TestStdinAppend(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/samples/server/tgi_json_output.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "store")
	opt := Options{Inputs: []Input{{Tier: Server, Pattern: "-"}}, Out: out, Append: true}
	opt.Stdin = bytes.NewReader(data)
	m, err := Run(context.Background(), opt)
	if err != nil || len(m.Files) != 1 || m.Files[0].Rows == 0 {
		t.Fatalf("first batch: %v %+v", err, m)
	}
	opt.Stdin = bytes.NewReader(data)
	if _, err := Run(context.Background(), opt); err == nil || !strings.Contains(err.Error(), "same content") {
		t.Errorf("the same input again: %v, want it refused", err)
	}
	if m, err := ReadManifest(out); err != nil || len(m.Files) != 1 {
		t.Errorf("the store after the refused batch: %v %+v", err, m)
	}
}
