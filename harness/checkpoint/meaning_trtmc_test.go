package checkpoint

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/claim"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// A TRTMC ASR testcase with no thresholds file (3 of the 7 counted ASR rows of the newer tree)
// and no gold text needs no bound: its meaning, derived with what the suite gives the claim (the
// thresholds beside its manifest), is non-empty transcripts, and the missing file is not a failure.
func TestMeaningWithoutAThresholdsFile(t *testing.T) {
	w, err := workload.Get("asr")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	c := &Checkpoint{Env: &Env{Log: io.Discard, Target: &target.Target{Kind: "trtmc"}}, W: w, steps: map[string]bool{"identity": true},
		Manifest: manifest.Manifest{Name: "parakeet-tdt-0.6b-v3", Path: filepath.Join(dir, "families", "parakeet_tdt", "tests", "manifests", "parakeet-tdt-0.6b-v3.json")},
		Testcase: manifest.Testcase{Name: "parakeet-tdt-0.6b-v3"}}
	row := evidence.Result{AIPerf: &evidence.AIPerfRun{}, Join: &evidence.Join{},
		Outputs: []evidence.Output{{RequestID: "a", HTTPOutput: "go forward", Native: "go forward"}}}
	meaning := func() (*evidence.Meaning, error) {
		m, err := claim.Meaning().Derive(&claim.Artifacts{Row: row, Given: c.given()})
		return m.(*evidence.Meaning), err
	}
	if m, err := meaning(); err != nil || m == nil || len(m.Failures) > 0 {
		t.Fatalf("%v %+v", err, m)
	}
	row.Outputs[0].HTTPOutput = " "
	if m, err := meaning(); err != nil || len(m.Failures) == 0 {
		t.Errorf("an empty transcript passed: %+v %v", m, err)
	}
}
