package verify

import (
	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/claim"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// servedCheck re-checks, for each row that served AIPerf's requests, its outputs, their meaning
// and every copy of a request's data against the row's loaded artifacts (the join itself, the
// timing and the statistics are claims: claimsCheck).
func servedCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) {
		if row.Result.AIPerf != nil && row.Result.Join != nil && row.Artifacts.Served() {
			checkServed(r.Dir, row.Where, row.Stage.Stage, row.Stage.TargetKind, row.Result, row.Artifacts, report)
		}
	})
}

// checkServed re-checks the stored outputs and gold WER against the joined requests, and every
// copy of a request's data.
func checkServed(runDir, where, stage, kind string, r evidence.Result, a *claim.Artifacts, report func(string, string, ...any)) {
	w, err := workload.Get(stage)
	if err != nil {
		report(where, "%v", err)
		return
	}
	if r.Scratch != nil { // TRTMC answers images as file:// URLs: read the artifacts the run kept
		dir, err := workload.InsideDir(runDir, "scratch.dir", r.Scratch.Dir)
		if err != nil {
			report(where, "%v", err)
			return
		}
		w = workload.WithArtifacts(w, workload.ScratchReader(r.Scratch.Container, dir))
	}
	checkRequests(where, r, aiperfexport.Merge(r.AIPerf.Dir, a.Runs), a.Records, report)
	checkAggregate(runDir, where, r, report)
	checkCopies(runDir, where, kind, r, a.Runs, a.Join, report) // every copy of a request's data agrees (copies.go)
	byID := map[string]join.Pair{}
	for _, p := range a.Join.Pairs {
		byID[p.ID] = p
	}
	for _, o := range r.Outputs {
		p, ok := byID[o.RequestID]
		if !ok {
			report(where, "stored output for %s has no joined request", o.RequestID)
			continue
		}
		got, err := w.HTTPOutput(p)
		if err != nil || got != o.HTTPOutput || got != o.Native {
			report(where, "request %s: stored HTTP output %q / native %q, artifacts say %q (%v)", o.RequestID, o.HTTPOutput, o.Native, got, err)
		}
	}
	if r.Meaning != nil {
		for _, problem := range w.RecheckMeaning(r.Outputs, *r.Meaning) {
			report(where, "%s", problem)
		}
	}
}
