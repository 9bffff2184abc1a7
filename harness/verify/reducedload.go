package verify

import (
	"slices"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
)

// reducedLoadCheck: each stage's stated reduced load (selection.reduced_load, by which the
// verdict says REDUCED LOAD — not a qualification) is derived again from what its rows ran —
// each AIPerf row's runs, measured and warmup requests, which the request and aggregate checks
// tie to its artifacts — against the aiperf of the target file the run names, when that file is
// in the repository. A run whose statement was dropped would otherwise verify as a qualification.
func reducedLoadCheck(r *Run) []Problem {
	t, ok := runTarget(r)
	if !ok {
		return nil
	}
	return problemsFrom(func(report reporter) {
		for _, s := range r.Evidence.Stages {
			checkReducedLoad(s, t.AIPerf[stage.Name(s.Stage)], report)
		}
	})
}

// checkReducedLoad compares a stage's stated reduced load with each of its AIPerf rows' own.
func checkReducedLoad(s evidence.Stage, declared target.Load, report reporter) {
	var stated []string
	if s.Selection != nil {
		stated = s.Selection.ReducedLoad
	}
	for _, r := range s.Results {
		if r.AIPerf == nil {
			continue
		}
		ran := target.Reduction(target.Load{Runs: r.AIPerf.Runs, Requests: r.AIPerf.Requests, Warmup: r.AIPerf.Warmup}, declared)
		if !slices.Equal(ran, stated) {
			report(s.Stage+"/stage.json", "selection states the reduced load %q, but row %s ran %d runs × (%d warmup + %d requests) against the target file's %d × (%d + %d): %q",
				loadWords(stated), r.Profile, max(r.AIPerf.Runs, 1), r.AIPerf.Warmup, r.AIPerf.Requests, max(declared.Runs, 1), declared.Warmup, declared.Requests, loadWords(ran))
		}
	}
}

// loadWords is a reduced load as the verdict words it, "none" at the target's load.
func loadWords(reduced []string) string {
	if len(reduced) == 0 {
		return "none"
	}
	return strings.Join(reduced, ", ")
}
