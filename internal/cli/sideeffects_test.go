package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// processState are the names, as package.Name, through which a command
// would reach the state of its process rather than what Run was given:
// the standard streams, the exit, the working directory, the environment
// it sets, signals and the global flag sets. Run's commands run side by
// side in one process (the end-to-end suite runs them so), where any of
// these would leak from one into another or out of the captured output.
var processState = map[string]bool{
	"os.Stdin": true, "os.Stdout": true, "os.Stderr": true, "os.Exit": true,
	"os.Chdir": true, "os.Setenv": true, "os.Unsetenv": true, "os.Clearenv": true,
	"signal.Notify": true, "signal.NotifyContext": true, "signal.Ignore": true, "signal.Reset": true,
	"flag.CommandLine": true, "pflag.CommandLine": true,
	"log.Print": true, "log.Printf": true, "log.Println": true, "log.Fatal": true, "log.Fatalf": true,
	"fmt.Print": true, "fmt.Printf": true, "fmt.Println": true,
}

// TestNoProcessState: no file of the package (tests aside) names any of
// processState; the one place that hands the process's streams to Run is
// cmd/infertrace's main.
func TestNoProcessState(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		imported := map[string]string{} // local name -> import path's last element
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			local := p[strings.LastIndexByte(p, '/')+1:]
			if imp.Name != nil {
				local = imp.Name.Name
			}
			imported[local] = p[strings.LastIndexByte(p, '/')+1:]
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Obj == nil {
				if pkg, ok := imported[x.Name]; ok && processState[pkg+"."+sel.Sel.Name] {
					t.Errorf("%s: %s.%s: a command uses only the streams Run is given and changes no state of the process", fset.Position(sel.Pos()), pkg, sel.Sel.Name)
				}
			}
			return true
		})
	}
	if checked < 10 {
		t.Fatalf("checked only %d files: run from the package's directory", checked)
	}
}
