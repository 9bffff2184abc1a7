package shape

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// topLevel is the repository's fixed top level; anything else tracked there (a built binary, a
// scratch file) is a mistake.
var topLevel = map[string]bool{
	"suites": true, "harness": true, "server": true, "native": true, "golden": true, "containers": true,
	"go.mod": true, "go.sum": true, "Makefile": true, "README.md": true, ".ci": true, ".github": true, ".gitignore": true,
}

// TestTopLevelIsFixed fails on a tracked file or folder at the top level outside the fixed set.
func TestTopLevelIsFixed(t *testing.T) {
	seen := map[string]bool{}
	for _, path := range tracked(t) {
		first, _, _ := strings.Cut(path, "/")
		if !topLevel[first] && !seen[first] {
			seen[first] = true
			t.Errorf("%s is tracked at the top level, which holds only the fixed set", first)
		}
	}
}

// repoRoot is the checkout this test file is in.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// tracked are the checkout's tracked files matching the git pathspecs (all without one).
func tracked(t *testing.T, pathspecs ...string) []string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"ls-files"}, pathspecs...)...)
	cmd.Dir = repoRoot()
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("git ls-files (this test reads the checkout's tracked files): %v: %s", err, stderr)
	}
	return strings.Fields(string(out))
}
