package verify

import (
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/verify/derived"
)

// The statistics checks: every interval, light input and tail a row reports is recomputed from
// the stored AIPerf runs, the joined requests and the gate's items, with the same code that
// produced it (harness/verify/derived).

// accuracyCheck recomputes each row's accuracy intervals.
func accuracyCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) { checkAccuracy(r.Pins, row.Stage, row.Where, row.Result, report) })
}

// checkAccuracy recomputes the gate's corpus figures with their bootstrap intervals, clustered
// by the speaker/recording groups of the repository's copy of the pinned dataset (the same
// groups the run used, or the recomputation differs).
func checkAccuracy(p pins, s evidence.Stage, where string, r evidence.Result, report func(string, string, ...any)) {
	if len(r.Accuracy) == 0 {
		return
	}
	groups, err := p.GateGroups(s, r)
	if err != nil {
		report(where, "accuracy intervals not recomputable: dataset groups: %v", err)
		return
	}
	derived.Accuracy(where, r, groups, report)
}
