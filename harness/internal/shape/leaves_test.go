package shape

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The evidence schema, its report, the recorded statistics types and the offline verifier
// itself (which recomputes every interval with harness/stats) link no plotting or statistics
// library and no container code: the verifier reads, recomputes and re-renders a run with them,
// and must build small and without cgo.
func TestSchemaAndReportAreLeaves(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.Command("go", "list", "-deps", "./harness/evidence", "./harness/report", "./harness/stats/schema", "./harness/verify")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"gonum.org/", "harness/plot", "trtmc-qual/containers/", "testcontainers"} {
			if strings.Contains(dep, banned) {
				t.Errorf("the schema, the report or the verifier links %s", dep)
			}
		}
	}
}
