package verify

import (
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// Kept artifacts (TRTMC's file:// image answers) are read only on a TRTMC row: a reference row
// claiming them would trade its pixel-hash check for a thumbnail check.
func TestReferenceRowsHaveNoKeptArtifacts(t *testing.T) {
	row := evidence.Result{Profile: "procdiff-small", Scratch: &evidence.Scratch{Container: "/scratch", Dir: "t2i/procdiff-small/scratch"}}
	for _, c := range []struct {
		run, stage string
		refused    bool
	}{{"trtmc", "trtmc", false}, {"reference", "reference", true}, {"trtmc", "reference", true}, {"reference", "trtmc", true}} {
		report, problems := collect()
		checkScratch(c.run, evidence.Stage{Stage: "t2i", TargetKind: c.stage}, row, report)
		if got := strings.Join(*problems, "\n"); (got != "") != c.refused || (c.refused && !strings.Contains(got, "inline")) {
			t.Errorf("run %s stage %s: problems %q", c.run, c.stage, got)
		}
	}
}
