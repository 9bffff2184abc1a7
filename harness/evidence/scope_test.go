package evidence

import (
	"testing"
)

func scopeRows() []InventoryRow {
	return []InventoryRow{
		{Profile: "a", Kind: KindFull, Counted: true, Status: StatusPlanned},
		{Profile: "b", Kind: KindFull, Counted: true, Status: StatusPlanned},
		{Profile: "c", Kind: KindReduced, Status: StatusPlanned},
		{Profile: "x", Kind: KindExcluded, Status: StatusPlanned},
	}
}

// Every way of selecting part of the target — a label or none, one row or all but one, a
// shard's stage or a merge — gives a verdict that says it is not a qualification, with the
// target's denominators; selecting every row gives the stages' verdict; the rows not run are
// "not selected" in the inventory, never "planned".
func TestVerdictSaysWhenTheRunLeftRowsOut(t *testing.T) {
	qualified := func(p string, counted bool) Result {
		k := KindFull
		if !counted {
			k = KindReduced
		}
		st := StatusQualified
		if !counted {
			st = StatusFamilyValidated
		}
		return Result{Profile: p, Kind: k, Counted: counted, Status: st}
	}
	for _, tc := range []struct {
		label   string
		results []Result
		want    string
	}{
		{"smoke", []Result{qualified("a", true)}, "SMOKE — not a qualification: 1 of 3 rows (selected rows: QUALIFIED)"},
		{"", []Result{qualified("a", true), qualified("c", false)}, "PARTIAL SELECTION — not a qualification: 2 of 3 rows (selected rows: QUALIFIED)"},
		{"shard 1/2", []Result{qualified("a", true), {Profile: "b", Kind: KindFull, Counted: true, Status: StatusFailed}}, "SHARD 1/2 — not a qualification: 2 of 3 rows (selected rows: FAILED)"},
		{"focused", []Result{qualified("a", true), qualified("b", true), qualified("c", false)}, "QUALIFIED"},
	} {
		e := assembleScoped(t, tc.label, tc.results, map[string]string{})
		if got := Verdict(e); got != tc.want {
			t.Errorf("label %q, %d rows: verdict %q, want %q", tc.label, len(tc.results), got, tc.want)
		}
		ran := map[string]bool{}
		for _, r := range tc.results {
			ran[r.Profile] = true
		}
		for _, row := range e.Stages[0].Inventory {
			switch {
			case row.Kind == KindExcluded:
				if row.Status == StatusNotSelected {
					t.Errorf("excluded row %s marked not selected", row.Profile)
				}
			case !ran[row.Profile] && row.Status != StatusNotSelected:
				t.Errorf("row %s not run has status %q, want %q", row.Profile, row.Status, StatusNotSelected)
			case ran[row.Profile] && row.Status == StatusNotSelected:
				t.Errorf("row %s ran but is marked not selected", row.Profile)
			}
		}
	}
	// Two shards merged cover the target: the stages' verdict, whatever each shard's word was.
	m := NewMerge()
	for i, rs := range [][]Result{{qualified("a", true)}, {qualified("b", true), qualified("c", false)}} {
		s := Stage{Stage: "asr", Number: 3, Inventory: scopeRows(), Results: rs, Selection: SelectionOf(scopeRows(), []string{"shard 1/2", "shard 2/2"}[i])}
		m.Add(s)
	}
	merged := m.Stages()["asr"]
	if got := Verdict(Evidence{Stages: []Stage{merged}}); got != "QUALIFIED" {
		t.Errorf("merged shards covering the target: %q", got)
	}
	if sc := StageScope(merged); sc.Selected != 3 || sc.Total != 3 || sc.Counted != 2 {
		t.Errorf("merged scope %+v", sc)
	}
}

// A test build's verdict keeps its scope: a smoke, a focus or a shard of a test build says both
// that it is a test build and which of the target's rows ran; a whole run says TEST BUILD alone,
// whatever its stages say.
func TestTestBuildVerdictKeepsTheScope(t *testing.T) {
	full := Result{Profile: "a", Kind: KindFull, Counted: true, Status: StatusQualified}
	for _, tc := range []struct {
		label   string
		results []Result
		want    string
	}{
		{"smoke", []Result{full}, "TEST BUILD — SMOKE — not a qualification: 1 of 3 rows (selected rows: QUALIFIED)"},
		{"shard 1/2", []Result{full}, "TEST BUILD — SHARD 1/2 — not a qualification: 1 of 3 rows (selected rows: QUALIFIED)"},
		{"focused", []Result{{Profile: "a", Kind: KindFull, Counted: true, Status: StatusFailed}}, "TEST BUILD — FOCUSED — not a qualification: 1 of 3 rows (selected rows: FAILED)"},
		{"focused", []Result{full, {Profile: "b", Kind: KindFull, Counted: true, Status: StatusQualified}, {Profile: "c", Kind: KindReduced, Status: StatusFamilyValidated}}, "TEST BUILD"},
	} {
		e := assembleScoped(t, tc.label, tc.results, map[string]string{BuildTagsKey: "qual_slowdown"})
		if got := Verdict(e); got != tc.want {
			t.Errorf("test build, label %q, %d rows: verdict %q, want %q", tc.label, len(tc.results), got, tc.want)
		}
	}
}

// assembleScoped is the evidence of a one-stage run over scopeRows that selected under label and
// gave results, its binaries described by versions.
func assembleScoped(t *testing.T, label string, results []Result, versions map[string]string) Evidence {
	t.Helper()
	dir := t.TempDir()
	run := NewStageRun(Stage{SchemaVersion: SchemaVersion, Stage: "asr", Number: 3, Inventory: scopeRows(), Selection: SelectionOf(scopeRows(), label)})
	for _, r := range results {
		run.Add(r)
	}
	if err := run.Write(dir, versions, Hardware{}); err != nil {
		t.Fatal(err)
	}
	e, err := Assemble(dir)
	if err != nil {
		t.Fatal(err)
	}
	return e
}
