package ingest

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLayering keeps the packages of ingest in their order: record at the
// bottom, scan on it, the readers of formats on both, and the pipeline
// (ingest) on record and scan but on no reader; formats never sees the
// pipeline. A reader then is one file of ingest/formats, and the pipeline
// knows formats only through record's registry.
func TestLayering(t *testing.T) {
	const mod = "github.com/infertrace/infertrace/"
	allowed := map[string][]string{
		".":       {"ingest/record", "ingest/scan", "ingest/textsafe"},
		"record":  {"ingest/textsafe"},
		"scan":    {"ingest/record", "ingest/textsafe"},
		"formats": {"ingest/record", "ingest/scan", "ingest/textsafe"},
	}
	for dir, ok := range allowed {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				rest, ours := strings.CutPrefix(path, mod)
				if !ours {
					continue
				}
				found := false
				for _, a := range ok {
					found = found || rest == a
				}
				if !found {
					t.Errorf("%s imports %s; %s may import only %v of infertrace", file, path, dir, ok)
				}
			}
		}
	}
}
