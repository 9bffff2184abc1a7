package evidence

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
)

// TestResultStatusesAreTheSuitesOutcomes: only a counted full row can be aiperf-qualified, a
// row the suite builds and gates only stops at family-validated, a row the machine cannot run is
// planned, and a row no run gives a result has no status to take.
func TestResultStatusesAreTheSuitesOutcomes(t *testing.T) {
	cases := []struct {
		row       InventoryRow
		cannotRun bool
		want      []Status
	}{
		{InventoryRow{Kind: KindFull, Counted: true}, false, []Status{StatusQualified, StatusFailed}},
		{InventoryRow{Kind: KindReduced}, false, []Status{StatusFamilyValidated, StatusFailed}},
		{InventoryRow{Kind: KindVariant}, false, []Status{StatusFamilyValidated, StatusFailed}},
		{InventoryRow{Kind: KindFull, Counted: true, GPUs: 2}, false, []Status{StatusPlanned}},
		{InventoryRow{Kind: KindReduced}, true, []Status{StatusPlanned}},
		{InventoryRow{Kind: KindExcluded, Status: StatusUnsupported}, false, nil},
		{InventoryRow{Kind: KindGap, Status: StatusUnsupported}, true, nil},
	}
	for _, c := range cases {
		if got := ResultStatuses(c.row, c.cannotRun); !slices.Equal(got, c.want) {
			t.Errorf("%s row (counted %v, %d GPUs, cannot run %v): %v, want %v", c.row.Kind, c.row.Counted, c.row.GPUs, c.cannotRun, got, c.want)
		}
	}
}

// TestRowAsRunIsWhatWriteLeaves: a stage written by StageRun leaves each row as RowAsRun makes
// it from the scanned row, and a result without controls keeps the row's.
func TestRowAsRunIsWhatWriteLeaves(t *testing.T) {
	scanned := []InventoryRow{
		{Profile: "ran", Kind: KindFull, Counted: true, Status: StatusPlanned, Controls: []string{"scan"}},
		{Profile: "bare", Kind: KindReduced, Status: StatusPlanned, Controls: []string{"scan"}},
		{Profile: "left", Kind: KindVariant, Status: StatusPlanned},
		{Profile: "gap:x", Kind: KindGap, Status: StatusUnsupported},
	}
	run := NewStageRun(Stage{SchemaVersion: SchemaVersion, Stage: "asr", Inventory: slices.Clone(scanned)})
	run.Add(Result{Profile: "ran", Kind: KindFull, Counted: true, Status: StatusQualified, Controls: []string{"language"}})
	run.Add(Result{Profile: "bare", Kind: KindReduced, Status: StatusFailed})
	dir := t.TempDir()
	if err := run.Write(dir, nil, Hardware{}); err != nil {
		t.Fatal(err)
	}
	s, err := ReadStage(filepath.Join(dir, "asr", "stage.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := []InventoryRow{
		{Profile: "ran", Kind: KindFull, Counted: true, Status: StatusQualified, Controls: []string{"language"}},
		{Profile: "bare", Kind: KindReduced, Status: StatusFailed, Controls: []string{"scan"}},
		{Profile: "left", Kind: KindVariant, Status: StatusNotSelected},
		{Profile: "gap:x", Kind: KindGap, Status: StatusUnsupported},
	}
	for i, row := range scanned {
		ran := RowAsRun(row, s.Results)
		if !slices.Equal(ran.Controls, want[i].Controls) || ran.Status != want[i].Status || s.Inventory[i].Status != ran.Status || !slices.Equal(s.Inventory[i].Controls, ran.Controls) {
			t.Errorf("%s: RowAsRun %s %v, written %s %v; want %s %v", row.Profile, ran.Status, ran.Controls, s.Inventory[i].Status, s.Inventory[i].Controls, want[i].Status, want[i].Controls)
		}
	}
}

// TestEverySelectedRowEndsWithOneResult attacks every way a selected row's checkpoint can end
// without a result (never prepared, skipped, the suite stopped), over 500 random stages: after
// NotRunResult for each unfinished row, every selected row holds exactly one result the verifier
// accepts for it, none reads "not selected", and a stage with a row not run fails.
func TestEverySelectedRowEndsWithOneResult(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	kinds := []Kind{KindFull, KindReduced, KindVariant}
	for draw := range 500 {
		var rows, selected []InventoryRow
		for i := range 1 + rng.IntN(6) {
			k := kinds[rng.IntN(len(kinds))]
			row := InventoryRow{Profile: fmt.Sprintf("p%d", i), Kind: k, Counted: k == KindFull, Status: StatusPlanned}
			rows = append(rows, row)
			if rng.IntN(4) > 0 {
				selected = append(selected, row)
			}
		}
		run := NewStageRun(Stage{SchemaVersion: SchemaVersion, Stage: "asr", Inventory: slices.Clone(rows), Selection: SelectionOf(rows, "focused")})
		finished := 0
		for _, row := range selected {
			if rng.IntN(2) == 0 {
				st := ResultStatuses(row, false)
				run.Add(Result{Profile: row.Profile, Kind: row.Kind, Counted: row.Counted, Status: st[rng.IntN(len(st))]})
				finished++
			}
		}
		unfinished := run.Unfinished(selected)
		if len(unfinished) != len(selected)-finished {
			t.Fatalf("draw %d: %d unfinished of %d selected with %d results", draw, len(unfinished), len(selected), finished)
		}
		for _, row := range unfinished {
			run.Add(NotRunResult(row, "the suite stopped"))
		}
		s := run.Snapshot()
		Settle(&s)
		for _, row := range selected {
			var got []Result
			for _, r := range s.Results {
				if r.Profile == row.Profile {
					got = append(got, r)
				}
			}
			if len(got) != 1 {
				t.Fatalf("draw %d: row %s has %d results", draw, row.Profile, len(got))
			}
			if !slices.Contains(ResultStatuses(row, false), got[0].Status) {
				t.Errorf("draw %d: row %s recorded %s, not a status a run can record for it %v", draw, row.Profile, got[0].Status, ResultStatuses(row, false))
			}
			if st := RowAsRun(row, s.Results).Status; st == StatusNotSelected {
				t.Errorf("draw %d: selected row %s reads %q", draw, row.Profile, st)
			}
		}
		if len(unfinished) > 0 && s.Status != StatusFailed {
			t.Errorf("draw %d: %d selected rows were not run, but the stage settled %s (%s)", draw, len(unfinished), s.Status, s.Reason)
		}
		if len(run.Unfinished(selected)) != 0 {
			t.Errorf("draw %d: rows still unfinished after NotRunResult", draw)
		}
	}
}
