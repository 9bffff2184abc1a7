package verify

import (
	"github.com/trtmc-qual/trtmc-qual/harness/claim"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// checkStored is what verify finds of one row's bundle and stored inputs: the admission and
// inputs claims (harness/claim), derived from the row's files as verify loads them.
func checkStored(runDir string, p pins, where string, s evidence.Stage, r evidence.Result, report reporter) {
	a := loadArtifacts(runDir, p, "reference", s, r, false)
	for _, c := range []claim.Claim{claim.Admission(), claim.Inputs()} {
		for _, problem := range c.Check(a) {
			report(where, "%s", problem)
		}
	}
}

// checkAdmission is the admission and inputs claims on stored inputs given as they are, under
// the clip limits of the row's pinned manifest.
func checkAdmission(p pins, stored workload.StoredInputs, s evidence.Stage, report reporter) {
	w, err := workload.Get(s.Stage)
	if err != nil {
		panic(err)
	}
	pins := func() (workload.Admission, bool, error) {
		limits, family := pinnedLimits(p, stored.Where, s, stored.Result, report)
		return workload.Admission{StoredInputs: stored, Dir: workload.StoredInputsDir(stored.RunDir, s.Stage, stored.Result), Family: family, Limits: limits}, true, nil
	}
	a := claim.Load(stored.RunDir, stored.Result, claim.Given{Stage: w, InputPins: pins})
	for _, c := range []claim.Claim{claim.Admission(), claim.Inputs()} {
		for _, problem := range c.Check(a) {
			report(stored.Where, "%s", problem)
		}
	}
}

// reportFindings passes on what a workload's re-check found.
func reportFindings(found []workload.Finding, report reporter) {
	for _, f := range found {
		report(f.Where, "%s", f.What)
	}
}

// checkInputHashes is the inputs claim on a served row's joined requests, given as they are.
func checkInputHashes(runDir string, s evidence.Stage, r evidence.Result, pairs []join.Pair, published bool, report reporter) {
	w, err := workload.Get(s.Stage)
	if err != nil {
		panic(err)
	}
	if r.AIPerf == nil {
		r.AIPerf = &evidence.AIPerfRun{}
	}
	given := claim.StageGiven(w, nil, nil)
	given.Published, given.Target = published, kindOf(s.TargetKind)
	a := &claim.Artifacts{Row: r, Given: given, Join: join.Report{Pairs: pairs}}
	for _, problem := range claim.Inputs().Check(a) {
		report(s.Stage+"/"+r.Profile, "%s", problem)
	}
}
