package checkpoint

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// A TRTMC ASR testcase with no thresholds file (3 of the 7 counted ASR rows of the newer tree)
// and no gold text needs no bound: its meaning is non-empty transcripts, and the missing file is
// not a failure.
func TestMeaningWithoutAThresholdsFile(t *testing.T) {
	w, err := workload.Get("asr")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	c := &Checkpoint{Env: &Env{Log: io.Discard}, W: w, steps: map[string]bool{"identity": true},
		Manifest: manifest.Manifest{Name: "parakeet-tdt-0.6b-v3", Path: filepath.Join(dir, "families", "parakeet_tdt", "tests", "manifests", "parakeet-tdt-0.6b-v3.json")},
		Testcase: manifest.Testcase{Name: "parakeet-tdt-0.6b-v3"}}
	c.Result.Identity = &evidence.Identity{Requests: 1, Equal: 1}
	c.Result.Join = &join.Report{}
	c.Result.Outputs = []evidence.Output{{RequestID: "a", HTTPOutput: "go forward", Native: "go forward"}}
	if err := c.Meaning(); err != nil || c.Result.Meaning == nil || len(c.Result.Meaning.Failures) > 0 {
		t.Fatalf("%v %+v", err, c.Result.Meaning)
	}
	c.Result.Outputs[0].HTTPOutput = " "
	if err := c.Meaning(); err == nil {
		t.Error("an empty transcript passed")
	}
}
