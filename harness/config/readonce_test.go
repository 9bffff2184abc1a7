package config

import (
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

// readers may read QUAL_* themselves, each with why.
var readers = map[string]string{
	"harness/config": "the one reader (harness/config/machine included: qual sign and the leaf tests read it without a checkout)",
	"harness/shard":  "reads QUAL_SHARD and the CI engines' index variables through the getenv harness/config passes it; its only caller is harness/config",
}

// TestQUALIsReadOnlyInConfig fails on a read of a QUAL_* name in a non-test file outside
// harness/config: os.Getenv, os.LookupEnv, or any getenv-like function given a QUAL_* literal
// (or a concatenation starting with one); os.Getenv or os.LookupEnv handed on as a value; and
// any function taking an environment-reading parameter (named getenv or lookupEnv, or a
// func(string) string named for the environment), since that is how a package reads the
// environment while looking as if it did not.
func TestQUALIsReadOnlyInConfig(t *testing.T) {
	walkNonTestGo(t, func(rel, path string) {
		if reader(rel) {
			return
		}
		for _, line := range qualReads(t, path) {
			t.Errorf("%s:%d reads a QUAL_* variable outside harness/config", rel, line)
		}
	})
}

// TestTheReadCheckCatchesEveryShape runs the check on the shapes a read can take, so that it
// is known to fail on each.
func TestTheReadCheckCatchesEveryShape(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"osgetenv":   `package p; import "os"; var v = os.Getenv("QUAL_X")`,
		"lookupenv":  `package p; import "os"; func f() { os.LookupEnv("QUAL_X") }`,
		"param":      `package p; func f(getenv func(string) string) string { return getenv("QUAL_X") }`,
		"concat":     `package p; import "os"; func f(k string) string { return os.Getenv("QUAL_TRTMC_" + k) }`,
		"paramonly":  `package p; func f(getenv func(string) string) {}`,
		"method":     `package p; type T struct{}; func (T) Values(lookupEnv func(string) (string, bool)) {}`,
		"otherparam": `package p; func f(env func(string) string) {}`,
		"asvalue":    `package p; import "os"; func f(g func(func(string) string)) { g(os.Getenv) }`,
	} {
		path := filepath.Join(dir, name+".go")
		if err := writeFile(path, src); err != nil {
			t.Fatal(err)
		}
		if got := qualReads(t, path); len(got) == 0 {
			t.Errorf("%s: the check found no read in %s", name, src)
		}
	}
	path := filepath.Join(dir, "clean.go")
	if err := writeFile(path, `package p; import ("os"; "strings"); var v = os.Getenv("HOME") + "QUAL_X"; func f(norm func(string) string) string { return norm(strings.ToLower(v)) }`); err != nil {
		t.Fatal(err)
	}
	if got := qualReads(t, path); len(got) != 0 {
		t.Errorf("a clean file was flagged at lines %v", got)
	}
}

func writeFile(path, src string) error { return os.WriteFile(path, []byte(src), 0o644) }

func walkNonTestGo(t *testing.T, visit func(rel, path string)) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		visit(filepath.ToSlash(rel), path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func reader(rel string) bool {
	for p := range readers {
		if rel == p || strings.HasPrefix(rel, p+"/") {
			return true
		}
	}
	return false
}

// qualReads lists the lines of QUAL_* reads in a file (see TestQUALIsReadOnlyInConfig).
func qualReads(t *testing.T, path string) []int {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	var lines []int
	called := map[ast.Expr]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			called[n.Fun] = true
			if envReader(calleeName(n.Fun)) && len(n.Args) == 1 && startsWithQUAL(n.Args[0]) {
				lines = append(lines, fset.Position(n.Pos()).Line)
			}
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && x.Name == "os" && envReader(n.Sel.Name) && !called[n] {
				lines = append(lines, fset.Position(n.Pos()).Line)
			}
		case *ast.FuncType:
			for _, p := range n.Params.List {
				for _, name := range p.Names {
					if envReader(name.Name) || strings.Contains(strings.ToLower(name.Name), "env") && stringLookup(p.Type) {
						lines = append(lines, fset.Position(name.Pos()).Line)
					}
				}
			}
		}
		return true
	})
	return lines
}

// stringLookup is a func(string) string or func(string) (string, bool) type.
func stringLookup(t ast.Expr) bool {
	ft, ok := t.(*ast.FuncType)
	if !ok || ft.Params == nil || len(ft.Params.List) != 1 || ft.Results == nil || len(ft.Results.List) == 0 {
		return false
	}
	in, ok1 := ft.Params.List[0].Type.(*ast.Ident)
	out, ok2 := ft.Results.List[0].Type.(*ast.Ident)
	return ok1 && ok2 && in.Name == "string" && out.Name == "string"
}

func calleeName(fun ast.Expr) string {
	switch f := fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	}
	return ""
}

// envReader is a name that reads the environment: Getenv, getenv, LookupEnv, lookupEnv.
func envReader(name string) bool {
	n := strings.ToLower(name)
	return n == "getenv" || n == "lookupenv"
}

// startsWithQUAL is a QUAL_* string literal, or a concatenation whose first operand is one.
func startsWithQUAL(e ast.Expr) bool {
	for {
		b, ok := e.(*ast.BinaryExpr)
		if !ok || b.Op != token.ADD {
			break
		}
		e = b.X
	}
	lit, ok := e.(*ast.BasicLit)
	if !ok {
		return false
	}
	v, err := strconv.Unquote(lit.Value)
	return err == nil && strings.HasPrefix(v, "QUAL_")
}
