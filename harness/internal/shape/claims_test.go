package shape

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// derivations are the functions a claim is derived with: only harness/claim calls them, so the
// suite's path and verify's path to a claim are one function (harness/claim's).
var derivations = map[string][]string{
	"harness/join":     {"Join"},
	"harness/timing":   {"Summarize", "RunSamples"},
	"harness/stats":    {"FromRuns"},
	"harness/accuracy": {"Gate", "GateOnDataset"},
	"harness/nocache":  {"Judge"},
}

// stageDerivations are the methods of a stage's workload a claim is derived with (its reading of
// a response, its meaning rule, its gate's figures, its input identities and stored-input
// rechecks; RecheckGate, the gate's figures' former name): only harness/claim calls them.
var stageDerivations = []string{"HTTPOutput", "Meaning", "GateFigures", "RecheckGate", "InputSHA", "CheckStoredInputs", "StoredClips"}

// claimUsers are the packages that store or check a claim: the suite's checkpoint flow and the
// verifier (its subpackages too).
var claimUsers = []string{"harness/checkpoint", "harness/verify"}

// TestClaimsAreDerivedOnlyByHarnessClaim fails on a call of a claim's derivation outside
// harness/claim in the suite or the verifier, and on the verifier importing a derivation package
// other than for its types (join's Pair); and it requires every claim of claim.All to be stored
// by the suite (a call of its constructor in harness/checkpoint) and verify to check them all.
func TestClaimsAreDerivedOnlyByHarnessClaim(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "..")
	used := map[string]map[string]bool{} // package → claim.X selectors it uses
	for _, pkg := range claimUsers {
		used[pkg] = map[string]bool{}
		walkGo(t, filepath.Join(root, pkg), func(path string, f *ast.File) {
			names := importNames(f)
			ast.Inspect(f, func(n ast.Node) bool {
				if m := stageMethodCalled(n, names); m != "" {
					t.Errorf("%s calls a workload's %s: a claim is derived by harness/claim only", rel(root, path), m)
				}
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				id, ok := sel.X.(*ast.Ident)
				if !ok {
					return true
				}
				imp := names[id.Name]
				if imp == "harness/claim" {
					used[pkg][sel.Sel.Name] = true
				}
				for _, fn := range derivations[imp] {
					if sel.Sel.Name == fn {
						t.Errorf("%s calls %s.%s: a claim is derived by harness/claim only", rel(root, path), imp, fn)
					}
				}
				return true
			})
			for _, imp := range names {
				if strings.HasPrefix(pkg, "harness/verify") && derivations[imp] != nil && imp != "harness/join" {
					t.Errorf("%s imports %s: verify derives claims through harness/claim", rel(root, path), imp)
				}
			}
		})
	}
	if !used["harness/verify"]["All"] {
		t.Error("harness/verify does not check claim.All()")
	}
	for _, c := range claimConstructors(t, filepath.Join(root, "harness", "claim", "claim.go")) {
		if !used["harness/checkpoint"][c] {
			t.Errorf("claim.%s is in claim.All but the suite (harness/checkpoint) never derives it", c)
		}
	}
}

// stageMethodCalled is the stage derivation n calls as a method (a call of x.HTTPOutput or
// x.Meaning where x is no imported package), else "".
func stageMethodCalled(n ast.Node, imports map[string]string) string {
	call, ok := n.(*ast.CallExpr)
	if !ok {
		return ""
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || !slices.Contains(stageDerivations, sel.Sel.Name) {
		return ""
	}
	if id, ok := sel.X.(*ast.Ident); ok && imports[id.Name] != "" {
		return ""
	}
	return sel.Sel.Name
}

// importNames maps each import's local name to its path inside this module.
func importNames(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if !strings.HasPrefix(p, module) {
			continue
		}
		p = strings.TrimPrefix(p, module)
		name := filepath.Base(p)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		out[name] = p
	}
	return out
}

// claimConstructors are the functions claim.All lists.
func claimConstructors(t *testing.T, path string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "All" {
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if id, ok := call.Fun.(*ast.Ident); ok {
						out = append(out, id.Name)
					}
				}
				return true
			})
		}
	}
	if len(out) == 0 {
		t.Fatal("read no claim in claim.All: the parse is wrong")
	}
	return out
}

// walkGo parses every non-test Go file under dir.
func walkGo(t *testing.T, dir string, each func(path string, f *ast.File)) {
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		each(path, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func rel(root, path string) string {
	r, _ := filepath.Rel(root, path)
	return filepath.ToSlash(r)
}
