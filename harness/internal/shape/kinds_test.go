package shape

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kindNames are the constants of harness/target that name a kind.
var kindNames = map[string]bool{"Reference": true, "TRTMC": true}

// TestNoKindIsDecidedOnOutsideTheTarget fails on code outside harness/target (tests excepted)
// that decides by a target kind's name rather than asking its target.Traits: naming a kind's
// constant (target.Reference, target.TRTMC), converting a name to a target.Kind, keying a map by
// target.Kind, or switching on a kind. (Spelling a kind's name as a string is
// TestNoTargetKindIsComparedByName's.)
func TestNoKindIsDecidedOnOutsideTheTarget(t *testing.T) {
	inTarget := func(rel string) bool { return rel == "harness/target" }
	for _, f := range sourcesFound(t, inTarget, func(path, rel string) []string { return kindDecisions(t, path, rel) }) {
		t.Errorf("a target kind decided on outside harness/target (ask its Traits): %s", f)
	}
}

// The check must catch each form it claims to, and leave alone asking the traits and comparing
// two recorded kinds.
func TestKindDecisionsAreFound(t *testing.T) {
	src := `package p
import tg "github.com/trtmc-qual/trtmc-qual/harness/target"
func f(t *tg.Target, s struct{ TargetKind string }, recorded, other string) {
	_ = t.Kind == tg.Reference
	_ = tg.Kind(recorded)
	_ = map[tg.Kind]int{}
	switch t.Kind { }
	switch s.TargetKind { }
	_ = t.Traits().Embedded() || tg.TraitsOf(recorded).InCheckout()
	_ = recorded == other
	_ = string(t.Kind)
}`
	path := filepath.Join(t.TempDir(), "p.go")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := kindDecisions(t, path, "p.go"); len(got) != 5 {
		t.Fatalf("found %d decisions, want 5 (a constant, a conversion, a map key, a switch on .Kind and on .TargetKind):\n%s", len(got), strings.Join(got, "\n"))
	}
}

// kindDecisions lists the places in one file that decide by a kind's name.
func kindDecisions(t *testing.T, path, r string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse %s: %v", r, err)
	}
	pkg := ""
	for name, p := range importNames(f) {
		if p == "harness/target" {
			pkg = name
		}
	}
	var out []string
	at := func(n ast.Node, what string) {
		out = append(out, fmt.Sprintf("%s:%d: %s", r, fset.Position(n.Pos()).Line, what))
	}
	isTarget := func(e ast.Expr, names func(string) bool) bool {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok || pkg == "" {
			return false
		}
		x, ok := sel.X.(*ast.Ident)
		return ok && x.Name == pkg && names(sel.Sel.Name)
	}
	isKindType := func(name string) bool { return name == "Kind" }
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if isTarget(n, func(s string) bool { return kindNames[s] }) {
				at(n, "names the kind "+n.Sel.Name)
			}
		case *ast.CallExpr:
			if isTarget(n.Fun, isKindType) {
				at(n, "converts a name to a target.Kind")
			}
		case *ast.MapType:
			if isTarget(n.Key, isKindType) {
				at(n, "keys a map by target.Kind")
			}
		case *ast.SwitchStmt:
			// A .Kind is a target's only where the file imports harness/target; a .TargetKind is
			// the kind evidence records, anywhere.
			if sel, ok := n.Tag.(*ast.SelectorExpr); ok && ((pkg != "" && sel.Sel.Name == "Kind") || sel.Sel.Name == "TargetKind") {
				at(n, "switches on a kind")
			}
		}
		return true
	})
	return out
}
