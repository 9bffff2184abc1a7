package qualify

import (
	"fmt"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/plan"
)

// A row's "row i/n" counts only the rows this run runs: a gap, an excluded row, a distributed
// (planned) row and an unselected row are declared but never run, so they are in neither i nor
// n; on a machine that cannot run the target no row runs.
func TestPositionCountsOnlyTheRowsThisRunRuns(t *testing.T) {
	rows := []evidence.InventoryRow{
		{Profile: "gap", Kind: evidence.KindGap},
		{Profile: "a", Kind: evidence.KindFull},
		{Profile: "excluded", Kind: evidence.KindExcluded},
		{Profile: "tp2", Kind: evidence.KindFull, GPUs: 2},
		{Profile: "unselected", Kind: evidence.KindFull},
		{Profile: "b", Kind: evidence.KindReduced},
		{Profile: "c", Kind: evidence.KindVariant},
	}
	resulting := []string{"a", "tp2", "unselected", "b", "c"}
	for _, tc := range []struct {
		name     string
		selected []string
		planned  string
		want     map[string]string
	}{
		{"whole run", resulting, "", map[string]string{"a": "1/4", "unselected": "2/4", "b": "3/4", "c": "4/4"}},
		{"a selection", []string{"a", "b", "c"}, "", map[string]string{"a": "1/3", "b": "2/3", "c": "3/3"}},
		{"one row", []string{"c"}, "", map[string]string{"c": "1/1"}},
		{"machine cannot run the target", resulting, "no GPU", map[string]string{}},
	} {
		s := &Suite{Plan: &plan.Plan{Rows: rows, PlannedReason: tc.planned, Selection: plan.Selection{Rows: tc.selected}}}
		n := len(tc.want)
		for _, r := range rows {
			i, total := s.position(r)
			if total != n {
				t.Errorf("%s: %s counts %d rows, want %d", tc.name, r.Profile, total, n)
			}
			if want, runs := tc.want[r.Profile]; runs && fmt.Sprintf("%d/%d", i, total) != want {
				t.Errorf("%s: %s is row %d/%d, want %s", tc.name, r.Profile, i, total, want)
			}
		}
	}
}

// Ginkgo ORs focus strings, so a selection beside a user's own --focus would widen the run to
// the rows of either: the combination is refused; each alone is the run's focus.
func TestSelectionAndAUsersFocusNeverWidenTheRun(t *testing.T) {
	sel := plan.Selection{Active: true, Rows: []string{"a"}, Label: "focused"}
	for _, tc := range []struct {
		name string
		sel  plan.Selection
		user []string
		want []string
		err  bool
	}{
		{"neither", plan.Selection{}, nil, nil, false},
		{"the user's focus alone", plan.Selection{}, []string{"b"}, []string{"b"}, false},
		{"the selection alone", sel, nil, []string{sel.Focus()}, false},
		{"both", sel, []string{"b"}, nil, true},
		{"both, a stage with no selected row", plan.Selection{Active: true}, []string{"b"}, nil, true},
	} {
		got, err := focus(tc.sel, tc.user)
		if (err != nil) != tc.err || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: focus %q, error %v; want %q, error %v", tc.name, got, err, tc.want, tc.err)
		}
		if err != nil && !strings.Contains(err.Error(), "--focus") {
			t.Errorf("%s: the error does not name --focus: %v", tc.name, err)
		}
	}
}

// "row i/n" is progress: rows started in any order read 1/n, 2/n, … in the order they start.
func TestRowsAreNumberedInTheOrderTheyStart(t *testing.T) {
	rows := []evidence.InventoryRow{{Profile: "a", Kind: evidence.KindFull}, {Profile: "b", Kind: evidence.KindReduced}, {Profile: "c", Kind: evidence.KindVariant}}
	s := &Suite{Plan: &plan.Plan{Rows: rows, Selection: plan.Selection{Rows: []string{"a", "b", "c"}}}}
	for want, r := range []evidence.InventoryRow{rows[2], rows[0], rows[1]} {
		if i, n := s.nextPosition(r); i != want+1 || n != 3 {
			t.Errorf("row %s started %s: announced %d/%d", r.Profile, []string{"first", "second", "third"}[want], i, n)
		}
	}
}
