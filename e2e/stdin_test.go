package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/ingest"
)

// TestIngestStdin: `kubectl logs … | infertrace ingest --server - --out
// DIR` reads standard input, strips kubectl's prefix and sniffs the format,
// and the manifest names the input (stdin); "-" for two tiers is a usage
// error, as is a bad --prefix.
func TestIngestStdin(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("ingest/testdata/samples/server/tgi_json_output.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var in strings.Builder
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if l != "" {
			in.WriteString("[pod/tgi-5c8d/tgi] 2026-11-30T10:00:00.000000000Z " + l)
		}
	}
	out := t.TempDir()
	code, stdout, stderr := runCLIStdin(t, strings.NewReader(in.String()), "ingest", "--server", "-", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m ingest.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Files) != 1 || m.Files[0].Path != "(stdin)" || m.Files[0].Format != "tgi" || m.Files[0].Prefix != "kubectl+timestamp" ||
		m.Files[0].Rows == 0 || m.Files[0].Rejected != 0 {
		t.Errorf("manifest files: %+v", m.Files)
	}
	code, _, stderr = runCLIStdin(t, strings.NewReader(""), "ingest", "--server", "-", "--client", "-", "--out", t.TempDir())
	if code == 0 || !strings.Contains(stderr, "only one input may be -") {
		t.Errorf("two tiers from stdin: exit %d, %s", code, stderr)
	}
	code, _, stderr = runCLIStdin(t, strings.NewReader(""), "ingest", "--server", "-", "--prefix", "(", "--out", t.TempDir())
	if code != 2 || !strings.Contains(stderr, "--prefix") {
		t.Errorf("bad --prefix: exit %d, %s", code, stderr)
	}
}
