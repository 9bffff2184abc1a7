package verify

import (
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// junitStageClass is suites/junit.StageClass: the classname of a stage's own specs (the verifier
// does not import the suites).
const junitStageClass = "stage"

// specRowsCheck: every checkpoint's spec has its row.
func specRowsCheck(r *Run) []Problem {
	return problemsFrom(func(report reporter) { checkSpecRows(r.Dir, r.Pins, r.Evidence, report) })
}

// checkSpecRows is checkJUnit's converse: every JUnit spec of a checkpoint names a row of the
// evidence. A spec that did not pass needs a result row (deleting a failed row from the evidence
// leaves its failed spec behind); any other needs at least the stage's inventory row. A spec is
// a checkpoint's when its classname names a row of the evidence or a pinned manifest; a stage's
// own Describe (the audio-QA refusal probe, say) names neither.
func checkSpecRows(runDir string, p pins, e evidence.Evidence, report reporter) {
	specs, _, err := readJUnit(runDir)
	if err != nil {
		return // checkJUnit reports it
	}
	results, listed := map[string]bool{}, map[string]bool{}
	var profiles []string
	for _, s := range e.Stages {
		for _, r := range s.Results {
			results[s.Stage+"."+r.Profile], results["*."+r.Profile] = true, true
			profiles = append(profiles, r.Profile)
		}
		for _, row := range s.Inventory {
			listed[s.Stage+"."+row.Profile], listed["*."+row.Profile] = true, true
		}
	}
	for _, sp := range specs {
		key, ok := specRow(sp)
		if !ok {
			continue
		}
		profile := key[strings.Index(key, ".")+1:]
		if _, pinned, _ := p.Manifest(profile); !pinned && !results[key] && !listed[key] {
			continue
		}
		switch {
		case !sp.passed() && sp.Skipped == nil && !results[key]:
			report(sp.File, "spec %q is %s, but the evidence has no row %s (the JUnit report and evidence.json disagree)", sp.Name, sp.outcome(), strings.TrimPrefix(key, "*."))
		case !results[key] && !listed[key]:
			report(sp.File, "spec %q names row %s, which neither the results nor the inventory of evidence.json hold", sp.Name, strings.TrimPrefix(key, "*."))
		}
	}
}

// specRow is the row a spec belongs to: "<stage>.<profile>" from suites/junit's classname, or
// "*.<profile>" from Ginkgo's own name ("… <profile> (checkpoint …"); ok is false for a stage's
// or the suite's own specs.
func specRow(sp spec) (string, bool) {
	if st, profile, found := strings.Cut(sp.Classname, "."); found && isStage(st) && profile != junitStageClass && profile != "" {
		return sp.Classname, true
	}
	before, _, found := strings.Cut(sp.Name, " (checkpoint ")
	if !found {
		return "", false
	}
	fields := strings.Fields(before)
	if len(fields) == 0 {
		return "", false
	}
	return "*." + fields[len(fields)-1], true
}

// isStage says whether name is a registered stage's.
func isStage(name string) bool {
	_, err := workload.Get(name)
	return err == nil
}
