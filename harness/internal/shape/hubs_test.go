// Package shape holds tests of the repository's shape that belong to no one package.
package shape

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/trtmc-qual/trtmc-qual/"

// maxImports is how many of the project's packages one package may import: past it, a package
// is a hub that does several jobs, and a change to any of them touches it.
const maxImports = 12

// pendingHubs are the packages still over the limit, each with why.
var pendingHubs = map[string]string{
	"harness/checkpoint": "17: one checkpoint's flow runs every step of a row in place (serving, AIPerf's profile from " +
		"harness/plan, native runs, the no-caching probe); its claims are harness/claim's derivations now, but it still " +
		"holds the step code that splits along the stage contract",
	"harness/workload": "13: harness/runfile, the one reading layer for run files (regular files only, bounded, never a FIFO), " +
		"which its stored-input rechecks read through; the rechecks leave workload with claims-as-derivations",
	"harness/verify": "12 now that its claims are harness/claim's (verify/derived folded); kept here while the per-stage " +
		"rechecks (workload's *_recheck.go) still reach it through harness/workload",
	"harness/cmd/qual": "13: harness/runfile, so that every command refuses a bad run tree before reading it; qual's commands " +
		"share one run-directory admission that can move into runfile's CheckTree",
}

// TestNoPackageIsAHub fails on a package (its non-test files) importing more than maxImports
// packages of this module.
func TestNoPackageIsAHub(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "..")
	imports := map[string]map[string]bool{} // package dir → project imports
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		dir := filepath.ToSlash(rel)
		if imports[dir] == nil {
			imports[dir] = map[string]bool{}
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(p, module) {
				imports[dir][strings.TrimPrefix(p, module)] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(imports["harness/checkpoint"]) == 0 {
		t.Fatal("read no imports of harness/checkpoint: the walk is wrong")
	}
	for dir, imps := range imports {
		if _, pending := pendingHubs[dir]; pending || len(imps) <= maxImports {
			continue
		}
		var names []string
		for p := range imps {
			names = append(names, p)
		}
		sort.Strings(names)
		t.Errorf("%s imports %d project packages (at most %d): %s", dir, len(imps), maxImports, strings.Join(names, " "))
	}
}
