package runfixture

import (
	"slices"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// Narrowed is a run narrowed from a whole one the way a smoke run, a focus, a shard, a partial
// selection or a reduced load narrows it, with the word its verdict leads with.
type Narrowed struct {
	Name, Word string
	Evidence   evidence.Evidence
}

// Narrowings are every way a run can be less than a qualification of full (a whole run at the
// target's load whose stages record their selection), each settled as a run of it would be: the
// rows it left out are not selected in the inventory, and each stage's status follows its rows.
// Some keep a stage whole, so that a stage every row of which ran is still read in the run's
// scope, and the smoke run keeps only the recorded rows of its last stage.
func Narrowings(full evidence.Evidence) []Narrowed {
	smoke := func(stage, i int, r evidence.Result) bool {
		switch {
		case stage == 0:
			return i == 0 || !r.Counted
		case stage == len(full.Stages)-1:
			return !r.Counted
		}
		return true
	}
	all := func(int, int, evidence.Result) bool { return true }
	reduced := []string{"runs 2 of 5"}
	return []Narrowed{
		{"smoke", "SMOKE", narrow(full, "smoke", nil, smoke)},
		{"focused", "FOCUSED", narrow(full, "focused", nil, func(stage, i int, _ evidence.Result) bool { return stage == 0 && i == 0 })},
		{"shard", "SHARD 2/3", narrow(full, "shard 2/3", nil, func(_, i int, _ evidence.Result) bool { return i%3 == 1 })},
		{"partial selection", "PARTIAL SELECTION", narrow(full, "", nil, func(stage, i int, _ evidence.Result) bool { return stage != 1 || i > 0 })},
		{"reduced load", "REDUCED LOAD", narrow(full, "", reduced, all)},
		{"reduced load and smoke", "SMOKE", narrow(full, "smoke", reduced, smoke)},
	}
}

// narrow is full with each stage's rows that keep says, its selection labelled and its lowered
// AIPerf counts recorded.
func narrow(full evidence.Evidence, label string, reducedLoad []string, keep func(stage, i int, r evidence.Result) bool) evidence.Evidence {
	e := full
	e.Stages = make([]evidence.Stage, len(full.Stages))
	for n, s := range full.Stages {
		var sel evidence.Selection
		if s.Selection != nil {
			sel = *s.Selection
		} else {
			sel = *evidence.SelectionOf(s.Inventory, "")
		}
		sel.Label, sel.ReducedLoad = label, reducedLoad
		s.Selection = &sel
		var results []evidence.Result
		for i, r := range s.Results {
			if keep(n, i, r) {
				results = append(results, r)
			}
		}
		s.Results = results
		if len(results) == 0 { // a stage with no selected row runs no spec: no audit, no probe
			s.Audit, s.Probe = nil, nil
		}
		s.Inventory = slices.Clone(s.Inventory)
		for i, row := range s.Inventory {
			if evidence.Resulting(row) && !slices.ContainsFunc(results, func(r evidence.Result) bool { return r.Profile == row.Profile }) {
				s.Inventory[i].Status = evidence.StatusNotSelected
			}
		}
		evidence.Settle(&s)
		e.Stages[n] = s
	}
	return e
}
