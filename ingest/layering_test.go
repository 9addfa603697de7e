package ingest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
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
		".":        {"ingest/record", "ingest/scan", "ingest/objstore", "internal/textsafe"},
		"objstore": {},
		"record":   {"internal/textsafe"},
		"scan":     {"ingest/record", "internal/textsafe"},
		"formats":  {"ingest/record", "ingest/scan", "internal/textsafe", "internal/strictconf"},
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

// TestReadersSelfContained keeps each reader of ingest/formats to its own
// file: a package-level name (func, type, var, const) defined in a reader's
// file is used by no file of formats outside its family, so a reader can
// be added or removed alone. A reader's file is one whose init registers a
// format (record.Register*, registerOTel); its family is the files whose
// names share its stem before the first '_' (tgi.go and tgi_text.go, the
// vllm_*.go readers of one server's outputs). Helpers shared by readers of
// different families live in files that register nothing (loadgen.go,
// server.go, text.go, accesslog.go, otlp.go...) or in ingest/scan.
func TestReadersSelfContained(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("formats", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	parsed := map[string]*ast.File{}
	defined := map[string]string{} // name -> reader file defining it
	var names []string
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed[file] = f
		names = append(names, file)
		if !registers(f) {
			continue
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.Name != "init" {
					defined[d.Name.Name] = file
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						defined[s.Name.Name] = file
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.Name != "_" {
								defined[n.Name] = file
							}
						}
					}
				}
			}
		}
	}
	if len(defined) == 0 {
		t.Fatal("no reader file found in formats")
	}
	sort.Strings(names)
	for _, file := range names {
		seen := map[string]bool{}
		for _, id := range parsed[file].Unresolved {
			owner, ok := defined[id.Name]
			if !ok || family(owner) == family(file) || seen[id.Name] {
				continue
			}
			seen[id.Name] = true
			t.Errorf("%s uses %s, defined in the reader %s: move it to a shared file of formats or to ingest/scan", file, id.Name, owner)
		}
	}
}

// registers reports whether f's init registers a format.
func registers(f *ast.File) bool {
	found := false
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || fn.Name.Name != "init" || fn.Body == nil {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fun := call.Fun
			if ix, ok := fun.(*ast.IndexExpr); ok {
				fun = ix.X
			}
			var name string
			switch fun := fun.(type) {
			case *ast.Ident:
				name = fun.Name
			case *ast.SelectorExpr:
				name = fun.Sel.Name
			}
			if strings.HasPrefix(name, "Register") || strings.HasPrefix(name, "register") {
				found = true
			}
			return true
		})
	}
	return found
}

// family is the stem of a file of formats before the first '_' or '.'.
func family(file string) string {
	base := filepath.Base(file)
	if i := strings.IndexAny(base, "_."); i >= 0 {
		return base[:i]
	}
	return base
}
