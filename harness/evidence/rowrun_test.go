package evidence

import (
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
