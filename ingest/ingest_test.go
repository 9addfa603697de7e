package ingest

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/infertrace/infertrace/ingest/internal/rowtext"
	"github.com/infertrace/infertrace/ingest/record"
)

var update = flag.Bool("update", false, "rewrite the want sections of testdata/ingest/*.txtar")

// Each testdata/ingest case holds input files and, under want/, the rows
// read back from the Parquet tables, the rejects and the manifest. The
// "args" section lists one input per line as TIER [FORMAT:]FILE [MAPPING],
// the mapping file relative to the case's directory; an "options" section
// gives Options.FormatOptions, one "KEY VALUE" per line (VALUE is the rest
// of the line). Cases needing options live in options/, with a mapping in
// mapped/.
func TestCases(t *testing.T) {
	var cases []string
	for _, pattern := range []string{"*.txtar", "options/*.txtar", "mapped/*.txtar"} {
		m, _ := filepath.Glob(filepath.Join("../testdata/ingest", pattern))
		cases = append(cases, m...)
	}
	if len(cases) == 0 {
		t.Fatal("no cases in testdata/ingest")
	}
	for _, path := range cases {
		name, _ := filepath.Rel("../testdata/ingest", path)
		t.Run(strings.TrimSuffix(name, ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, got := range runCase(t, path, ar) {
				compareSections(t, path, ar, got)
			}
		})
	}
}

// runCase runs a case with one and with three workers (which must give the
// same tables) and returns the sections each run gives.
func runCase(t *testing.T, path string, ar *txtar.Archive) []map[string]string {
	t.Helper()
	dir := t.TempDir()
	inputs, opts := caseInputs(t, path, ar, dir)
	// The option line "timezone Z1 Z2" gives --timezone Z1 --timezone Z2.
	zones := strings.Fields(opts["timezone"])
	delete(opts, "timezone")
	out := filepath.Join(dir, "out")
	var runs []map[string]string
	for _, workers := range []int{1, 3} {
		m, err := Run(context.Background(), Options{Inputs: inputs, Out: out, Workers: workers, FormatOptions: opts, TimeZones: zones})
		if err != nil {
			t.Fatal(err)
		}
		checkAccounting(t, m)
		runs = append(runs, map[string]string{
			"want/client":   rowtext.Table[ClientRow](t, out, Client, dir),
			"want/gateway":  rowtext.Table[GatewayRow](t, out, Gateway, dir),
			"want/server":   rowtext.Table[ServerRow](t, out, Server, dir),
			"want/rejects":  dumpRejects(t, out, dir),
			"want/manifest": dumpManifest(t, m, dir),
		})
	}
	return runs
}

// writeInput writes one input file of a case. A section named NAME.base64
// holds binary input (collector frames): it is written to NAME as the bytes
// it decodes to, as they are. Sections named *.gz and *.zst hold text that
// is compressed here.
func writeInput(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if name, ok := strings.CutSuffix(path, ".base64"); ok {
		b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(string(data)), ""))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		path, data = name, b
	} else if strings.HasSuffix(path, ".gz") {
		data = gzipBytes(t, data)
	} else if strings.HasSuffix(path, ".zst") {
		data = zstdBytes(t, data)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func compareSections(t *testing.T, path string, ar *txtar.Archive, got map[string]string) {
	t.Helper()
	if *update {
		var files []txtar.File
		for _, f := range ar.Files {
			if _, ok := got[f.Name]; !ok {
				files = append(files, f)
			}
		}
		for _, name := range []string{"want/client", "want/gateway", "want/server", "want/rejects", "want/manifest"} {
			files = append(files, txtar.File{Name: name, Data: []byte(got[name])})
		}
		ar.Files = files
		if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, f := range ar.Files {
		if g, ok := got[f.Name]; ok {
			if g != string(f.Data) {
				t.Errorf("%s differs:\n--- got\n%s--- want\n%s", f.Name, g, f.Data)
			}
			delete(got, f.Name)
		}
	}
	for name, g := range got {
		if g != "" {
			t.Errorf("%s missing from the case; got:\n%s", name, g)
		}
	}
}

func checkAccounting(t *testing.T, m *Manifest) {
	t.Helper()
	for _, f := range m.Files {
		if f.Lines != f.Decoded+f.Rejected+f.Duplicates+f.Blank {
			t.Errorf("%s: lines %d != decoded %d + rejected %d + duplicates %d + blank %d",
				f.Path, f.Lines, f.Decoded, f.Rejected, f.Duplicates, f.Blank)
		}
		if f.Format == record.NativeFormat && f.Rows != f.Decoded {
			t.Errorf("%s: a native line is one row, but %d rows from %d lines", f.Path, f.Rows, f.Decoded)
		}
	}
}

// knownFormats matches the list of formats in an unknown-format message,
// which grows with every format added.
var knownFormats = regexp.MustCompile(`\(known: [^)]*\)`)

func dumpRejects(t *testing.T, out, strip string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "rejects.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.ReplaceAll(b, []byte(strip+string(filepath.Separator)), nil)
	lines := strings.SplitAfter(knownFormats.ReplaceAllString(string(b), "(known: …)"), "\n")
	sort.Strings(lines)
	return strings.Join(lines, "")
}

func dumpManifest(t *testing.T, m *Manifest, strip string) string {
	t.Helper()
	var b strings.Builder
	for _, f := range m.Files {
		fmt.Fprintf(&b, "%s %s %s bytes=%d lines=%d decoded=%d rows=%d rejected=%d duplicates=%d blank=%d",
			f.Tier, f.Format, strings.TrimPrefix(f.Path, strip+string(filepath.Separator)),
			f.Bytes, f.Lines, f.Decoded, f.Rows, f.Rejected, f.Duplicates, f.Blank)
		if f.Error != "" {
			e := strings.ReplaceAll(f.Error, strip+string(filepath.Separator), "")
			fmt.Fprintf(&b, " error=%q", knownFormats.ReplaceAllString(e, "(known: …)"))
		}
		if f.Incomplete {
			b.WriteString(" incomplete")
		}
		if f.TimeZone != "" {
			fmt.Fprintf(&b, " time_zone=%q", f.TimeZone)
		}
		if f.Prefix != "" {
			fmt.Fprintf(&b, " prefix=%s", f.Prefix)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := Run(context.Background(), Options{Inputs: []Input{{Tier: Client, Pattern: filepath.Join(dir, "nope*.jsonl")}}, Out: filepath.Join(dir, "out")})
	if err == nil || !strings.Contains(err.Error(), "matches no files") {
		t.Errorf("missing input: got %v", err)
	}
	for _, w := range []int{-1, MaxWorkers + 1} {
		_, err := Run(context.Background(), Options{Inputs: []Input{{Tier: Client, Pattern: filepath.Join(dir, "*")}}, Out: filepath.Join(dir, "out"), Workers: w})
		if err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("Workers %d: got %v", w, err)
		}
	}
	if _, err := ParseInput(Server, "vllm-nope:x.jsonl"); err == nil || !strings.Contains(err.Error(), "unknown server format") {
		t.Errorf("unknown format: got %v", err)
	}
	if in, err := ParseInput(Server, "native:logs/x.jsonl"); err != nil || in.Format != "native" || in.Pattern != "logs/x.jsonl" {
		t.Errorf("native:logs/x.jsonl: got %+v, %v", in, err)
	}
	if in, err := ParseInput(Server, "./a:b/x.jsonl"); err != nil || in.Format != "" || in.Pattern != "./a:b/x.jsonl" {
		t.Errorf("a path with a colon: got %+v, %v", in, err)
	}

}

// TestParseInputColonPath: a relative path whose part before the first ':'
// is no format name (a log named by its timestamp) is a path; a format
// name, of this tier or another, is still read as FORMAT:GLOB.
func TestParseInputColonPath(t *testing.T) {
	t.Chdir(t.TempDir())
	name := "access-2026-11-30T10:00:00.log"
	os.WriteFile(name, []byte("{}\n"), 0o644)
	if in, err := ParseInput(Gateway, name); err != nil || in.Format != "" || in.Pattern != name {
		t.Errorf("%s: got %+v, %v", name, in, err)
	}
	if in, err := ParseInput(Gateway, "access-*T10:00:*.log"); err != nil || in.Format != "" || in.Pattern != "access-*T10:00:*.log" {
		t.Errorf("a glob with colons: got %+v, %v", in, err)
	}
	// Nothing matches: the prefix was most likely meant as a format.
	if _, err := ParseInput(Gateway, "access-2026-12-01T10:00:00.log"); err == nil ||
		!strings.Contains(err.Error(), `unknown gateway format "access-2026-12-01T10"`) ||
		!strings.Contains(err.Error(), `no file matches "access-2026-12-01T10:00:00.log" either`) {
		t.Errorf("no such file: got %v", err)
	}
	// A format of another tier stays a format, even if such a file exists.
	os.WriteFile("tgi:x.log", []byte("{}\n"), 0o644)
	if _, err := ParseInput(Gateway, "tgi:x.log"); err == nil || !strings.Contains(err.Error(), `unknown gateway format "tgi"`) {
		t.Errorf("tgi:x.log as gateway: got %v", err)
	}
	if in, err := ParseInput(Server, "tgi:x.log"); err != nil || in.Format != "tgi" || in.Pattern != "x.log" {
		t.Errorf("tgi:x.log as server: got %+v, %v", in, err)
	}
}

func TestParseErrorFormat(t *testing.T) {
	err := error(&ParseError{File: "logs/c.jsonl", Line: 7, Err: record.Missing("start")})
	if got, want := err.Error(), "logs/c.jsonl:7: start: missing required field"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if !errors.Is(err, ErrMissingField) || Kind(err) != "missing_field" {
		t.Errorf("errors.Is/Kind do not see the reason through %v", err)
	}
}

// A gzip file cut short (a log copied while it was being rotated) keeps the
// lines decompressed before the cut and records the error in the manifest.
func TestTruncatedGzip(t *testing.T) {
	dir := t.TempDir()
	var plain bytes.Buffer
	for i := range 5000 {
		fmt.Fprintf(&plain, `{"request_id":"r%d","start":1796032800,"end":1796032801,"model":"m%d"}`+"\n", i, i*7919%100003)
	}
	gz := gzipBytes(t, plain.Bytes())
	path := filepath.Join(dir, "c.jsonl.gz")
	os.WriteFile(path, gz[:len(gz)*3/4], 0o644)
	m, err := Run(context.Background(), Options{Inputs: []Input{{Tier: Client, Pattern: path}}, Out: filepath.Join(dir, "out")})
	if err != nil {
		t.Fatal(err)
	}
	f := m.Files[0]
	if f.Error == "" || !strings.Contains(f.Error, "c.jsonl.gz: after line") || !f.Incomplete {
		t.Errorf("no error recorded for a truncated gzip, or not marked incomplete: %+v", f)
	}
	if f.Rows < 1000 || f.Rows >= 5000 {
		t.Errorf("rows before the cut: got %d of 5000", f.Rows)
	}
	checkAccounting(t, m)
}

// TestAppendToEmptyFile: a log that was empty when its batch was ingested
// (a day without traffic) and holds lines under the same name in the next
// batch is new content, not a log that grew: its lines were never read.
func TestAppendToEmptyFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "server.jsonl")
	if err := os.WriteFile(log, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	opt := Options{Inputs: []Input{{Tier: Server, Format: "native", Pattern: log}}, Out: filepath.Join(dir, "store"), Append: true}
	if _, err := Run(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	line := `{"request_id":"r1","arrival":"2026-11-30T10:00:00Z","end":"2026-11-30T10:00:01Z"}` + "\n"
	if err := os.WriteFile(log, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatalf("append of the empty log's new content: %v", err)
	}
	var rows int64
	for _, f := range m.Files {
		rows += f.Rows
	}
	if len(m.Batches) != 2 || m.Added.Files != 1 || rows != 1 {
		t.Errorf("%d batches, added %+v, %d rows: want 2 batches, the file added with its 1 row", len(m.Batches), m.Added, rows)
	}
}
