package verify

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// checkGate recomputes the gate's figures from what the run stored and the pinned inputs, and
// its verdict from those figures and the pinned thresholds.
func checkGate(p pins, where, stage string, row inventory.Row, r evidence.Result, pairs []join.Pair, report reporter) {
	if r.Gate == nil {
		return
	}
	g := r.Gate
	m, tc, err := p.Testcase(row, g.Testcase)
	if err != nil {
		report(where, "gate not recomputable: %v", err)
		return
	}
	th, thPath, err := p.Thresholds(m, tc, r.ThresholdPin)
	if err != nil {
		report(thPath, "%v", err)
		return
	}
	if !sameFloats(th.Overrides, g.Thresholds) {
		report(where, "gate thresholds %v differ from the pinned %s %v", sortedFloats(g.Thresholds), thPath, sortedFloats(th.Overrides))
	}
	w, err := workload.Get(stage)
	recheck, ok := w.(workload.GateRechecker)
	if err != nil || !ok {
		return // no recomputation defined for this stage's gate yet: thresholds checked above
	}
	fails, found := recheck.RecheckGate(workload.GateRecheck{Root: p.Root, Where: where, Testcase: tc, Thresholds: th, Result: r, Pairs: pairs})
	reportFindings(found, report)
	if g.Passed != (len(fails) == 0) {
		report(where, "gate recorded as passed=%v; recomputed figures against the pinned thresholds say %v", g.Passed, orNone(fails))
	}
}

func sameFloats(a, b map[string]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func sortedNames(m map[string]float64) []string { return slices.Sorted(maps.Keys(m)) }

func sortedFloats(m map[string]float64) string {
	var parts []string
	for _, k := range sortedNames(m) {
		parts = append(parts, fmt.Sprintf("%s=%v", k, m[k]))
	}
	return "{" + strings.Join(parts, " ") + "}"
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "pass"
	}
	return "fail: " + strings.Join(s, "; ")
}
