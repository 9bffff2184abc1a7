package qualify

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/trtmc-qual/trtmc-qual/harness/checkpoint"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/plan"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
)

// A row a user's Ginkgo filter leaves out (the READMEs' `--label-filter='asr && !slow'`,
// `--focus "<row> "`, `--skip`) was not selected: it must not be recorded failed "not run" when
// the suite ends without its result; a row the filters select, and the run's own selection's
// rows, are. Filters by file or version select nothing here (never a false failure).
func TestRowFilterFollowsGinkgosFilters(t *testing.T) {
	rows := []evidence.InventoryRow{
		{Profile: "sphinx-tidigits", Checkpoint: "pocketsphinx-testdata/tidigits", Kind: evidence.KindFull, Counted: true},
		{Profile: "whisper-tiny-en", Checkpoint: "openai/whisper-tiny.en", Kind: evidence.KindFull, Counted: true},
		{Profile: "sphinx-an4-l0", Checkpoint: "pocketsphinx-testdata/an4", Kind: evidence.KindReduced},
	}
	s := &Suite{stage: stage.ASR, title: "Stage 3: recorded-clip transcription", Plan: &plan.Plan{Stage: stage.ASR, Rows: rows}}
	const description = "Stage 3 (asr): recorded-clip transcription"
	of := func(row evidence.InventoryRow) (string, []string) {
		return description + " " + s.title + " " + s.describe(row, s.rowWords(row)), s.rowLabels(row)
	}
	for _, tc := range []struct {
		name string
		cfg  types.SuiteConfig
		want []bool
	}{
		{"no filter", types.SuiteConfig{}, []bool{true, true, true}},
		{"asr && !slow", types.SuiteConfig{LabelFilter: "asr && !slow"}, []bool{false, false, true}},
		{"slow", types.SuiteConfig{LabelFilter: "slow"}, []bool{true, true, false}},
		{"another stage", types.SuiteConfig{LabelFilter: "t2i"}, []bool{false, false, false}},
		{"focus on a row", types.SuiteConfig{FocusStrings: []string{"sphinx-tidigits "}}, []bool{true, false, false}},
		{"the run's selection", types.SuiteConfig{FocusStrings: []string{plan.Selection{Rows: []string{"whisper-tiny-en", "sphinx-an4-l0"}}.Focus()}}, []bool{false, true, true}},
		{"skip a row", types.SuiteConfig{SkipStrings: []string{"whisper"}}, []bool{true, false, true}},
		{"skip everything", types.SuiteConfig{SkipStrings: []string{"."}}, []bool{false, false, false}},
		{"focus and label", types.SuiteConfig{LabelFilter: "containers", FocusStrings: []string{"sphinx"}}, []bool{true, false, false}},
		{"focus files", types.SuiteConfig{FocusFiles: []string{"qualify.go"}}, []bool{false, false, false}},
	} {
		f, err := rowFilter(tc.cfg, of)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for i, row := range rows {
			if got := f(row); got != tc.want[i] {
				t.Errorf("%s: %s selected %v, want %v (text %q)", tc.name, row.Profile, got, tc.want[i], func() string { x, _ := of(row); return x }())
			}
		}
	}
	if _, err := rowFilter(types.SuiteConfig{LabelFilter: "asr &&"}, of); err == nil {
		t.Error("a malformed label filter was read")
	}
}

// recordUnfinished records failed "not run" only for a row the tree declared specs for, the
// filters select and that left no result: a blocked stage's rows (no specs), a row a user's
// filter left out and a row with a result are left as they are.
func TestRecordUnfinishedOnlyForDeclaredSelectedRows(t *testing.T) {
	rows := []evidence.InventoryRow{
		{Profile: "ran", Kind: evidence.KindFull, Counted: true},
		{Profile: "stopped", Kind: evidence.KindFull, Counted: true},
		{Profile: "filtered", Kind: evidence.KindReduced},
		{Profile: "undeclared", Kind: evidence.KindVariant},
	}
	root := t.TempDir()
	s := &Suite{stage: stage.ASR, Plan: &plan.Plan{Stage: stage.ASR, Rows: rows, Selection: plan.Selection{Rows: []string{"ran", "stopped", "filtered", "undeclared"}}},
		Env:   &checkpoint.Env{Root: root, Stage: stage.ASR, Target: &target.Target{Path: filepath.Join(root, "t.yaml"), AIPerf: map[stage.Name]target.Load{stage.ASR: {Runs: 1}}}},
		Stage: evidence.NewStageRun(evidence.Stage{Stage: "asr"}), declared: map[string]bool{"ran": true, "stopped": true, "filtered": true},
		filter: func(row evidence.InventoryRow) bool { return row.Profile != "filtered" }}
	s.Stage.Add(evidence.Result{Profile: "ran", Status: evidence.StatusQualified})
	s.recordUnfinished()
	got := map[string]evidence.Status{}
	for _, r := range s.Stage.Snapshot().Results {
		if _, dup := got[r.Profile]; dup {
			t.Errorf("%s has two results", r.Profile)
		}
		got[r.Profile] = r.Status
	}
	want := map[string]evidence.Status{"ran": evidence.StatusQualified, "stopped": evidence.StatusFailed}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("results %v, want %v", got, want)
	}
}
