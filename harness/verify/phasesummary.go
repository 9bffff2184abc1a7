package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// runSummary is the summary of an AIPerf run that verify compares with its exports.
const runSummary = "profile_export_aiperf.json"

// phaseSummaryCheck: AIPerf 0.13.0 writes each phase's summary beside the run's
// (phase_manifest.json names it, metrics_json), and the run's summary is the profiling phase's
// with the warmup's added under warmup_metrics. So the profiling phase's summary is a whole second
// copy of the figures the run's summary states (request count, duration, latency statistics):
// a request deleted from the exports with the run's summary rewritten to match leaves it behind.
func phaseSummaryCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) {
		if a := row.Result.AIPerf; a != nil && a.Dir != "" {
			for _, dir := range artifactRunDirs(r.Dir, a.Dir) {
				if p := phaseSummaryProblem(dir); p != "" {
					report(relTo(r.Dir, dir), "%s", p)
				}
			}
		}
	})
}

// phaseSummaryProblem compares a run directory's summary with its profiling phase's, or says
// why it cannot; "" when they agree or the run has no phase manifest (phaseWindowCheck requires
// one of a qualified row).
func phaseSummaryProblem(dir string) string {
	data, err := runfile.ReadFile(filepath.Join(dir, "phase_manifest.json"))
	if err != nil {
		return ""
	}
	var m struct {
		Phases []struct {
			Kind        string `json:"phase_kind"`
			MetricsJSON string `json:"metrics_json"`
		} `json:"phases"`
	}
	if json.Unmarshal(data, &m) != nil {
		return "" // phaseWindowCheck names a manifest it cannot read
	}
	for _, p := range m.Phases {
		if p.Kind != "profiling" {
			continue
		}
		if !filepath.IsLocal(p.MetricsJSON) {
			return fmt.Sprintf("phase_manifest.json names the profiling phase's summary %q: AIPerf writes every phase's summary inside the run (phases/<phase>/%s)", p.MetricsJSON, runSummary)
		}
		phase, err := summaryTree(filepath.Join(dir, filepath.FromSlash(p.MetricsJSON)))
		if err != nil {
			return fmt.Sprintf("the profiling phase's summary %s: %v", p.MetricsJSON, err)
		}
		run, err := summaryTree(filepath.Join(dir, runSummary))
		if err != nil {
			return "" // checkAggregate names a missing or unreadable summary
		}
		delete(run, "warmup_metrics")
		if at, a, b := firstTreeDifference("", run, phase); at != "" {
			return fmt.Sprintf("%s at %s is %s, but the profiling phase's summary %s (a copy of it) has %s", runSummary, at, a, p.MetricsJSON, b)
		}
	}
	return ""
}

// summaryTree is an AIPerf summary as JSON values, numbers as written.
func summaryTree(path string) (map[string]any, error) {
	data, err := runfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not AIPerf's summary: %w", err)
	}
	return v, nil
}
