package config

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// pendingReaders still read QUAL_* themselves, each with why; remove an entry when it takes its
// value from Config.
var pendingReaders = map[string]string{
	"harness/config": "the one reader",
}

// TestQUALIsReadOnlyInConfig fails on an os.Getenv or os.LookupEnv of a QUAL_* name in a
// non-test file outside harness/config: configuration is read once and passed down as a value.
func TestQUALIsReadOnlyInConfig(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || pendingReader(rel) {
			return nil
		}
		for _, line := range qualReads(t, path) {
			t.Errorf("%s:%d reads a QUAL_* variable outside harness/config", rel, line)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func pendingReader(rel string) bool {
	for p := range pendingReaders {
		if rel == p || strings.HasPrefix(rel, p+"/") {
			return true
		}
	}
	return false
}

// qualReads lists the lines of os.Getenv("QUAL_...") and os.LookupEnv("QUAL_...") in a file.
func qualReads(t *testing.T, path string) []int {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	var lines []int
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || (sel.Sel.Name != "Getenv" && sel.Sel.Name != "LookupEnv") {
			return true
		}
		if lit, ok := call.Args[0].(*ast.BasicLit); ok {
			if v, err := strconv.Unquote(lit.Value); err == nil && strings.HasPrefix(v, "QUAL_") {
				lines = append(lines, fset.Position(call.Pos()).Line)
			}
		}
		return true
	})
	return lines
}
