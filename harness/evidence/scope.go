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
}

// Partial says whether the run left rows of the target out.
func (s Scope) Partial() bool { return s.Selected < s.Total }

// ScopeOf is the run's scope over its stages.
func ScopeOf(e Evidence) Scope {
	var sc Scope
	for _, s := range e.Stages {
		st := StageScope(s)
		sc.Selected, sc.Total, sc.Counted = sc.Selected+st.Selected, sc.Total+st.Total, sc.Counted+st.Counted
		if sc.Label == "" {
			sc.Label = st.Label
		}
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
	return sc
}

// scopeVerdict wraps the stages' verdict of a run that left rows out: its word, what it covered
// and what its selected rows gave.
func scopeVerdict(sc Scope, stages string) string {
	label := strings.ToUpper(sc.Label)
	if label == "" {
		label = "PARTIAL SELECTION"
	}
	return fmt.Sprintf("%s — not a qualification: %d of %d rows (selected rows: %s)", label, sc.Selected, sc.Total, stages)
}

// markNotSelected gives the inventory rows the run gave no result their own word.
func markNotSelected(s *Stage) {
	for i, row := range s.Inventory {
		if !Resulting(row) || slices.ContainsFunc(s.Results, func(r Result) bool { return r.Profile == row.Profile }) {
			continue
		}
		s.Inventory[i].Status = StatusNotSelected
	}
}
