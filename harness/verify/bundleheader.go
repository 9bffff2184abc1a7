package verify

import (
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/verify/pinned"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// bundleHeaderCheck: each stored bundle says it was built for its row.
func bundleHeaderCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) { checkBundleHeader(r.Dir, row.Where, row.Stage, row.Stored, report) })
}

// checkBundleHeader opens a reference row's stored bundle and requires its header to be the
// row's: the profile, checkpoint and revision it was built for are the row's and its inventory
// row's. Another valid bundle with its hashes updated in the evidence says another profile.
func checkBundleHeader(runDir, where string, s evidence.Stage, r evidence.Result, report reporter) {
	if r.Bundle.Path == "" || !kindOf(s.TargetKind).Embedded() {
		return
	}
	path, err := workload.InsideDir(runDir, "bundle.path", r.Bundle.Path)
	if err != nil {
		return // checkStored reports it
	}
	h, err := pinned.BundleHeader(path)
	if err != nil {
		report(r.Bundle.Path, "stored bundle unreadable: %v", err)
		return
	}
	row, ok := pinned.InventoryRow(s, r.Profile)
	if h.Profile != r.Profile || ok && (h.Checkpoint != row.Checkpoint || h.Revision != row.Revision) {
		report(r.Bundle.Path, "bundle header says profile %s, checkpoint %s@%s; row %s is checkpoint %s@%s in the inventory",
			h.Profile, h.Checkpoint, h.Revision, where, row.Checkpoint, row.Revision)
	}
}
