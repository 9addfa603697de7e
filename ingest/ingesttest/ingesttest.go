// Package ingesttest holds what the command's tests and the end-to-end
// suite check of a store an infertrace run left: no half-written file, and
// every file complete and of the ingest whose manifest is there.
package ingesttest

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/infertrace/infertrace/ingest"
)

// OutputState checks what an infertrace run, complete or interrupted, left
// in dir: no file under a temporary name, and every file under its final
// name complete and of the ingest whose manifest.json is there (or, without
// a manifest, none at all). It returns the final names present.
func OutputState(t testing.TB, dir string) map[string]bool {
	t.Helper()
	present := map[string]bool{}
	partRows := map[ingest.Tier]int64{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case strings.HasSuffix(rel, ".tmp"):
			t.Errorf("%s is left under a temporary name", rel)
		case rel == ingest.LockFile:
		case strings.HasSuffix(rel, ".parquet") && strings.Contains(rel, "part-"):
			present["parts"] = true
			partRows[ingest.Tier(strings.Split(filepath.ToSlash(rel), "/")[0])] += ParquetFile(t, p).NumRows()
		default:
			present[rel] = true
		}
		return nil
	})
	m, err := ingest.ReadManifest(dir)
	if err != nil {
		for name := range present {
			t.Errorf("%s is left without a manifest.json (%v)", name, err)
		}
		return present
	}
	if !present["rejects.jsonl"] {
		t.Error("manifest.json without rejects.jsonl")
	}
	manifestRows := map[ingest.Tier]int64{}
	for _, f := range m.Files {
		manifestRows[f.Tier] += f.Rows
	}
	for _, tier := range ingest.Tiers {
		if partRows[tier] != manifestRows[tier] {
			t.Errorf("%s parts hold %d rows, the manifest says %d", tier, partRows[tier], manifestRows[tier])
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "manifest.json"))
	sum := sha256.Sum256(b)
	if present["requests.parquet"] {
		if got, _ := ParquetFile(t, filepath.Join(dir, "requests.parquet")).Lookup("infertrace_manifest_sha256"); got != hex.EncodeToString(sum[:]) {
			t.Errorf("requests.parquet is of another manifest.json (%s)", got)
		}
	}
	for name, end := range map[string]string{
		"report.md":   "keeps its latest attempt per tier.\n",
		"report.html": "</html>\n",
		"report.json": "\n}\n",
	} {
		if !present[name] {
			continue
		}
		if !present["requests.parquet"] {
			t.Errorf("%s without requests.parquet", name)
		}
		r, _ := os.ReadFile(filepath.Join(dir, name))
		if !strings.HasSuffix(string(r), end) {
			t.Errorf("%s is incomplete: it ends %q", name, r[max(0, len(r)-80):])
		}
		for _, f := range m.Files {
			if !strings.Contains(string(r), f.Path) {
				t.Errorf("%s does not name %s, an input of the manifest", name, f.Path)
			}
		}
	}
	return present
}

// ParquetFile opens the Parquet file at path, closed when the test ends.
func ParquetFile(t testing.TB, path string) *parquet.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return pf
}

// CopyDir copies an output directory (a store, its analysis and report)
// into a new directory of the test's and returns its path.
func CopyDir(t testing.TB, from string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), "out")
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
	return to
}
