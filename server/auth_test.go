package server

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net/http/httptest"
	"testing"
)

func TestKeyMatches(t *testing.T) {
	s := &Server{cfg: Config{APIKey: "s3cret"}}
	for header, want := range map[string]bool{
		"Bearer s3cret": true, "Bearer s3cre": false, "Bearer s3crett": false, "Bearer S3cret": false,
		"s3cret": false, "Bearer ": false, "": false, "Basic s3cret": false,
		"bearer s3cret": true, "BEARER s3cret": true, "Bearer  s3cret": true, "Bearers3cret": false, "Bearer\ts3cret": false,
	} {
		r := httptest.NewRequest("GET", "/v1/models", nil)
		if header != "" {
			r.Header.Set("Authorization", header)
		}
		if got := s.keyMatches(r); got != want {
			t.Errorf("Authorization %q: %v, want %v", header, got, want)
		}
	}
}

// TestKeyComparisonIsConstantTime reads keyMatches' source: it must compare through
// crypto/subtle.ConstantTimeCompare and hold no other comparison of non-constant values (==,
// !=, bytes.Equal, strings.Compare, ...), which would return at the first differing byte.
func TestKeyComparisonIsConstantTime(t *testing.T) {
	file, err := parser.ParseFile(token.NewFileSet(), "auth.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var fn *ast.FuncDecl
	for _, d := range file.Decls {
		if f, ok := d.(*ast.FuncDecl); ok && f.Name.Name == "keyMatches" {
			fn = f
		}
	}
	if fn == nil {
		t.Fatal("auth.go has no keyMatches")
	}
	subtleCalls := 0
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch e := n.(type) {
		case *ast.CallExpr:
			if sel, ok := e.Fun.(*ast.SelectorExpr); ok {
				pkg, _ := sel.X.(*ast.Ident)
				switch {
				case pkg != nil && pkg.Name == "subtle" && sel.Sel.Name == "ConstantTimeCompare":
					subtleCalls++
				case pkg != nil && (pkg.Name == "bytes" || pkg.Name == "strings" || pkg.Name == "reflect") &&
					(sel.Sel.Name == "Equal" || sel.Sel.Name == "Compare" || sel.Sel.Name == "EqualFold" || sel.Sel.Name == "DeepEqual"):
					t.Errorf("keyMatches compares with %s.%s, which is not constant-time", pkg.Name, sel.Sel.Name)
				}
			}
		case *ast.BinaryExpr:
			_, lit1 := e.X.(*ast.BasicLit)
			_, lit2 := e.Y.(*ast.BasicLit)
			if (e.Op == token.EQL || e.Op == token.NEQ) && !lit1 && !lit2 {
				t.Errorf("keyMatches compares two non-constant values with %s", e.Op)
			}
		}
		return true
	})
	if subtleCalls != 1 {
		t.Errorf("keyMatches calls subtle.ConstantTimeCompare %d times, want 1", subtleCalls)
	}
}
