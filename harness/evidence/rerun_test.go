package evidence

import (
	"maps"
	"reflect"
	"testing"
)

// A run that selected rows of one stage records the other stages not selected: they keep the
// target's rows as denominators, their own status (never failed for having no counted row, never
// planned), they do not weigh on the selected rows' verdict, and the run's versions are those of
// the stage that ran.
func TestStagesNotSelectedCountInTheScopeOnly(t *testing.T) {
	dir := t.TempDir()
	ran := Stage{SchemaVersion: SchemaVersion, Stage: "asr", Number: 3, Inventory: scopeRows(), Versions: map[string]string{"trtmc-qual": "abc"},
		Target: "suites/targets/reference.yaml", Selection: SelectionOf(scopeRows(), "focused"),
		Results: []Result{{Profile: "a", Kind: KindFull, Counted: true, Status: StatusQualified}}}
	idle := Stage{SchemaVersion: SchemaVersion, Stage: "t2i", Number: 6, Inventory: scopeRows(), Selection: SelectionOf(scopeRows(), "focused")}
	for _, s := range []Stage{ran, idle} {
		run := NewStageRun(s)
		if err := run.Write(dir, s.Versions, Hardware{}); err != nil {
			t.Fatal(err)
		}
	}
	e, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.Stages[1]; got.Status != StatusNotSelected || got.Inventory[0].Status != StatusNotSelected || got.Inventory[3].Status == StatusNotSelected {
		t.Errorf("stage not selected: status %q, inventory %+v", got.Status, got.Inventory)
	}
	if want := "FOCUSED — not a qualification: 1 of 6 rows (selected rows: QUALIFIED)"; Verdict(e) != want {
		t.Errorf("verdict %q, want %q", Verdict(e), want)
	}
	if !maps.Equal(e.Versions, map[string]string{"trtmc-qual": "abc"}) || e.Target != ran.Target {
		t.Errorf("run versions %v target %q: not the stage that ran", e.Versions, e.Target)
	}
	// The status rule is the one verify re-applies: the stage settles to not selected again.
	again := e.Stages[1]
	again.Status = ""
	Settle(&again)
	if again.Status != StatusNotSelected {
		t.Errorf("re-settled: %q", again.Status)
	}
	// A stage with no label (a whole run) and no result still fails: nothing qualified it.
	whole := Stage{Inventory: scopeRows(), Selection: SelectionOf(scopeRows(), "")}
	Settle(&whole)
	if whole.Status != StatusFailed {
		t.Errorf("a whole run's stage without results settles to %q", whole.Status)
	}
}

// FailedRows are exactly the rows whose status is failed, counted or not, by stage.
func TestFailedRowsAreTheFailedOnes(t *testing.T) {
	var results []Result
	for _, st := range []Status{StatusPlanned, StatusImplemented, StatusFamilyValidated, StatusQualified, StatusUnsupported, StatusBlocked, StatusFailed, StatusNotSelected} {
		results = append(results, Result{Profile: string(st), Status: st}, Result{Profile: string(st) + "-counted", Status: st, Counted: true})
	}
	e := Evidence{Stages: []Stage{{Stage: "asr", Results: results}, {Stage: "t2i", Inventory: []InventoryRow{{Profile: "x"}}}}}
	if got, want := FailedRows(e), map[string][]string{"asr": {"failed", "failed-counted"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("FailedRows %v, want %v", got, want)
	}
}

// A narrowed run that selected only a stage's recorded (reduced, variant) rows is not failed for
// having no counted row: those rows reached what their kind can reach. A whole run's stage, and a
// narrowed one with a failure, still fail.
func TestNarrowedStageOfRecordedRowsOnly(t *testing.T) {
	validated := Result{Profile: "c", Kind: KindReduced, Status: StatusFamilyValidated}
	for _, tc := range []struct {
		label   string
		results []Result
		want    Status
	}{
		{"rerun", []Result{validated}, StageQualified},
		{"focused", []Result{{Profile: "c", Kind: KindReduced, Status: StatusFailed}}, StatusFailed},
		{"", []Result{validated}, StatusFailed},
	} {
		s := Stage{Inventory: scopeRows(), Selection: SelectionOf(scopeRows(), tc.label), Results: tc.results}
		Settle(&s)
		if s.Status != tc.want {
			t.Errorf("label %q %v: %s (%s), want %s", tc.label, tc.results, s.Status, s.Reason, tc.want)
		}
	}
}
