package ingest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestByteOrderMark: a UTF-8 byte order mark at the start of a file, plain
// or inside gzip, costs no line: both lines decode. One elsewhere is data.
func TestByteOrderMark(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lines := []byte(`{"request_id":"r1","start":1796032800,"end":1796032801}` + "\n" +
		`{"request_id":"r2","start":1796032802,"end":1796032803}` + "\n")
	bom := append([]byte{0xef, 0xbb, 0xbf}, lines...)
	os.WriteFile(filepath.Join(dir, "a.jsonl"), bom, 0o644)
	os.WriteFile(filepath.Join(dir, "b.jsonl.gz"), gzipBytes(t, bom), 0o644)
	for _, name := range []string{"a.jsonl", "b.jsonl.gz"} {
		for _, format := range []string{"", "native"} { // sniffed and named
			m, err := Run(context.Background(), Options{Inputs: []Input{{Tier: Client, Format: format, Pattern: filepath.Join(dir, name)}}, Out: filepath.Join(dir, "out")})
			if err != nil {
				t.Fatal(err)
			}
			if f := m.Files[0]; f.Lines != 2 || f.Rows != 2 || f.Rejected != 0 || f.Error != "" {
				t.Errorf("%s (format %q): %+v, want 2 lines, 2 rows", name, format, f)
			}
		}
	}
}

// TestLineLengthLimit: a line of exactly MaxLineBytes (without its '\n')
// is read, as the docs say; one byte more is rejected as line_too_long and
// the file goes on; at the end of a file without a '\n' likewise.
func TestLineLengthLimit(t *testing.T) {
	t.Parallel()
	line := func(id string, n int) []byte {
		head := fmt.Sprintf(`{"request_id":%q,"start":1796032800,"end":1796032801,"pad":"`, id)
		return append(append([]byte(head), bytes.Repeat([]byte{'x'}, n-len(head)-2)...), '"', '}')
	}
	exact, over := line("exact", MaxLineBytes), line("over", MaxLineBytes+1)
	if len(exact) != MaxLineBytes || len(over) != MaxLineBytes+1 {
		t.Fatalf("generated %d and %d bytes", len(exact), len(over))
	}
	short := []byte(`{"request_id":"short","start":1796032800,"end":1796032801}`)
	after := []byte(`{"request_id":"after","start":1796032800,"end":1796032801}`)
	dir := t.TempDir()
	for _, c := range []struct {
		name                 string
		data                 [][]byte
		rows, rejected, line int64
	}{
		{"exact", [][]byte{exact, short, {}}, 2, 0, 0},
		{"over", [][]byte{short, over, after, {}}, 2, 1, 2},
		{"exact-at-end", [][]byte{short, exact}, 2, 0, 0},
		{"over-at-end", [][]byte{short, over}, 1, 1, 2},
	} {
		path := filepath.Join(dir, c.name+".jsonl")
		os.WriteFile(path, bytes.Join(c.data, []byte{'\n'}), 0o644)
		out := filepath.Join(dir, "out-"+c.name)
		m, err := Run(context.Background(), Options{Inputs: []Input{{Tier: Client, Format: "native", Pattern: path}}, Out: out, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		f := m.Files[0]
		if f.Rows != c.rows || f.Rejected != c.rejected || f.Error != "" {
			t.Errorf("%s: %d rows, %d rejected, error %q; want %d, %d", c.name, f.Rows, f.Rejected, f.Error, c.rows, c.rejected)
		}
		if c.rejected > 0 {
			rej, _ := os.ReadFile(filepath.Join(out, "rejects.jsonl"))
			if want := fmt.Sprintf(`"line":%d,"kind":"line_too_long"`, c.line); !strings.Contains(string(rej), want) {
				t.Errorf("%s: rejects %.200s, want %s", c.name, rej, want)
			}
		}
	}
}
