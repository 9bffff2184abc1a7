package verify

import (
	"fmt"
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// trtmcGateCase is how TRTMC's CI reads a family e2e test name (tools/ci/e2e.py); it covers both
// layouts (test_official_checkpoint_e2e[case], test_model_e2e[case]).
const trtmcGateCase = `^test_.*e2e\[(?P<case>.+)\]$`

// checkJUnitGate re-reads the JUnit report a TRTMC family test wrote into the run
// (<stage>/<profile>/work/gate-junit.xml) and requires the recorded verdict to be its verdict
// for the testcase: TRTMC's gate cannot be recomputed here, but its own report can be re-read.
func checkJUnitGate(runDir, where, stage string, r evidence.Result, report reporter) {
	if r.Gate == nil {
		return
	}
	_, err := workload.InsideDir(runDir, "profile", r.Profile)
	if err == nil && r.Profile != filepath.Base(r.Profile) {
		err = fmt.Errorf("profile %q is not a single path element", r.Profile)
	}
	if err != nil {
		report(where, "TRTMC gate: %v", err)
		return
	}
	path := filepath.Join(runDir, stage, r.Profile, "work", "gate-junit.xml")
	data, err := runfile.ReadFile(path)
	if err != nil {
		report(where, "TRTMC gate: its JUnit report is not in the run: %v", err)
		return
	}
	rep, err := target.ParseJUnit(data, trtmcGateCase, []string{r.Gate.Testcase})
	if err != nil {
		report(where, "TRTMC gate JUnit: %v", err)
		return
	}
	if rep.Passed != r.Gate.Passed {
		report(where, "gate recorded as passed=%v; its JUnit report says passed=%v (%v)", r.Gate.Passed, rep.Passed, rep.Reasons)
	}
}
