package verify

import (
	"path"
	"path/filepath"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/verify/pinned"
)

// gateCheck re-checks each row's gate the way its target produced it (checkGateOf).
func gateCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) {
		checkGateOf(r.Dir, r.Pins, row.Where, r.Evidence.TargetKind, row.Stage, row.Result, row.Pairs, report)
	})
}

// checkGateOf re-checks a row's gate the way its target produced it. A reference row (the run or
// the stage says reference, or the row's manifest is the reference target's, under native/families)
// is recomputed, and must say reference throughout: a trtmc target_kind does not turn its gate
// into a JUnit report to trust. A TRTMC row's gate is its stored JUnit report (a TRTMC profile may
// share a reference profile's name: its manifest is TRTMC's, families/..., not native/families);
// another target's gate is its own family test, pinned in its checkout.
func checkGateOf(runDir string, p pins, where, runKind string, s evidence.Stage, r evidence.Result, pairs []join.Pair, report reporter) {
	rel, isPinned, err := p.Manifest(r.Profile)
	if err != nil {
		report(where, "%v", err)
		return
	}
	row, inInventory := pinned.InventoryRow(s, r.Profile)
	if !inInventory {
		row = inventory.Row{Profile: r.Profile, Manifest: rel}
	}
	manifestIsReference := strings.HasPrefix(path.Clean(filepath.ToSlash(row.Manifest)), "native/families/")
	reference := kindOf(runKind).Embedded() || kindOf(s.TargetKind).Embedded() || manifestIsReference
	switch {
	case reference:
		if !kindOf(runKind).Embedded() || !kindOf(s.TargetKind).Embedded() {
			report(where, "target_kind %q (stage %q) for profile %s, whose manifest %s is the reference target's: a reference row, its gate is recomputed", runKind, s.TargetKind, r.Profile, row.Manifest)
		}
		if inInventory || isPinned {
			checkGate(p, where, s.Stage, row, r, pairs, report)
		}
	case kindOf(s.TargetKind).InCheckout(): // the family's own pytest gate: its stored JUnit is the evidence (trtmc hook)
		checkJUnitGate(runDir, where, s.Stage, r, report)
	}
}
