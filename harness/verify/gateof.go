package verify

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/verify/pinned"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// gateCheck re-checks each row's gate the way its target produced it (checkGateOf).
func gateCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) {
		checkGateOf(r.Dir, r.Pins, row.Where, r.Evidence.TargetKind, row.Stage, row.Result, report)
	})
}

// gateRow is how a row's gate was produced. A reference row (the run or the stage says
// reference, or the row's manifest is the reference target's, under native/families) has its
// gate derived (the gate claim, against pins when its profile is pinned) and must say reference
// throughout: a trtmc target_kind does not turn its gate into a JUnit report to trust. A TRTMC
// row's gate is its stored JUnit report (a TRTMC profile may share a reference profile's name: its
// manifest is TRTMC's, families/..., not native/families).
type gateRow struct {
	row       evidence.InventoryRow
	reference bool // derived
	pinned    bool // its profile is in the stage's inventory or pinned: derived against the pins
}

func gateRowOf(p pins, runKind string, s evidence.Stage, r evidence.Result) (gateRow, error) {
	rel, isPinned, err := p.Manifest(r.Profile)
	if err != nil {
		return gateRow{}, err
	}
	row, inInventory := pinned.InventoryRow(s, r.Profile)
	if !inInventory {
		row = evidence.InventoryRow{Profile: r.Profile, Manifest: rel}
	}
	manifestIsReference := strings.HasPrefix(path.Clean(filepath.ToSlash(row.Manifest)), "native/families/")
	reference := kindOf(runKind).Embedded() || kindOf(s.TargetKind).Embedded() || manifestIsReference
	return gateRow{row: row, reference: reference, pinned: inInventory || isPinned}, nil
}

// checkGateOf checks a row's gate was produced the way its target produces it: a reference row
// says reference throughout (its gate is the gate claim's), a TRTMC row's family test is its
// stored JUnit report (trtmc hook).
func checkGateOf(runDir string, p pins, where, runKind string, s evidence.Stage, r evidence.Result, report reporter) {
	g, err := gateRowOf(p, runKind, s, r)
	if err != nil {
		report(where, "%v", err)
		return
	}
	switch {
	case g.reference:
		if !kindOf(runKind).Embedded() || !kindOf(s.TargetKind).Embedded() {
			report(where, "target_kind %q (stage %q) for profile %s, whose manifest %s is the reference target's: a reference row, its gate is recomputed", runKind, s.TargetKind, r.Profile, g.row.Manifest)
		}
	case kindOf(s.TargetKind).InCheckout():
		checkJUnitGate(runDir, where, s.Stage, r, report)
	}
}

// gatePins are what a reference row's gate is derived against (the gate claim): the gate's
// testcase in the profile's pinned manifest and its pinned thresholds, checked against their pin
// and the sha256 the evidence records. Nil for a gate not derived (a TRTMC row's, or a profile
// neither pinned nor inventoried: checkGateOf names it).
func gatePins(p pins, runKind string, s evidence.Stage, r evidence.Result) func() (workload.GateInputs, error) {
	g, err := gateRowOf(p, runKind, s, r)
	if err != nil || !g.reference || !g.pinned || r.Gate == nil {
		return nil
	}
	return func() (workload.GateInputs, error) {
		m, tc, err := p.Testcase(g.row, r.Gate.Testcase)
		if err != nil {
			return workload.GateInputs{}, fmt.Errorf("gate not recomputable: %w", err)
		}
		th, thPath, err := p.Thresholds(m, tc, r.ThresholdPin)
		if err != nil {
			return workload.GateInputs{}, fmt.Errorf("%s: %w", thPath, err)
		}
		return workload.GateInputs{Root: p.Root, Testcase: tc, Thresholds: th}, nil
	}
}
