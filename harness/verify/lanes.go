package verify

import (
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// lanesCheck: each row's recorded server lanes (settings.lanes, what its timelines are drawn
// against: lanes beyond them are "over") are the lanes of the target file the run names, as the
// suite sets them (at least one), when that file is in the repository.
func lanesCheck(r *Run) []Problem {
	t, ok := runTarget(r)
	if !ok {
		return nil
	}
	return r.eachRow(func(row *Row, report reporter) { checkLanes(row.Where, row.Result, max(1, t.Server.Lanes), report) })
}

// checkLanes compares a row's recorded lanes, where it records settings, with the target's.
func checkLanes(where string, r evidence.Result, lanes int, report reporter) {
	v, ok := r.Settings["lanes"]
	if !ok {
		return
	}
	if n, isNumber := v.(float64); !isNumber || n != float64(lanes) {
		report(where, "settings.lanes %v, but the target file's server has %d lanes (the timelines are drawn against them)", v, lanes)
	}
}

// runTarget is the target file the run names, read from the repository; ok is false for a target
// outside it (targetKindCheck names what it can) or one that cannot be read.
func runTarget(r *Run) (*target.Target, bool) {
	path, err := workload.InsideDir(r.Pins.Root, "target", r.Evidence.Target)
	if err != nil {
		return nil, false
	}
	t, err := target.Read(path, r.Pins.Root)
	return t, err == nil
}
