package infertrace_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// floors is the house of infertrace, top to bottom: a package imports only
// packages on floors below its own, so data flows one way, from the command
// through ingest and the store to the analyses and the report. Every
// package of the module stands on one floor (docs/architecture.md draws
// them). e2e, the end-to-end suite, stands above the command: it may import
// anything, nothing imports it; it runs the command line (internal/cli) in
// its own process as well as the built binary (cmd/infertrace).
var floors = [][]string{
	{"e2e"},
	{"cmd/infertrace"},
	{"internal/cli"},
	{"report"},
	{"compare", "explain", "whatif"},
	{"analyze", "ingest/ingesttest"},
	{"ingest"},
	{"ingest/formats"},
	{"ingest/scan", "ingest/internal/rowtext"},
	{"ingest/record", "ingest/objstore", "internal/duck", "contract"},
	{"queries", "simulate", "internal/textsafe", "internal/strictconf", "internal/suggest", "internal/teststack", "analyze/analyzetest",
		"bench/expert", "bench/duckdbcopy"},
}

// TestLayering checks every package of the module against floors: it
// stands on one floor and imports infertrace packages only from floors
// below it.
func TestLayering(t *testing.T) {
	t.Parallel()
	const mod = "github.com/infertrace/infertrace/"
	floor := map[string]int{}
	for i, f := range floors {
		for _, p := range f {
			floor[p] = len(floors) - i
		}
	}
	imports := map[string]map[string]bool{} // package dir -> infertrace packages it imports
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		if dir == "." {
			return nil // the root holds only tests
		}
		if imports[dir] == nil {
			imports[dir] = map[string]bool{}
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if rest, ours := strings.CutPrefix(p, mod); ours {
				imports[dir][rest] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(imports) < 10 {
		t.Fatalf("found only %d packages: run from the module root", len(imports))
	}
	dirs := make([]string, 0, len(imports))
	for d := range imports {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		fl, ok := floor[d]
		if !ok {
			t.Errorf("package %s stands on no floor: add it to floors in layering_test.go and to docs/architecture.md", d)
			continue
		}
		for imp := range imports[d] {
			if fi, ok := floor[imp]; !ok || fi >= fl {
				t.Errorf("%s (floor %d) imports %s (floor %d): a package imports only from the floors below it", d, fl, imp, fi)
			}
		}
	}
	for p := range floor {
		if imports[p] == nil {
			t.Errorf("floors lists %s, which is no package of the module", p)
		}
	}
}
