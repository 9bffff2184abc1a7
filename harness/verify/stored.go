package verify

import (
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/verify/pinned"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// storedCheck re-hashes each row's stored bundle and inputs and has its workload re-check them.
func storedCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) { checkStored(r.Dir, r.Pins, row.Where, row.Stage, row.Stored, report) })
}

// checkStored re-hashes the stored bundle and input files against the sha256 the evidence and
// the pinned dataset record (a TRTMC testcase's own clip: the sha256 the evidence records for
// it), and runs the stage's admission recheck on the same inputs.
func checkStored(runDir string, p pins, where string, s evidence.Stage, r evidence.Result, report reporter) {
	if r.Bundle.Path != "" && r.Bundle.SHA256Built != "" {
		path, err := workload.InsideDir(runDir, "bundle.path", r.Bundle.Path)
		got := ""
		if err == nil {
			got, err = pinned.FileSHA256(path)
		}
		if err != nil || got != r.Bundle.SHA256Built {
			report(r.Bundle.Path, "stored bundle sha256 %s, evidence records %s (%v)", got, r.Bundle.SHA256Built, err)
		}
	}
	if r.Dataset.Path == "" {
		return
	}
	src, ok := p.StoredSource(where, s, r, report)
	if !ok {
		return
	}
	w, err := workload.Get(s.Stage)
	if err != nil {
		return // checkServed reports an unknown stage
	}
	stored := workload.StoredInputs{RunDir: runDir, Root: p.Root, Where: where, Source: src, Result: r}
	checkAdmission(p, stored, s, report)
	if r.AIPerf != nil {
		reportFindings(w.CheckStoredInputs(stored), report)
	}
}

// reportFindings passes on what a workload's re-check found.
func reportFindings(found []workload.Finding, report reporter) {
	for _, f := range found {
		report(f.Where, "%s", f.What)
	}
}
