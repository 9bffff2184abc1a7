package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// makeDryRun is `make -n TARGET ARGS...` in the checkout: the commands make would run.
func makeDryRun(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("make", append([]string{"--no-print-directory", "-n"}, args...)...)
	cmd.Dir = repoRoot()
	cmd.Env = append(os.Environ(), "QUAL_FAIL_ON=", "QUAL_SCOPE=", "QUAL_STAGE=", "QUAL_ROWS=", "QUAL_RERUN=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// make's selection variables reach the run only through harness/config: every qual command and
// the suites' ginkgo line get QUAL_STAGE, QUAL_ROWS and QUAL_RERUN (no focus is spelled in the
// Makefile), and a selecting run fails only on a FAILED stage, as a shard does. make smoke is a
// selection of its rows under the word smoke.
func TestMakeSelectionReachesTheSuitesThroughConfig(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  string
		fail bool // --fail-on failed
	}{
		{[]string{"qualify-all", "STAGE=asr", "ROWS=sphinx-en-us,whisper-tiny-en"}, "QUAL_STAGE=asr QUAL_ROWS=sphinx-en-us,whisper-tiny-en QUAL_RERUN= ", true},
		{[]string{"qualify", "STAGE=asr", "ROWS=sphinx-en-us,whisper-tiny-en"}, "QUAL_STAGE=asr QUAL_ROWS=sphinx-en-us,whisper-tiny-en QUAL_RERUN= ", true},
		{[]string{"qualify", "RERUN=reports/some-run"}, "QUAL_STAGE= QUAL_ROWS= QUAL_RERUN=reports/some-run ", true},
		{[]string{"smoke"}, "QUAL_STAGE= QUAL_ROWS=sphinx-tidigits,procdiff-small,sphinxqa-en-us QUAL_RERUN= ", true},
		{[]string{"qualify-all"}, "QUAL_STAGE= QUAL_ROWS= QUAL_RERUN= ", false},
	} {
		out := makeDryRun(t, tc.args...)
		var config, ginkgo string
		for _, line := range strings.Split(strings.ReplaceAll(out, "\\\n", " "), "\n") { // recipe lines joined
			switch {
			case strings.Contains(line, "qual config"):
				config = line
			case strings.Contains(line, "go tool ginkgo"):
				ginkgo = line
			}
		}
		if !strings.Contains(config, tc.env) || !strings.Contains(ginkgo, tc.env) {
			t.Errorf("make %v: want %q in the qual config and ginkgo lines:\n%s\n%s", tc.args, tc.env, config, ginkgo)
		}
		if strings.Contains(ginkgo, "--focus") {
			t.Errorf("make %v: the Makefile spells a focus; the suites derive it from the selection:\n%s", tc.args, ginkgo)
		}
		if got := strings.Contains(out, "report --fail-on failed "); got != tc.fail {
			t.Errorf("make %v: --fail-on failed %v, want %v", tc.args, got, tc.fail)
		}
		if tc.args[0] == "smoke" && !strings.Contains(out, " QUAL_SCOPE=smoke") { // exported to the recipes by make
			t.Errorf("make smoke does not name its scope:\n%s", out)
		}
	}
}

// `qual config` (make's preflight) prints per stage the rows the selection picks and the focus
// its suite runs them with, refuses a selection of unknown rows (exit 2, one line), and a rerun
// of a fixture run selects exactly its failed rows.
func TestQualConfigPrintsTheSelection(t *testing.T) {
	rerun := t.TempDir()
	e := evidence.Evidence{SchemaVersion: evidence.SchemaVersion, RunID: "fixture", Stages: []evidence.Stage{
		{SchemaVersion: evidence.SchemaVersion, Stage: "asr", Number: 3, Results: []evidence.Result{
			{Profile: "sphinx-tidigits", Status: evidence.StatusFailed}, {Profile: "sphinx-en-us", Status: evidence.StatusQualified}}},
		{SchemaVersion: evidence.SchemaVersion, Stage: "audioqa", Number: 9, Results: []evidence.Result{
			{Profile: "sphinxqa-an4-l0", Status: evidence.StatusFailed}, {Profile: "sphinxqa-en-us", Status: evidence.StatusQualified}}}}}
	if err := evidence.WriteJSON(filepath.Join(rerun, "evidence.json"), e); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env  []string
		want []string
		code int
	}{
		{[]string{"QUAL_STAGE=asr", "QUAL_ROWS=sphinx-en-us,whisper-tiny-en"}, []string{
			`selection (focused) stage asr: whisper-tiny-en, sphinx-en-us (ginkgo --focus '(^| )(whisper-tiny-en|sphinx-en-us) \(checkpoint ')`,
			"selection (focused) stage t2i: not selected", "selection (focused) stage audioqa: not selected"}, 0},
		{[]string{"QUAL_RERUN=" + rerun}, []string{
			`selection (rerun) stage asr: sphinx-tidigits (ginkgo --focus '(^| )(sphinx-tidigits) \(checkpoint ')`,
			"selection (rerun) stage t2i: not selected",
			`selection (rerun) stage audioqa: sphinxqa-an4-l0 (ginkgo --focus '(^| )(sphinxqa-an4-l0) \(checkpoint ')`}, 0},
		{[]string{"QUAL_ROWS=sphinx-tidigits", "QUAL_SCOPE=smoke"}, []string{"selection (smoke) stage asr: sphinx-tidigits"}, 0},
		{[]string{"QUAL_ROWS=nope"}, []string{`qual config: QUAL_ROWS names "nope", which is no row of the selected stages`}, exitUsage},
	} {
		useTarget(t, "reference.yaml", "")
		for _, name := range []string{"QUAL_STAGE", "QUAL_ROWS", "QUAL_RERUN", "QUAL_SCOPE"} {
			t.Setenv(name, "")
		}
		for _, kv := range tc.env {
			name, v, _ := strings.Cut(kv, "=")
			t.Setenv(name, v)
		}
		code, stdout, stderr := qualRun(t, "config")
		out := stdout + stderr
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d\n%s", tc.env, code, tc.code, out)
		}
		for _, want := range tc.want {
			if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(want)).MatchString(out) {
				t.Errorf("%v: no line %q in\n%s", tc.env, want, out)
			}
		}
	}
}

// A stage whose suite did not run leaves no stage.json, so the scope would count only the stages
// present: the report names every registered stage the run holds no evidence of.
func TestReportNamesStagesWithoutEvidence(t *testing.T) {
	e := evidence.Evidence{Stages: []evidence.Stage{{Stage: "asr"}, {Stage: "audioqa"}}}
	var out strings.Builder
	printSummary(&out, "reports/x", e)
	if got := missingStages(e); len(got) != 1 || got[0] != "t2i" || !strings.Contains(out.String(), "WARNING: no evidence of stage(s) t2i ") {
		t.Errorf("missing %v:\n%s", got, out.String())
	}
	e.Stages = append(e.Stages, evidence.Stage{Stage: "t2i"})
	if got := missingStages(e); len(got) != 0 {
		t.Errorf("every stage present, missing %v", got)
	}
}
