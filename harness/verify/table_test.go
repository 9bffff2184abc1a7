package verify

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// TestEachCheckIsItsOwnFile: every entry of the checks table is a function of this package
// defined in a file of its own (no two entries share a file), so a new check is one file and one
// line in the table.
func TestEachCheckIsItsOwnFile(t *testing.T) {
	fset := token.NewFileSet()
	entries := map[string]bool{}
	defined := map[string]string{} // function → file
	files, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, fi := range files {
		name := fi.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil {
				continue
			}
			defined[fn.Name.Name] = name
			if fn.Name.Name != "checks" {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if lit, ok := n.(*ast.CompositeLit); ok {
					for _, e := range lit.Elts {
						if id, ok := e.(*ast.Ident); ok {
							entries[id.Name] = true
						}
					}
				}
				return true
			})
		}
	}
	if len(entries) != len(checks()) {
		t.Fatalf("read %d entries of checks(), it holds %d", len(entries), len(checks()))
	}
	files2 := map[string]string{}
	for e := range entries {
		file, ok := defined[e]
		switch {
		case !ok:
			t.Errorf("check %s is not a function of this package", e)
		case files2[file] != "":
			t.Errorf("checks %s and %s share %s", e, files2[file], file)
		default:
			files2[file] = e
		}
	}
}
