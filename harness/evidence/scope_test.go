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

// A stage's and a row's status word: in a narrowed run a qualifying one carries the run's scope
// word in the verdict's words, the others (which claim nothing) stay bare; a whole run at the
// target's load reads the bare words.
func TestStatusWordsCarryTheRunsScope(t *testing.T) {
	whole := Scope{Selected: 3, Total: 3}
	for _, c := range []struct {
		run        Scope
		stage, row string
	}{
		{whole, "QUALIFIED", "aiperf-qualified"},
		{Scope{Selected: 1, Total: 3, Label: "smoke"}, "SMOKE — not a qualification (selected rows: QUALIFIED)",
			"SMOKE — not a qualification (selected row: aiperf-qualified)"},
		{Scope{Selected: 1, Total: 3}, "PARTIAL SELECTION — not a qualification (selected rows: QUALIFIED)",
			"PARTIAL SELECTION — not a qualification (selected row: aiperf-qualified)"},
		{Scope{Selected: 3, Total: 3, Reduced: []string{"asr: runs 2 of 5"}}, "REDUCED LOAD — not a qualification (selected rows: QUALIFIED)",
			"REDUCED LOAD — not a qualification (selected row: aiperf-qualified)"},
		{Scope{Selected: 2, Total: 6, Label: "shard 2/3", Reduced: []string{"asr: runs 2 of 5"}}, "SHARD 2/3 — not a qualification (selected rows: QUALIFIED)",
			"SHARD 2/3 — not a qualification (selected row: aiperf-qualified)"},
	} {
		if got := StageWord(StageQualified, c.run); got != c.stage {
			t.Errorf("%+v: stage word %q, want %q", c.run, got, c.stage)
		}
		if got := RowWord(StatusQualified, c.run); got != c.row {
			t.Errorf("%+v: row word %q, want %q", c.run, got, c.row)
		}
		if got := StageWord(StatusFailed, c.run); got != "FAILED" {
			t.Errorf("%+v: failed stage word %q", c.run, got)
		}
		for _, st := range []Status{StatusFailed, StatusFamilyValidated, StatusPlanned, StatusNotSelected, StatusUnsupported, StatusBlocked} {
			if got := RowWord(st, c.run); got != string(st) {
				t.Errorf("%+v: row word of %s is %q: a status that claims nothing stays bare", c.run, st, got)
			}
		}
	}
}
