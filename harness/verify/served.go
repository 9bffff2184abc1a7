package verify

import (
	"math"
	"reflect"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
	"github.com/trtmc-qual/trtmc-qual/harness/verify/derived"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// servedCheck recomputes, for each row that served AIPerf's requests, the join, timing, outputs
// and every copy of a request's data from the stored artifacts, and keeps the joined requests for
// the checks after it.
func servedCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) {
		if row.Result.AIPerf != nil && row.Result.Join != nil {
			row.Pairs = checkServed(r.Dir, row.Where, row.Stage.Stage, row.Stage.TargetKind, row.Result, report)
		}
	})
}

// checkServed recomputes the join, timing, outputs and gold WER from the stored artifacts, and
// returns the joined pairs for the gate's recomputation.
func checkServed(runDir, where, stage, kind string, r evidence.Result, report func(string, string, ...any)) []join.Pair {
	w, err := workload.Get(stage)
	if err != nil {
		report(where, "%v", err)
		return nil
	}
	if r.Scratch != nil { // TRTMC answers images as file:// URLs: read the artifacts the run kept
		dir, err := workload.InsideDir(runDir, "scratch.dir", r.Scratch.Dir)
		if err != nil {
			report(where, "%v", err)
			return nil
		}
		w = workload.WithArtifacts(w, workload.ScratchReader(r.Scratch.Container, dir))
	}
	aiperfDir, err := workload.InsideDir(runDir, "aiperf.dir", r.AIPerf.Dir)
	if err != nil {
		report(where, "%v", err)
		return nil
	}
	recordsPath, err := workload.InsideDir(runDir, "records", r.Records)
	if err != nil {
		report(where, "%v", err)
		return nil
	}
	runs, err := aiperfexport.ReadRuns(aiperfDir)
	if err != nil {
		report(where, "AIPerf exports: %v", err)
		return nil
	}
	exports := aiperfexport.Merge(r.AIPerf.Dir, runs)
	data, err := runfile.ReadFile(recordsPath)
	if err != nil {
		report(where, "server records: %v", err)
		return nil
	}
	records, err := contract.ParseRecords(data)
	if err != nil {
		report(where, "%v", err)
		return nil
	}
	checkRequests(where, r, exports, records, report)
	checkAggregate(runDir, where, r, report)
	rep := join.Join(exports.Raw, records, r.Join.Route)
	checkCopies(runDir, where, kind, r, runs, rep, report) // every copy of a request's data agrees (copies.go)
	if rep.Matched != r.Join.Matched || len(rep.UnmatchedClient) != len(r.Join.UnmatchedClient) || len(rep.UnmatchedServer) != len(r.Join.UnmatchedServer) ||
		len(rep.DuplicateClient) != len(r.Join.DuplicateClient) || len(rep.DuplicateServer) != len(r.Join.DuplicateServer) {
		report(where, "join recomputed as %s; evidence says %s", rep, *r.Join)
	}
	if r.Timing != nil {
		samples, _, _, err := timing.RunSamples(rep.Pairs, runs)
		if err == nil {
			var sum timing.Summary
			if sum, err = timing.Summarize(samples); err == nil {
				compareFigures(where, sum, *r.Timing, report)
			}
		}
		if err != nil {
			report(where, "timing not recomputable: %v", err)
		}
	}
	derived.Repeated(where, r, rep.Pairs, runs, derived.Report(report)) // repeated-run statistics
	byID := map[string]join.Pair{}
	for _, p := range rep.Pairs {
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
	return rep.Pairs
}

func compareFigures(where string, got, want timing.Summary, report func(string, string, ...any)) {
	if got.Requests != want.Requests || len(got.Figures) != len(want.Figures) {
		report(where, "timing over %d requests (%d figures) recomputed, evidence has %d (%d)", got.Requests, len(got.Figures), want.Requests, len(want.Figures))
		return
	}
	for i, f := range got.Figures {
		w := want.Figures[i]
		if f.Name != w.Name || math.Abs(f.Value-w.Value) > 1e-9*math.Max(1, math.Abs(w.Value)) {
			report(where, "figure %s recomputed %v, evidence says %s = %v", f.Name, f.Value, w.Name, w.Value)
		}
		if !reflect.DeepEqual(f.Interval, w.Interval) {
			report(where, "figure %s: interval recomputed %+v, evidence says %+v", f.Name, f.Interval, w.Interval)
		}
	}
}
