package shape

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestQualLinksNoCgoContainersOrPlots: qual (verify, report, compare, merge, sign, keygen, plan, inventory,
// doctor, config) links no package with cgo files, no container client and no plotting
// library, so that `go install` builds it on a machine without apt packages; what needs them
// is qual-run's. Every dependency outside the standard library is checked, not only the ones
// that once leaked in.
func TestQualLinksNoCgoContainersOrPlots(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}} {{len .CgoFiles}}", "./harness/cmd/qual")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..", "..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1") // list the cgo files a cgo build would compile
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[1] == "true" {
			continue
		}
		if f[2] != "0" {
			t.Errorf("qual links %s, which has cgo files", f[0])
		}
		for _, banned := range []string{"testcontainers", "docker", "moby", "gonum.org/v1/plot", "harness/plot", module + "native/registry"} {
			if strings.Contains(f[0], banned) {
				t.Errorf("qual links %s", f[0])
			}
		}
		if strings.HasPrefix(f[0], module+"containers/") && f[0] != module+"containers/spec" {
			t.Errorf("qual links %s (only containers/spec starts nothing)", f[0])
		}
	}
}

// TestQualBuildsWithCgoDisabled builds qual as `go install` does on a machine without a C
// compiler.
func TestQualBuildsWithCgoDisabled(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.Command("go", "build", "-o", filepath.Join(t.TempDir(), "qual"), "./harness/cmd/qual")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..", "..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build ./harness/cmd/qual: %v\n%s", err, out)
	}
}
