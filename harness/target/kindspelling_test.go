package target

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// kindSpellingAllowed are the places outside this package that may compare a kind's name, each
// with why.
var kindSpellingAllowed = map[string]string{
	"harness/contract/refusal.go": "RefusalOf is the registry of each kind's documented refusal; contract sits below " +
		"target (target imports it), so it is keyed by the kind's name and Kind.Refusal is how code asks",
	"harness/plan/plan.go": "compares a server image value with the placeholder \"reference\" (the image built here), " +
		"not a target kind",
}

// TestNoTargetKindIsComparedByName fails on a target kind's name ("reference", "trtmc")
// compared with == or != or used as a switch case outside this package (tests excepted): code
// asks a Kind (Embedded, InCheckout, RecordsOmitInputFields, Refusal) what differs by kind.
func TestNoTargetKindIsComparedByName(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || rel == "harness/target" {
				return filepath.SkipDir
			}
			return nil
		}
		if _, ok := kindSpellingAllowed[rel]; ok || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		found = append(found, kindComparisons(t, path, rel)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("target kind compared by name: %s", f)
	}
}

// The check must catch each form it claims to.
func TestKindComparisonsAreFound(t *testing.T) {
	src := `package p
func f(kind string) {
	_ = kind == "trtmc"
	_ = "reference" != kind
	switch kind { case "trtmc": }
	_ = kind == "other"
}`
	path := filepath.Join(t.TempDir(), "p.go")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := kindComparisons(t, path, "p.go"); len(got) != 3 {
		t.Fatalf("found %d comparisons, want 3: %v", len(got), got)
	}
}

func kindComparisons(t *testing.T, path, rel string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatalf("parse %s: %v", rel, err)
	}
	var out []string
	check := func(e ast.Expr, how string) {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return
		}
		s, _ := strconv.Unquote(lit.Value)
		for _, k := range kinds() {
			if s == string(k) {
				out = append(out, fmt.Sprintf("%s:%d: %s %q", rel, fset.Position(e.Pos()).Line, how, s))
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CaseClause:
			for _, e := range n.List {
				check(e, "switch case")
			}
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				check(n.X, "comparison with")
				check(n.Y, "comparison with")
			}
		}
		return true
	})
	return out
}
