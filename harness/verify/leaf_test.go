package verify

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The offline verifier and the packages it reads evidence with must build without cgo and
// must not link the container stack: a reviewer runs `qual verify` on a published directory
// with nothing but Go installed.
var leafPackages = []string{"./harness/verify", "./harness/join", "./harness/evidence", "./harness/timing",
	"./harness/metrics", "./harness/contract"}

func repoRoot(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func goCmd(t *testing.T, cgo string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = repoRoot(t)
	cmd.Env = append(os.Environ(), "CGO_ENABLED="+cgo)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s (CGO_ENABLED=%s): %v\n%s", strings.Join(args, " "), cgo, err, out)
	}
	return string(out)
}

func TestLeafPackagesBuildWithoutCgo(t *testing.T) {
	goCmd(t, "0", append([]string{"build", "-o", os.DevNull}, leafPackages...)...)
}

// With cgo enabled (as `make` runs), verify's dependencies still hold no package of this module
// with cgo files and nothing under containers/.
func TestVerifyDependsOnLeafPackagesOnly(t *testing.T) {
	out := goCmd(t, "1", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}} {{len .CgoFiles}}", "./harness/verify")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			t.Fatalf("unexpected go list line %q", line)
		}
		if strings.Contains(f[0], "/containers/") || strings.HasSuffix(f[0], "/server") || strings.Contains(f[0], "testcontainers") {
			t.Errorf("verify links %s", f[0])
		}
		if f[1] == "false" && f[2] != "0" {
			t.Errorf("verify links %s, which has %s cgo files", f[0], f[2])
		}
	}
}
