package plan

import (
	"fmt"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/config"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
)

func checkout() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// configWith reads the configuration as a run does, with vars as its only QUAL_* variables.
func configWith(t *testing.T, vars map[string]string) (config.Config, error) {
	t.Helper()
	var environ []string
	for k, v := range vars {
		environ = append(environ, k+"="+v)
	}
	return config.FromEnv(func(k string) string { return vars[k] }, environ, checkout())
}

// describeText is a row's spec text as the suite's Describe writes it (suites/qualify describe),
// inside the stage's own Describe, followed by one of its claims.
func describeText(stageTitle, profile string) string {
	return fmt.Sprintf("%s %s (checkpoint some/ckpt@rev, full model, counted) builds the bundle", stageTitle, profile)
}

// For every row of the reference target, a selection of that row alone gives a focus that matches
// that row's specs and no other row's — including rows whose profile extends it
// (sphinx-en-us / sphinx-en-us-fast, whisper-tiny-en / whisper-tiny-en-int8) — and every pair of
// rows selects exactly those two.
func TestFocusSelectsExactlyTheSelectedRows(t *testing.T) {
	cfg, err := configWith(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, s := range stage.Names() {
		p, err := New(cfg, s)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range p.TargetRows {
			if evidence.Resulting(r) {
				all = append(all, r.Profile)
			}
		}
	}
	if len(all) < 10 {
		t.Fatalf("the reference target has %d resulting rows: the table below would prove little", len(all))
	}
	for i, a := range all {
		for _, b := range all[i:] {
			sel := Selection{Active: true, Rows: slices.Compact([]string{a, b})}
			focus := regexp.MustCompile(sel.Focus())
			for _, other := range all {
				got := focus.MatchString(describeText("Stage 3: recorded-clip transcription", other))
				if want := other == a || other == b; got != want {
					t.Errorf("focus %q of %v matches %s: %v, want %v", sel.Focus(), sel.Rows, other, got, want)
				}
			}
		}
	}
	if none := regexp.MustCompile(Selection{Active: true}.Focus()); none.MatchString(describeText("x", all[0])) || none.MatchString("") {
		t.Errorf("the focus of an empty selection matches a spec")
	}
}

// QUAL_STAGE, QUAL_ROWS and QUAL_RERUN each narrow the selection, and together intersect; without
// any, every resulting row is selected and the selection is not active.
func TestSelectNarrowsByStageRowsAndRerun(t *testing.T) {
	rerun := writeRun(t, map[string][]evidence.Result{
		"asr": {{Profile: "sphinx-en-us", Status: evidence.StatusFailed}, {Profile: "whisper-tiny-en", Status: evidence.StatusQualified},
			{Profile: "sphinx-an4-l0", Status: evidence.StatusFailed}},
		"t2i": {{Profile: "procdiff-small", Status: evidence.StatusFailed}, {Profile: "procdiff-base", Status: evidence.StatusQualified}},
	})
	for _, tc := range []struct {
		vars   map[string]string
		want   map[stage.Name][]string
		label  string
		active bool
	}{
		{nil, map[stage.Name][]string{"asr": {"whisper-tiny-en", "whisper-tiny-en-int8", "sphinx-en-us", "sphinx-en-us-fast", "sphinx-an4-l0", "sphinx-tidigits"},
			"t2i": {"procdiff-base", "procdiff-base-fp16", "procdiff-small", "procdiff-small-l0"}, "audioqa": {"sphinxqa-en-us", "sphinxqa-an4-l0"}}, "", false},
		{map[string]string{"QUAL_STAGE": "asr", "QUAL_ROWS": "sphinx-en-us,whisper-tiny-en"}, map[stage.Name][]string{"asr": {"whisper-tiny-en", "sphinx-en-us"}}, "focused", true},
		{map[string]string{"QUAL_STAGE": "t2i"}, map[stage.Name][]string{"t2i": {"procdiff-base", "procdiff-base-fp16", "procdiff-small", "procdiff-small-l0"}}, "focused", true},
		{map[string]string{"QUAL_ROWS": "sphinx-tidigits procdiff-small"}, map[stage.Name][]string{"asr": {"sphinx-tidigits"}, "t2i": {"procdiff-small"}}, "focused", true},
		{map[string]string{"QUAL_RERUN": rerun}, map[stage.Name][]string{"asr": {"sphinx-en-us", "sphinx-an4-l0"}, "t2i": {"procdiff-small"}}, "rerun", true},
		{map[string]string{"QUAL_RERUN": rerun, "QUAL_STAGE": "asr"}, map[stage.Name][]string{"asr": {"sphinx-en-us", "sphinx-an4-l0"}}, "rerun", true},
		{map[string]string{"QUAL_RERUN": rerun, "QUAL_ROWS": "procdiff-small,whisper-tiny-en"}, map[stage.Name][]string{"t2i": {"procdiff-small"}}, "rerun", true},
	} {
		cfg, err := configWith(t, tc.vars)
		if err != nil {
			t.Fatalf("%v: %v", tc.vars, err)
		}
		sels, err := CheckSelection(cfg)
		if err != nil {
			t.Fatalf("%v: %v", tc.vars, err)
		}
		for _, s := range stage.Names() {
			got := sels[s]
			if !slices.Equal(got.Rows, tc.want[s]) || got.Active != tc.active || (tc.active && got.Label != tc.label) {
				t.Errorf("%v stage %s: %+v, want rows %v label %q active %v", tc.vars, s, got, tc.want[s], tc.label, tc.active)
			}
			p, err := New(cfg, s)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(p.Selection.Rows, got.Rows) {
				t.Errorf("%v stage %s: the suite's plan selects %v, qual config %v", tc.vars, s, p.Selection.Rows, got.Rows)
			}
			if tc.active && p.ScopeLabel(false) != tc.label {
				t.Errorf("%v stage %s: scope label %q, want %q", tc.vars, s, p.ScopeLabel(false), tc.label)
			}
		}
	}
}

// A selection that names a row no selected stage has, or selects nothing (a rerun of a run with
// no failed row), stops before anything runs with one line naming it.
func TestSelectionErrorsNameTheCause(t *testing.T) {
	clean := writeRun(t, map[string][]evidence.Result{"asr": {{Profile: "sphinx-en-us", Status: evidence.StatusQualified}}})
	for _, tc := range []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"QUAL_ROWS": "sphinx-en-uss"}, `QUAL_ROWS names "sphinx-en-uss"`},
		{map[string]string{"QUAL_STAGE": "t2i", "QUAL_ROWS": "sphinx-en-us"}, `QUAL_ROWS names "sphinx-en-us"`},
		{map[string]string{"QUAL_RERUN": clean}, "has no failed row"},
		{map[string]string{"QUAL_RERUN": t.TempDir()}, "no stage evidence"},
	} {
		cfg, err := configWith(t, tc.vars)
		if err == nil {
			_, err = CheckSelection(cfg)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.vars, err, tc.want)
		}
	}
}

// writeRun writes an assembled run (evidence.json) whose stages hold results.
func writeRun(t *testing.T, results map[string][]evidence.Result) string {
	t.Helper()
	dir := t.TempDir()
	e := evidence.Evidence{SchemaVersion: evidence.SchemaVersion, RunID: "fixture"}
	for _, s := range stage.Names() {
		if rs, ok := results[string(s)]; ok {
			e.Stages = append(e.Stages, evidence.Stage{SchemaVersion: evidence.SchemaVersion, Stage: string(s), Number: s.Number(), Results: rs})
		}
	}
	if err := evidence.WriteJSON(filepath.Join(dir, "evidence.json"), e); err != nil {
		t.Fatal(err)
	}
	return dir
}
