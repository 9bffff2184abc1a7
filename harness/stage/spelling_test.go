package stage

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
)

// registries are the packages that may spell a stage: this one (the vocabulary) and the
// workload registry (each stage's behaviour, one file per stage).
var registries = []string{"harness/stage", "harness/workload"}

// pending are the places a stage is still spelled, each with why; remove an entry when its
// place moves onto the registries.
var pending = map[string]string{
	"harness/inventory/declare.go": "\"asr\" there is one of the task strings TRTMC manifests write " +
		"(task_string: asr), read as speech transcription; it is not our stage name",
}

// TestNoStageIsSpelledOutsideTheRegistries fails on a stage name switched on, compared with,
// used as a map key or listed in a literal anywhere outside the registries (tests excepted):
// adding a stage must stay one line in stage.All and one Workload, with nothing else to find.
func TestNoStageIsSpelledOutsideTheRegistries(t *testing.T) {
	root := moduleRoot(t)
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || exempt(rel) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || exempt(rel) {
			return nil
		}
		found = append(found, spellings(t, path, rel)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(found)
	for _, f := range found {
		t.Errorf("stage spelled outside the registries: %s", f)
	}
}

// The check itself must catch each form it claims to.
func TestSpellingsAreFound(t *testing.T) {
	src := `package p
import "github.com/trtmc-qual/trtmc-qual/harness/stage"
func f(s string, n stage.Name) {
	switch s { case "asr": }
	switch n { case stage.T2I: }
	_ = s == "audioqa"
	_ = map[string]int{"t2i": 6}
	_ = []string{"asr", "t2i"}
	_ = []stage.Name{stage.AudioQA}
	_ = s == "other"
	_ = stage.Name(s).Number()
}
const StageASR = "asr"`
	path := filepath.Join(t.TempDir(), "p.go")
	if err := writeFile(path, src); err != nil {
		t.Fatal(err)
	}
	got := spellings(t, path, "p.go")
	if len(got) != 8 {
		t.Fatalf("found %d spellings, want 8 (case, case, ==, map key, two list items, list item, constant):\n%s", len(got), strings.Join(got, "\n"))
	}
}

func exempt(rel string) bool {
	for _, r := range registries {
		if rel == r || strings.HasPrefix(rel, r+"/") {
			return true
		}
	}
	for p := range pending {
		if rel == p || strings.HasPrefix(rel, p+"/") {
			return true
		}
	}
	return false
}

// spellings lists each stage name in a switch case, a comparison, a map key, a list literal or
// a constant's definition (which would let the others hide behind a new name).
func spellings(t *testing.T, path, rel string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatalf("parse %s: %v", rel, err)
	}
	var out []string
	report := func(e ast.Expr, how string) {
		if name, ok := stageNameOf(e); ok {
			out = append(out, fmt.Sprintf("%s:%d: %s %s", rel, fset.Position(e.Pos()).Line, how, name))
		}
	}
	spelling.Walk(f, spelling.All, report)
	return out
}

// stageNameOf says whether e spells a stage: its name as a string literal, or a selector of a
// stage constant (stage.ASR, stage.T2I, ...).
func stageNameOf(e ast.Expr) (string, bool) {
	names := map[string]bool{}
	consts := map[string]bool{}
	for _, s := range All() {
		names[string(s.Name)] = true
	}
	for _, c := range []string{"ASR", "T2I", "AudioQA"} {
		consts[c] = true
	}
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == token.STRING {
			if v, err := strconv.Unquote(e.Value); err == nil && names[v] {
				return strconv.Quote(v), true
			}
		}
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok && consts[e.Sel.Name] && (x.Name == "stage" || x.Name == "workload") {
			return x.Name + "." + e.Sel.Name, true
		}
	case *ast.CallExpr: // string(stage.ASR)
		if len(e.Args) == 1 {
			return stageNameOf(e.Args[0])
		}
	}
	return "", false
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func writeFile(path, src string) error { return os.WriteFile(path, []byte(src), 0o644) }
