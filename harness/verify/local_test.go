package verify

import (
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

func TestLocalRefusesPathsLeavingTheRun(t *testing.T) {
	run := t.TempDir()
	for _, c := range []struct {
		rel string
		ok  bool
	}{
		{"asr/p/records.jsonl", true},
		{"asr/../asr/p", true},
		{"../../etc/x", false},
		{"asr/../../x", false},
		{"/etc/passwd", false},
		{"", false},
	} {
		got, err := workload.InsideDir(run, "records", c.rel)
		if (err == nil) != c.ok {
			t.Errorf("workload.InsideDir(%q) = %q, %v; want ok=%v", c.rel, got, err, c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "records") {
			t.Errorf("error does not name the field: %v", err)
		}
	}
}

// TestForgedPathsAreVerifyFailures: every path the evidence names is confined to the run dir; a
// forged ../../etc/x is a problem naming the field, at every site that reads such a path.
func TestForgedPathsAreVerifyFailures(t *testing.T) {
	run := t.TempDir()
	forged := "../../etc/x"
	check := func(name, field string, got []string) {
		t.Helper()
		if !containsAll(got, field+` "`+forged+`" is not a path inside the run directory`) {
			t.Errorf("%s: forged %s not refused: %v", name, field, got)
		}
	}
	r := evidence.Result{Profile: "p", Status: evidence.StatusQualified,
		Bundle:  evidence.Bundle{Path: forged, SHA256Built: "x"},
		AIPerf:  &evidence.AIPerfRun{Dir: forged},
		Records: "asr/p/records.jsonl", Join: &evidence.Join{}}
	report, got := collect()
	checkStored(run, pins{Root: t.TempDir(), TRTMCRoot: envOptions().TRTMCRoot}, "asr/p", evidence.Stage{Stage: "asr"}, r, report)
	check("bundle", "bundle.path", *got)

	check("served", "aiperf.dir", claimProblems(run, r))

	report, got = collect()
	checkAggregate(run, "asr/p", r, report)
	check("aggregate", "aiperf.dir", *got)

	r.AIPerf.Dir, r.Records = "asr/p/aiperf", forged
	check("served", "records", claimProblems(run, r))

	r.Profile, r.Gate = forged, &evidence.GateResult{Testcase: "c"}
	report, got = collect()
	checkJUnitGate(run, "asr/x", "asr", r, report)
	check("junit", "profile", *got)
	r.Profile = "q/p"
	report, got = collect()
	checkJUnitGate(run, "asr/x", "asr", r, report)
	if !containsAll(*got, `profile "q/p" is not a single path element`) {
		t.Errorf("profile q/p not refused: %v", *got)
	}
}

// TestAIPerfRunGlobErrorIsReported: an aiperf.dir that is no valid pattern is reported, not
// taken as a single-run directory.
func TestAIPerfRunGlobErrorIsReported(t *testing.T) {
	r := evidence.Result{Profile: "p", Status: evidence.StatusFailed, AIPerf: &evidence.AIPerfRun{Dir: "asr/p/aiperf["}}
	report, got := collect()
	checkAggregate(t.TempDir(), "asr/p", r, report)
	if !containsAll(*got, "asr/p: AIPerf run directories under asr/p/aiperf[: syntax error in pattern") {
		t.Errorf("Glob error not reported: %v", *got)
	}
}

// TestForgedStageNameIsRefused: the stage name picks <stage>/stage.json; one leaving the run
// directory is refused naming it.
func TestForgedStageNameIsRefused(t *testing.T) {
	for _, stage := range []string{"../../etc", "asr/../../x", "a/b"} {
		report, got := collect()
		checkStageFiles(t.TempDir(), evidence.Evidence{Stages: []evidence.Stage{{Stage: stage}}}, report)
		if !containsAll(*got, `evidence.json: stage "`+stage+`" is not a single path element inside the run directory`) {
			t.Errorf("stage %q: %v", stage, *got)
		}
	}
}

// claimProblems are what claimsCheck finds in a run of one ASR row r.
func claimProblems(runDir string, r evidence.Result) []string {
	s := evidence.Stage{Stage: "asr"}
	row := &Row{Where: "asr/" + r.Profile, Stage: s, Result: r, Artifacts: loadArtifacts(runDir, pins{}, "reference", s, r, false)}
	var out []string
	for _, p := range claimsCheck(&Run{Dir: runDir, Rows: []*Row{row}}) {
		out = append(out, p.String())
	}
	return out
}
