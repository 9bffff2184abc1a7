package runfixture

import (
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// PublishedRun is the evidence of a whole published `make qualify` run of the reference target
// at the target's load (harness/report/testdata/full-0951.evidence.json.gz, gzipped), the
// reports' own fixture. Found beside this source file, so any package's test can read it.
func PublishedRun(t testing.TB) evidence.Evidence {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	f, err := os.Open(filepath.Join(filepath.Dir(self), "..", "..", "report", "testdata", "full-0951.evidence.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var e evidence.Evidence
	if err := json.NewDecoder(z).Decode(&e); err != nil {
		t.Fatalf("the published run fixture: %v", err)
	}
	return e
}
