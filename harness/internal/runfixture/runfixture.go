// Package runfixture builds small evidence runs for tests (test doubles of evidence.json, never
// reported): one ASR stage whose rows carry a gate, outputs and one AIPerf run's timing. It is
// internal to the harness and imported only by tests.
package runfixture

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// Golds are the gold transcripts of the fixture's six clips (clipa … clipf).
func Golds() []string {
	return []string{"go forward ten meters", "turn left now", "stop here please", "and miss dashwood said", "one two three four", "the quick brown fox"}
}

// ASRRow is a counted, qualified transcription row whose gate and served outputs are hyps (one
// per gold clip) and whose Task p50 is taskP50 ms.
func ASRRow(profile string, hyps []string, taskP50 float64) evidence.Result {
	g := &evidence.GateResult{Family: "sphinx", Profile: profile, Testcase: "gold", Figures: map[string]float64{"gold_wer": 0}}
	var outs []evidence.Output
	for i, gold := range Golds() {
		id := "clip" + string(rune('a'+i))
		g.Items = append(g.Items, evidence.GateItem{ID: id, Output: hyps[i], Gold: gold})
		outs = append(outs, evidence.Output{RequestID: "r" + id, Phase: "profiling", InputID: id, HTTPOutput: hyps[i], Native: hyps[i], Gold: gold})
	}
	return evidence.Result{Profile: profile, Status: "qualified", Counted: true, Gate: g, Outputs: outs,
		Dataset:  evidence.Dataset{SHA256: "d1", Items: len(Golds())},
		Settings: map[string]any{"warmup": 2, "requests": 8, "concurrency": 2},
		Timing:   &evidence.Timing{Requests: 8, Figures: []evidence.Figure{{Name: "task_call_p50", Value: taskP50, Unit: "ms"}}}}
}

// WriteRun writes a run of a normal build holding rows and returns its directory.
func WriteRun(t testing.TB, id string, rows ...evidence.Result) string {
	t.Helper()
	return WriteBuild(t, id, "none", rows...)
}

// WriteBuild writes a run whose binaries carried the given build tags.
func WriteBuild(t testing.TB, id, tags string, rows ...evidence.Result) string {
	t.Helper()
	return WriteBuildAt(t, id, tags, time.Time{}, time.Time{}, rows...)
}

// WriteBuildAt is WriteBuild of a run whose stage started and finished at the given times (zero:
// not recorded).
func WriteBuildAt(t testing.TB, id, tags string, started, finished time.Time, rows ...evidence.Result) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), id)
	e := evidence.Evidence{SchemaVersion: evidence.SchemaVersion, RunID: id, Versions: map[string]string{evidence.BuildTagsKey: tags},
		Stages: []evidence.Stage{{Stage: "asr", Number: 3, Results: rows, Started: started, Finished: finished}}}
	if err := evidence.WriteJSON(filepath.Join(dir, "evidence.json"), e); err != nil {
		t.Fatal(err)
	}
	return dir
}
