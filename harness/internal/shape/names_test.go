package shape

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/internal/spelling"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
	"github.com/trtmc-qual/trtmc-qual/native/families/descriptors"
)

// Names that one registry owns must not be decided on anywhere else: code asks the registry.
// (Stage names have their own test beside their registry, harness/stage/spelling_test.go.)

// TestNoTargetKindIsComparedByName fails on a target kind's name ("reference", "trtmc")
// compared with == or != or used as a switch case outside harness/target (tests excepted): code
// asks the kind's target.Traits what differs.
func TestNoTargetKindIsComparedByName(t *testing.T) {
	var names []string
	for _, k := range target.Kinds() {
		names = append(names, string(k))
	}
	rule := nameRule{
		names:    names,
		forms:    spelling.Comparisons,
		registry: []string{"harness/target"},
		allowed: map[string]string{
			"harness/plan/setup/setup.go": "compares a server image value with the placeholder \"reference\" (the image built here), " +
				"not a target kind",
		},
	}
	for _, f := range rule.find(t) {
		t.Errorf("target kind compared by name: %s", f)
	}
}

// TestNoFamilyIsSpelledOutsideTheRegistries fails on a family's name switched on, compared with,
// used as a map key, listed in a literal or given to a constant or variable, as a string or as a
// family package's Name constant, anywhere outside the family's own folder and the two
// registries (native/registry, native/families/descriptors; tests excepted): code looks a family
// up (its descriptor, its runtime's optional interfaces), so adding one touches its folder and
// the registration lines only.
func TestNoFamilyIsSpelledOutsideTheRegistries(t *testing.T) {
	var names []string
	for _, d := range descriptors.All() {
		names = append(names, d.Name)
	}
	rule := nameRule{names: names, forms: spelling.All, familyPackages: true, registry: []string{"native/families", "native/registry"}}
	for _, f := range rule.find(t) {
		t.Errorf("family spelled outside the registries: %s", f)
	}
}

// The checks must catch each form they claim to.
func TestNameSpellingsAreFound(t *testing.T) {
	src := `package p
import "github.com/trtmc-qual/trtmc-qual/native/families/whisper"
func f(s string) {
	_ = s != whisper.Name
	switch s { case "sphinx": }
	_ = s == "whisper"
	_ = "trtmc" != s
	_ = map[string]int{"procdiff": 1}
	_ = []string{"sphinxqa", "whisper"}
	_ = s == "other"
	_ = struct{ Family string }{Family: "sphinx"}
}
const W = "whisper"`
	path := filepath.Join(t.TempDir(), "p.go")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	families := nameRule{names: []string{"sphinx", "whisper", "procdiff", "sphinxqa"}, forms: spelling.All, familyPackages: true}
	if got := families.spellings(t, path, "p.go"); len(got) != 7 {
		t.Fatalf("found %d family spellings, want 7 (a package's Name, case, ==, map key, two list items, constant):\n%s", len(got), strings.Join(got, "\n"))
	}
	kinds := nameRule{names: []string{"trtmc", "sphinx"}, forms: spelling.Comparisons}
	if got := kinds.spellings(t, path, "p.go"); len(got) != 2 {
		t.Fatalf("found %d comparisons, want 2 (a case and a comparison; not the map key, list or constant):\n%s", len(got), strings.Join(got, "\n"))
	}
}

// nameRule is where names one registry owns may not be spelled.
type nameRule struct {
	names          []string
	forms          spelling.Forms
	familyPackages bool              // a family package's Name constant counts as its name
	registry       []string          // directories that may spell them
	allowed        map[string]string // files that may, each with why
}

func (n nameRule) find(t *testing.T) []string {
	t.Helper()
	return sourcesFound(t, n.inRegistry, func(path, rel string) []string {
		if _, ok := n.allowed[rel]; ok {
			return nil
		}
		return n.spellings(t, path, rel)
	})
}

// sourcesFound calls each on every non-test Go file of the repository outside hidden and
// testdata directories and the directories skipDir names (by path from the root), and returns
// what it found, sorted.
func sourcesFound(t *testing.T, skipDir func(rel string) bool, each func(path, rel string) []string) []string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "..")
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || skipDir(rel) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		found = append(found, each(path, rel)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(found)
	return found
}

func (n nameRule) inRegistry(rel string) bool {
	for _, r := range n.registry {
		if rel == r || strings.HasPrefix(rel, r+"/") {
			return true
		}
	}
	return false
}

func (n nameRule) spellings(t *testing.T, path, rel string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatalf("parse %s: %v", rel, err)
	}
	packages := map[string]bool{} // local names of imported family packages
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if !n.familyPackages || !strings.Contains(p, "/native/families/") {
			continue
		}
		local := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			local = imp.Name.Name
		}
		packages[local] = true
	}
	var out []string
	report := func(e ast.Expr, how string) {
		if sel, ok := e.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && packages[x.Name] && sel.Sel.Name == "Name" {
				out = append(out, fmt.Sprintf("%s:%d: %s %s.Name", rel, fset.Position(e.Pos()).Line, how, x.Name))
			}
			return
		}
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return
		}
		s, _ := strconv.Unquote(lit.Value)
		for _, name := range n.names {
			if s == name {
				out = append(out, fmt.Sprintf("%s:%d: %s %q", rel, fset.Position(e.Pos()).Line, how, s))
			}
		}
	}
	spelling.Walk(f, n.forms, report)
	return out
}
