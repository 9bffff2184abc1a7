package verify

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// qaGateFile is the gate the sphinxqa family produced for sphinxqa-an4-l0 in a real full run
// (reports/20261130-163411, audioqa/stage.json), verbatim: the native answers of a real bundle,
// and the figures and verdict the family computed from them, so the honest fixture does not
// depend on verify's own arithmetic.
const qaGateFile = "testdata/sphinxqa-an4-l0-gate.json"

// qaGateRun is sentRun's audio-QA row (built with the workload's own functions) carrying the
// real gate, its pinned threshold sha256, and three served answers: the gate's answers to its
// first three pairs, as an aiperf-qualified row serves them.
func qaGateRun(t *testing.T) (string, evidence.Stage, evidence.Result) {
	t.Helper()
	runDir, s, r := sentRun(t, "audioqa", "sphinxqa-an4-l0", chatPayload)
	raw, err := os.ReadFile(qaGateFile)
	if err != nil {
		t.Fatal(err)
	}
	var g evidence.GateResult
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatalf("%s: %v", qaGateFile, err)
	}
	r.Gate = &g
	if r.ThresholdPin, err = (pins{Root: repoRootForTest(t), TRTMCRoot: envOptions().TRTMCRoot}).Pin("native/families/sphinxqa/thresholds/" + g.Testcase + ".json"); err != nil {
		t.Fatal(err)
	}
	for i, it := range g.Items[:3] {
		r.Outputs = append(r.Outputs, evidence.Output{RequestID: fmt.Sprintf("r%d", i+1), Phase: "profiling", InputID: it.ID,
			HTTPOutput: it.Output, Native: it.Output, Gold: it.Gold})
	}
	return runDir, s, r
}

// qaGateProblems is what Run reports of the row's gate (a reference row: recomputed).
func qaGateProblems(t *testing.T, runDir string, s evidence.Stage, r evidence.Result) []string {
	t.Helper()
	report, got := collect()
	checkGateAndDerive(runDir, pins{Root: repoRootForTest(t), TRTMCRoot: envOptions().TRTMCRoot}, s.Stage+"/"+r.Profile, "reference", s, r, nil, report)
	return *got
}

// qaGateCase is one edit of the honest row's gate or served answers and the problem it must
// draw; alone: a consistent edit, that problem is the only one.
type qaGateCase struct {
	name  string
	edit  func(r *evidence.Result)
	want  []string // one problem must contain all of these
	alone bool
}

// TestAudioQAGateIsRecomputed: verify recomputes the stage-9 gate from its stored answers and
// the pins (golden/audioqa pairs, the upstream transcripts of tc.Expected, the pinned
// thresholds): the real gate passes; a gate figure or verdict it did not earn, an item missing,
// extra, duplicated, or with another expected answer or gold, and a served answer other than the
// gate's for its pair are each reported.
func TestAudioQAGateIsRecomputed(t *testing.T) {
	const where, pairs = "audioqa/sphinxqa-an4-l0: gate not recomputable: ", "golden/audioqa/sphinxqa-an4-l0.jsonl"
	const differs = "audioqa/sphinxqa-an4-l0: gate recomputed differently: "
	runDir, s, r := qaGateRun(t)
	if got := qaGateProblems(t, runDir, s, r); len(got) != 0 {
		t.Fatalf("the real sphinxqa-an4-l0 gate is refused: %v", got)
	}
	// Pair cards-002-word_count (item 4, not served; kind word_count, 5 of the 20 pairs) was
	// answered "4", its expected answer and its gold: a wrong answer there costs one pair of 20
	// overall and one of 5 of its kind, and is one upstream mismatch.
	wrongAnswer := func(r *evidence.Result) { r.Gate.Items[4].Output, r.Gate.Items[4].Passed = "5", false }
	for _, c := range []qaGateCase{
		{"the gate said to be another family's", func(r *evidence.Result) { r.Gate.Family = "whisperqa" },
			[]string{where + `gate of family "whisperqa": verify recomputes only the sphinxqa gate on stage 9`}, false},
		{"a figure raised", func(r *evidence.Result) { r.Gate.Figures["answer_accuracy"] = 0.85 },
			[]string{differs + ".figures.answer_accuracy: recomputed 0.8, evidence says 0.85"}, true},
		{"a figure the gate does not compute recorded", func(r *evidence.Result) { r.Gate.Figures["accuracy_weather"] = 1 },
			[]string{differs + ".figures.accuracy_weather: evidence has 1, recomputed nothing"}, true},
		{"the verdict kept passed over a failing figure", func(r *evidence.Result) {
			wrongAnswer(r)
			f := r.Gate.Figures // recomputed as the family would, so only the verdict is forged
			f["upstream_mismatches"], f["answer_accuracy"], f["accuracy_word_count"] = 1, 0.75, 0.6
		}, []string{where + "gate recorded as passed=true; derived figures against the pinned thresholds say fail: answer_accuracy 0.7500 < 0.8; upstream_mismatches 1 > 0"}, false},
		{"an item's answer changed, figures kept", wrongAnswer,
			[]string{differs + ".figures.accuracy_word_count: recomputed 0.6, evidence says 0.8"}, false},
		{"an item's answer changed, its verdict kept", func(r *evidence.Result) { r.Gate.Items[4].Output = "5" },
			[]string{where + `gate pair cards-002-word_count: item recorded as passed=true, but its answer "5" vs the expected answer "4" says false`}, false},
		{"an item removed", func(r *evidence.Result) { r.Gate.Items = r.Gate.Items[1:] },
			[]string{where + "gate has no item for pinned pair cards-001-word_count of " + pairs}, false},
		{"an item duplicated", func(r *evidence.Result) { r.Gate.Items = append(r.Gate.Items, r.Gate.Items[0]) },
			[]string{where + "gate has 2 items for pair cards-001-word_count, one expected"}, true},
		{"an item for no pinned pair", func(r *evidence.Result) {
			r.Gate.Items = append(r.Gate.Items, evidence.GateItem{ID: "forged", Output: "yes", Expected: "yes", Passed: true})
		}, []string{where + "gate item forged is not a pair pinned in " + pairs}, true},
		{"an item's expected answer changed", func(r *evidence.Result) { r.Gate.Items[0].Expected = "4" },
			[]string{where + `gate pair cards-001-word_count: stored expected answer "4" / gold "3" are not the reader's "3" on the pinned golden/asr/sphinx-an4-l0/upstream.json transcript of clip cards-001 / the pinned ` + pairs + ` gold "3"`}, true},
		{"an item's gold changed", func(r *evidence.Result) { r.Gate.Items[0].Gold = "4" },
			[]string{where + `gate pair cards-001-word_count: stored expected answer "3" / gold "4" are not the reader's "3"`}, true},
		{"a served answer other than the gate's", func(r *evidence.Result) { r.Outputs[0].HTTPOutput, r.Outputs[0].Native = "4", "4" },
			[]string{where + `request r1 (pair cards-001-word_count): served answer "4" with gold "3"; the gate's answer for that pair is "3" and the pinned gold "3"`}, true},
		{"a served answer for no gate pair", func(r *evidence.Result) { r.Outputs[1].InputID = "forged" },
			[]string{where + `request r2 (pair forged): served answer`, `the gate's answer for that pair is "" and the pinned gold ""`}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			runDir, s, r := qaGateRun(t)
			c.edit(&r)
			got := qaGateProblems(t, runDir, s, r)
			if !containsAll(got, c.want...) || (c.alone && len(got) != 1) {
				t.Errorf("got %v, want one containing %q (alone: %v)", got, c.want, c.alone)
			}
		})
	}
}
