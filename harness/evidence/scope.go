package evidence

import (
	"fmt"
	"slices"
	"strings"
)

// StatusNotSelected is a row of the target this run did not select (a smoke run, a focus, one
// shard): nothing is claimed for it, and it is not "planned", which keeps its one meaning (the
// target cannot run here).
const StatusNotSelected Status = "not selected"

// Selection is a stage's rows in the whole target (across shards) and the word for how the run
// narrowed them.
type Selection struct {
	Label      string   `json:"label,omitempty"` // "smoke", "focused", "shard 2/3"
	TargetRows []string `json:"target_rows"`     // every row a whole run gives a result
	Counted    int      `json:"target_counted"`  // of which counted
	// ReducedLoad names each AIPerf count the run lowered below the target's own for the stage
	// ("runs 2 of 5": make test-run's fewer runs): figures measured at a reduced load are no
	// qualification's, whichever rows ran. Empty at the target's load.
	ReducedLoad []string `json:"reduced_load,omitempty"`
}

// SelectionOf is the selection of a stage whose target rows (before sharding) are rows.
func SelectionOf(rows []InventoryRow, label string) *Selection {
	sel := &Selection{Label: label, TargetRows: []string{}}
	for _, r := range rows {
		if Resulting(r) {
			sel.TargetRows = append(sel.TargetRows, r.Profile)
			if r.Counted {
				sel.Counted++
			}
		}
	}
	return sel
}

// Resulting says whether a whole run gives the row a result: full, reduced and variant rows do;
// excluded rows and gaps are listed, never run.
func Resulting(r InventoryRow) bool {
	return r.Kind == KindFull || r.Kind == KindReduced || r.Kind == KindVariant
}

// Scope is how many of the target's rows the run gave a result, out of how many, and the word
// for the narrowing; a blocked stage has no rows to select. Evidence without a selection counts
// its inventory.
type Scope struct {
	Selected, Total, Counted int
	Label                    string
	// Reduced are the AIPerf counts lowered below the target's, one entry per stage ("asr: runs 2
	// of 5, requests 3 of 7").
	Reduced []string
}

// Partial says whether the run left rows of the target out.
func (s Scope) Partial() bool { return s.Selected < s.Total }

// Narrowed says whether the run is less than a qualification of the target: it left rows out,
// or measured at a load below the target's.
func (s Scope) Narrowed() bool { return s.Partial() || len(s.Reduced) > 0 }

// ScopeOf is the run's scope over its stages.
func ScopeOf(e Evidence) Scope {
	var sc Scope
	for _, s := range e.Stages {
		st := StageScope(s)
		sc.Selected, sc.Total, sc.Counted = sc.Selected+st.Selected, sc.Total+st.Total, sc.Counted+st.Counted
		if sc.Label == "" {
			sc.Label = st.Label
		}
		sc.Reduced = append(sc.Reduced, st.Reduced...)
	}
	return sc
}

// StageScope is one stage's scope.
func StageScope(s Stage) Scope {
	if s.Status == StatusBlocked {
		return Scope{}
	}
	sel := s.Selection
	if sel == nil {
		sel = SelectionOf(s.Inventory, "")
	}
	sc := Scope{Total: len(sel.TargetRows), Counted: sel.Counted, Label: sel.Label}
	for _, r := range s.Results {
		if slices.Contains(sel.TargetRows, r.Profile) {
			sc.Selected++
		}
	}
	if sc.Selected > 0 && len(sel.ReducedLoad) > 0 { // a stage that ran no row measured at no load
		sc.Reduced = []string{s.Stage + ": " + strings.Join(sel.ReducedLoad, ", ")}
	}
	return sc
}

// scopeVerdict wraps the stages' verdict of a run that is no qualification of the target (it
// left rows out, or measured at a reduced load): its word, what it covered and what its
// selected rows gave.
func scopeVerdict(sc Scope, stages string) string {
	return fmt.Sprintf("%s — not a qualification: %s (selected rows: %s)", scopeWord(sc), scopeCoverage(sc), stages)
}

// StageWord is a stage's status as every report and console shows it (upper case, QUALIFIED),
// and RowWord a row's (as stored, aiperf-qualified), given the run's scope: in a run that is no
// qualification of the target, a status that would read as one carries the run's scope word, as
// its verdict does — "SMOKE — not a qualification (selected rows: QUALIFIED)" — so that no
// stage table, heading, row table or console line reads as a qualification out of the verdict's
// sight. The run's scope, not the stage's: a stage whose every row a smoke run selected is still
// part of a smoke run. Statuses that claim nothing (failed, blocked, planned, not selected) stay
// bare. Derived on each rendering and never stored: the evidence keeps the bare status.
func StageWord(st Status, run Scope) string {
	return scopedWord(strings.ToUpper(string(st)), st == StageQualified, "selected rows", run)
}

// RowWord is a row's status word in the run's scope (see StageWord).
func RowWord(st Status, run Scope) string {
	return scopedWord(string(st), st == StatusQualified, "selected row", run)
}

// scopedWord is the one wording of a qualifying status in a narrowed run, in the verdict's words
// (scopeVerdict).
func scopedWord(word string, qualifies bool, what string, run Scope) string {
	if !qualifies || !run.Narrowed() {
		return word
	}
	return fmt.Sprintf("%s — not a qualification (%s: %s)", scopeWord(run), what, word)
}

// scopeWord is the run's narrowing in one word: the selection's label, else what narrowed it.
func scopeWord(sc Scope) string {
	switch {
	case sc.Label != "":
		return strings.ToUpper(sc.Label)
	case sc.Partial():
		return "PARTIAL SELECTION"
	}
	return "REDUCED LOAD"
}

// scopeCoverage is what a narrowed run covered: rows of the target's, and the load it lowered.
func scopeCoverage(sc Scope) string {
	s := fmt.Sprintf("%d of %d rows", sc.Selected, sc.Total)
	if len(sc.Reduced) > 0 {
		s += fmt.Sprintf(", at a load below the target's (%s)", strings.Join(sc.Reduced, "; "))
	}
	return s
}

// ScopeWords is a stage's or a run's scope in one phrase, as its JUnit report and summary carry
// it: "qualification: 6 of 6 rows at the target's load", or the narrowed run's word and coverage.
func ScopeWords(sc Scope) string {
	if sc.Total == 0 { // a blocked stage, or one the target gives no row: nothing to run or narrow
		return "no rows: nothing of the stage is run (blocked, or the target has no row for it)"
	}
	if !sc.Narrowed() {
		return fmt.Sprintf("qualification: %d of %d rows at the target's load", sc.Selected, sc.Total)
	}
	return scopeWord(sc) + " — not a qualification: " + scopeCoverage(sc)
}

// settleInventory leaves every inventory row as its result makes it, and gives the rows the run
// gave no result their own word (RowAsRun).
func settleInventory(s *Stage) {
	for i, row := range s.Inventory {
		s.Inventory[i] = RowAsRun(row, s.Results)
	}
}
