package qualify

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"
)

// TestNoStageContainerIsOrdered: a failed claim must stop only its own row's later claims. An
// Ordered container around a stage's rows skips every later row and the refusal probe after one
// failure, and those rows record no result (a fresh qualify read "11 of 12 rows" for it). Every
// stage suite declares its container through Suite.Describe, and nothing in the suites' files or
// in Suite.Describe passes Ordered to a container but the rows' own (full, recorded, the probe).
func TestNoStageContainerIsOrdered(t *testing.T) {
	files, err := filepath.Glob("../*/*_suite_test.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("stage suites: %v (%d files)", err, len(files))
	}
	for _, path := range files {
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		declares := false
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Describe" {
				recv, ok := sel.X.(*ast.Ident)
				declares = declares || (ok && recv.Name == "suite")
			}
			if passesOrdered(call) {
				t.Errorf("%s: %s is given Ordered: a stage's rows must not share an ordered container", path, callName(call))
			}
			return true
		})
		if !declares {
			t.Errorf("%s declares no stage container through suite.Describe", path)
		}
	}
	f, err := parser.ParseFile(token.NewFileSet(), "qualify.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	// In qualify.go only the containers of one row or of the probe are Ordered: the stage's own
	// (Describe), Declare and Checkpoints, which hold every row, never are.
	rowsOwn := map[string]bool{"full": true, "recorded": true, "refusalProbe": true}
	found := 0
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv == nil {
			continue
		}
		if fn.Name.Name == "Describe" || fn.Name.Name == "Declare" || fn.Name.Name == "Checkpoints" {
			found++
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok && passesOrdered(call) && !rowsOwn[fn.Name.Name] {
				t.Errorf("Suite.%s passes Ordered to %s: only one row's (or the probe's) container may be Ordered", fn.Name.Name, callName(call))
			}
			return true
		})
	}
	if found != 3 {
		t.Fatalf("qualify.go: found %d of Suite.Describe, Declare and Checkpoints", found)
	}
}

func passesOrdered(call *ast.CallExpr) bool {
	for _, a := range call.Args {
		if id, ok := a.(*ast.Ident); ok && id.Name == "Ordered" {
			return true
		}
	}
	return false
}

func callName(call *ast.CallExpr) string {
	switch fn := call.Fun.(type) {
	case *ast.Ident:
		return fn.Name
	case *ast.SelectorExpr:
		return fn.Sel.Name
	}
	return "a call"
}
