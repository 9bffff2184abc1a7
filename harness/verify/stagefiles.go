package verify

import (
	"encoding/json"
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// stageFilesCheck: each stage.json is its stage in evidence.json.
func stageFilesCheck(r *Run) []Problem {
	return problemsFrom(func(report reporter) { checkStageFiles(r.Dir, r.Evidence, report) })
}

// checkStageFiles requires each stage.json to be the stage in evidence.json.
func checkStageFiles(runDir string, e evidence.Evidence, report reporter) {
	for _, s := range e.Stages {
		rel := s.Stage + "/stage.json"
		if _, err := workload.InsideDir(runDir, "stage", s.Stage); err != nil || s.Stage != filepath.Base(s.Stage) {
			report("evidence.json", "stage %q is not a single path element inside the run directory", s.Stage)
			continue
		}
		onDisk, err := evidence.ReadStage(filepath.Join(runDir, filepath.FromSlash(rel)))
		if err != nil {
			report(rel, "%v", err)
			continue
		}
		a, _ := json.Marshal(onDisk)
		b, _ := json.Marshal(s)
		if string(a) != string(b) {
			report(rel, "differs from stage %s in evidence.json", s.Stage)
		}
	}
}
