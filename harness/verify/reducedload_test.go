package verify

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
)

// TestReducedLoadIsDerivedAgain: over every AIPerf load around the reference target's asr load
// (5 runs × (2 warmup + 7 requests)), a stage whose rows ran below it in any count verifies only
// when its selection states that reduction as the suite records it (Target.ReducedLoad); a
// statement dropped (the verdict would read QUALIFIED), one left on a run at the target's load or
// above, or one naming another count is refused, naming the stage's stage.json.
func TestReducedLoadIsDerivedAgain(t *testing.T) {
	root := repoRoot(t)
	tg, err := target.Read(filepath.Join(root, "suites", "targets", "reference.yaml"), root)
	if err != nil {
		t.Fatal(err)
	}
	declared := tg.AIPerf[stage.ASR]
	if declared.Runs != 5 || declared.Requests != 7 || declared.Warmup != 2 {
		t.Fatalf("the reference target's asr load is %+v; this test reads it as 5 × (2 + 7)", declared)
	}
	check := func(runs, requests, warmup int, stated []string) []Problem {
		row := func(profile string) evidence.Result {
			return evidence.Result{Profile: profile, AIPerf: &evidence.AIPerfRun{Runs: runs, Requests: requests, Warmup: warmup}}
		}
		s := evidence.Stage{Stage: "asr", Results: []evidence.Result{row("sphinx-en-us"), {Profile: "sphinx-an4-l0"}, row("whisper-tiny-en")},
			Selection: &evidence.Selection{ReducedLoad: stated}}
		run := &Run{Pins: pins{Root: root}, Evidence: evidence.Evidence{Target: "suites/targets/reference.yaml", Stages: []evidence.Stage{s}}}
		return reducedLoadCheck(run)
	}
	for runs := 0; runs <= 6; runs++ {
		for requests := 5; requests <= 9; requests++ {
			for warmup := 0; warmup <= 3; warmup++ {
				reduced := max(runs, 1) < 5 || requests < 7 || warmup < 2
				used := target.Load{Runs: runs, Requests: requests, Warmup: warmup}
				recorded := (&target.Target{Declared: tg.AIPerf, AIPerf: map[stage.Name]target.Load{stage.ASR: used}}).ReducedLoad(stage.ASR)
				if (len(recorded) > 0) != reduced {
					t.Fatalf("%+v: the suite records %q", used, recorded)
				}
				if p := check(runs, requests, warmup, recorded); len(p) != 0 {
					t.Errorf("%+v stated as the suite records it (%q): refused %v", used, recorded, p)
				}
				wrong := [][]string{{"runs 1 of 5", "requests 1 of 7"}}
				if reduced {
					wrong = append(wrong, nil, recorded[:len(recorded)-1])
				} else {
					wrong = append(wrong, []string{"runs 2 of 5"})
				}
				for _, stated := range wrong {
					p := check(runs, requests, warmup, stated)
					if len(p) != 2 || p[0].Where != "asr/stage.json" || !strings.Contains(p[0].What, "selection states the reduced load") {
						t.Errorf("%+v stated as %q: %v; want both AIPerf rows refused", used, stated, p)
					}
				}
			}
		}
	}
}
