package verify

import "github.com/trtmc-qual/trtmc-qual/harness/evidence"

// scratchCheck: kept artifacts only on rows of a target that answers images as files.
func scratchCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) { checkScratch(r.Evidence.TargetKind, row.Stage, row.Result, report) })
}

// checkScratch keeps the reference target's image check as it is: its server answers images
// inline with their pixel hash in the record, so a reference row that claims kept artifacts
// (TRTMC's file:// form, checked by thumbnail) is refused.
func checkScratch(runKind string, s evidence.Stage, r evidence.Result, report reporter) {
	if r.Scratch != nil && (kindOf(runKind).Embedded() || kindOf(s.TargetKind).Embedded()) {
		report(s.Stage+"/"+r.Profile, "a reference row with kept artifacts (scratch %s): the reference server answers images inline", r.Scratch.Dir)
	}
}
