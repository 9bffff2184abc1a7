package ci

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
)

// repoRoot is two directories above this package (containers/ci).
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the test file")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// newLinter lints with the repository's .github/actionlint.yaml (self-hosted runner labels)
// and shellcheck, which `make deps` installs: the run: scripts are where workflows break.
func newLinter(t *testing.T, out *bytes.Buffer) (*actionlint.Linter, *actionlint.Project) {
	t.Helper()
	shellcheck, err := exec.LookPath("shellcheck")
	if err != nil {
		t.Fatal("shellcheck is not installed: run `make deps` (harness/scripts/deps.sh installs it)")
	}
	root := repoRoot(t)
	proj, err := actionlint.NewProject(root)
	if err != nil {
		t.Fatalf("actionlint project at %s: %v", root, err)
	}
	l, err := actionlint.NewLinter(out, &actionlint.LinterOptions{Shellcheck: shellcheck, WorkingDir: root, Oneline: true})
	if err != nil {
		t.Fatalf("actionlint: %v", err)
	}
	return l, proj
}

func TestWorkflowsLintClean(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(repoRoot(t), ".github", "workflows", "*.y*ml"))
	if err != nil {
		t.Fatal(err)
	}
	// The PR workflow and the GPU qualification workflow: a lint of nothing proves nothing.
	if len(files) < 2 {
		t.Fatalf("found %d workflow files in .github/workflows, want the ci and qualify workflows", len(files))
	}
	var out bytes.Buffer
	l, proj := newLinter(t, &out)
	errs, err := l.LintFiles(files, proj)
	if err != nil {
		t.Fatalf("actionlint: %v", err)
	}
	for _, e := range errs {
		t.Errorf("%s:%d:%d: %s [%s]", e.Filepath, e.Line, e.Column, e.Message, e.Kind)
	}
}

// The same linter must reject a broken workflow: an unknown runner label, a typo in an
// expression, and a run: script shellcheck flags.
func TestLinterCatchesErrors(t *testing.T) {
	broken := []byte(`name: broken
on: push
jobs:
  a:
    runs-on: [self-hosted, no-such-label]
    steps:
      - run: echo ${{ github.shaa }}
      - run: cd $UNQUOTED_DIR && ls
`)
	var out bytes.Buffer
	l, proj := newLinter(t, &out)
	errs, err := l.Lint(filepath.Join(repoRoot(t), ".github", "workflows", "broken.yml"), broken, proj)
	if err != nil {
		t.Fatalf("actionlint: %v", err)
	}
	kinds := map[string]bool{}
	for _, e := range errs {
		kinds[e.Kind] = true
	}
	for _, want := range []string{"runner-label", "expression", "shellcheck"} {
		if !kinds[want] {
			t.Errorf("actionlint did not report a %q error on the broken workflow; got %v", want, errs)
		}
	}
}

// Every action is pinned to a full version (vX.Y.Z), never a branch or a moving major tag.
func TestActionsPinnedByVersion(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(repoRoot(t), ".github", "workflows", "*.y*ml"))
	uses := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(data), "\n") {
			_, ref, ok := strings.Cut(strings.TrimSpace(line), "uses: ")
			if !ok {
				continue
			}
			uses++
			_, version, _ := strings.Cut(ref, "@")
			if strings.Count(version, ".") != 2 || !strings.HasPrefix(version, "v") {
				t.Errorf("%s:%d: %s is not pinned to a vX.Y.Z version", filepath.Base(f), n+1, ref)
			}
		}
	}
	if uses == 0 {
		t.Fatal("no `uses:` found in the workflows")
	}
}
