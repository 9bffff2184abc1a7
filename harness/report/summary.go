package report

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

// SummaryFile is the machine-readable summary `qual report` writes beside qualification.md.
const SummaryFile = "summary.json"

// SummarySchema names summary.json's schema; SummarySchemaVersion changes when a field's meaning
// does (the schema is documented in harness/evidence/README.md, "summary.json").
const (
	SummarySchema        = "trtmc-qual/summary"
	SummarySchemaVersion = 2
)

// Summary is summary.json: the verdict with its scope, and per stage and per row the status and
// the headline figures, every value taken from the evidence the reports render (nothing is
// recomputed here), so a pipeline reads one small file instead of evidence.json.
type Summary struct {
	Schema        string          `json:"schema"`
	SchemaVersion int             `json:"schema_version"`
	RunID         string          `json:"run_id"`
	Commit        string          `json:"commit"` // versions["trtmc-qual"]: git describe of the checkout that ran
	Revision      SummaryRevision `json:"revision"`
	Target        string          `json:"target"`
	TargetKind    string          `json:"target_kind"`
	BuildTags     string          `json:"build_tags"`
	TestBuild     bool            `json:"test_build"` // a test-only build tag (qual_slowdown): never a qualification
	Verdict       string          `json:"verdict"`
	Qualification bool            `json:"qualification"` // the verdict is QUALIFIED: every row of the target ran and qualified
	Scope         SummaryScope    `json:"scope"`
	Stages        []SummaryStage  `json:"stages"`
}

// SummaryRevision is the checkout the run ran from, as the evidence records it
// (versions["trtmc-qual"], git describe --always --dirty): the commit and whether the checkout
// had uncommitted changes; Dirty is null when the evidence does not know the checkout.
type SummaryRevision struct {
	Commit string `json:"commit"`
	Dirty  *bool  `json:"dirty"`
}

// revisionOf reads git describe --always --dirty: "<commit>[-dirty]", or "unknown" without git.
func revisionOf(describe string) SummaryRevision {
	if describe == "" || describe == "unknown" {
		return SummaryRevision{Commit: "unknown"}
	}
	commit, dirty := strings.CutSuffix(describe, "-dirty")
	return SummaryRevision{Commit: commit, Dirty: &dirty}
}

// SummaryScope is how many of the target's rows the run (or a stage) gave a result.
type SummaryScope struct {
	Label         string `json:"label,omitempty"` // smoke, focused, rerun, shard i/n; "" for a whole run
	Partial       bool   `json:"partial"`
	SelectedRows  int    `json:"selected_rows"`
	TargetRows    int    `json:"target_rows"`
	TargetCounted int    `json:"target_counted"`
	// ReducedLoad are the AIPerf counts lowered below the target's ("asr: runs 2 of 5"); Words is
	// the scope as the verdict and the JUnit reports word it.
	ReducedLoad []string `json:"reduced_load,omitempty"`
	Words       string   `json:"words"`
}

// SummaryStage is one stage's outcome.
type SummaryStage struct {
	Stage            string       `json:"stage"`
	Number           int          `json:"number"`
	Status           string       `json:"status"`
	Words            string       `json:"words"` // the status as every report words it in the run's scope
	Reason           string       `json:"reason,omitempty"`
	CountedQualified int          `json:"counted_qualified"`
	Counted          int          `json:"counted"`
	Failed           int          `json:"failed"`
	Scope            SummaryScope `json:"scope"`
	Rows             []SummaryRow `json:"rows"`
	NotSelected      []string     `json:"not_selected,omitempty"` // target rows the run did not select
}

// SummaryRow is one row's status and headline figures.
type SummaryRow struct {
	Profile      string          `json:"profile"`
	Checkpoint   string          `json:"checkpoint"`
	Kind         string          `json:"kind"`
	Counted      bool            `json:"counted"`
	Status       string          `json:"status"`
	Words        string          `json:"words"` // the status as every report words it in the run's scope
	FirstFailure string          `json:"first_failure,omitempty"`
	Requests     int             `json:"measured_requests,omitempty"`
	Runs         int             `json:"aiperf_runs,omitempty"`
	Figures      []SummaryFigure `json:"figures,omitempty"`
	// Accuracy are the row's accuracy figures as the evidence records them: the corpus figure
	// with its bootstrap interval and the bound the gate holds it to.
	Accuracy []SummaryAccuracy `json:"accuracy,omitempty"`
}

// SummaryAccuracy is one accuracy figure: its value, its bootstrap 5th and 95th percentiles
// (over what ClusterBy says was resampled) and the gate's bound on it (Side: "≤" or "≥").
type SummaryAccuracy struct {
	Figure    string  `json:"figure"`
	Value     float64 `json:"value"`
	P05       float64 `json:"p05"`
	P95       float64 `json:"p95"`
	Bound     float64 `json:"bound"`
	Side      string  `json:"side"`
	ClusterBy string  `json:"cluster_by"`
}

// SummaryFigure is one headline figure as the evidence records it: the value (a rate is the mean
// over AIPerf runs, a percentile pooled over measured requests) with, for a rate, its 95%
// interval over runs, and for a tail its distribution-free order-statistic interval.
type SummaryFigure struct {
	Name      string                  `json:"name"`
	Unit      string                  `json:"unit"`
	Value     float64                 `json:"value"`
	OverRuns  *SummaryInterval        `json:"over_runs,omitempty"`
	OrderStat *evidence.OrderInterval `json:"order_interval,omitempty"`
}

// SummaryInterval is a figure's mean over runs with its interval (harness/stats).
type SummaryInterval struct {
	N            int              `json:"n"`
	CI           *evidence.Bounds `json:"ci,omitempty"`
	HalfWidth    float64          `json:"half_width"`
	Inconclusive bool             `json:"inconclusive"`
}

// headline are the timing figures summary.json carries per row, in this order.
func headline() []string {
	return []string{"request_throughput", "client_latency_p50", "client_latency_p95", "client_latency_p99", "task_call_p50", "task_call_p95", "task_call_p99",
		"audio_seconds_per_second", "rtf", "images_per_second"}
}

// SummaryOf derives summary.json from the run's evidence.
func SummaryOf(e evidence.Evidence) Summary {
	sc := evidence.ScopeOf(e)
	sum := Summary{Schema: SummarySchema, SchemaVersion: SummarySchemaVersion, RunID: e.RunID, Commit: e.Versions["trtmc-qual"],
		Revision: revisionOf(e.Versions["trtmc-qual"]),
		Target:   e.Target, TargetKind: e.TargetKind, BuildTags: e.Versions[evidence.BuildTagsKey],
		TestBuild: len(evidence.TestBuildTags(e.Versions)) > 0, Verdict: evidence.Verdict(e), Scope: scopeOf(sc), Stages: []SummaryStage{}}
	sum.Qualification = sum.Verdict == "QUALIFIED"
	for _, s := range e.Stages {
		sum.Stages = append(sum.Stages, stageSummary(s, sc))
	}
	return sum
}

func scopeOf(sc evidence.Scope) SummaryScope {
	return SummaryScope{Label: sc.Label, Partial: sc.Partial(), SelectedRows: sc.Selected, TargetRows: sc.Total, TargetCounted: sc.Counted,
		ReducedLoad: sc.Reduced, Words: evidence.ScopeWords(sc)}
}

func stageSummary(s evidence.Stage, run evidence.Scope) SummaryStage {
	q, counted, failed := evidence.StageCounts(s)
	out := SummaryStage{Stage: s.Stage, Number: s.Number, Status: string(s.Status), Words: evidence.StageWord(s.Status, run), Reason: s.Reason,
		CountedQualified: q, Counted: counted, Failed: failed, Scope: scopeOf(evidence.StageScope(s)), Rows: []SummaryRow{}}
	for _, r := range s.Results {
		row := rowSummary(r)
		row.Words = evidence.RowWord(r.Status, run)
		out.Rows = append(out.Rows, row)
	}
	for _, row := range s.Inventory {
		if row.Status == evidence.StatusNotSelected {
			out.NotSelected = append(out.NotSelected, row.Profile)
		}
	}
	return out
}

func rowSummary(r evidence.Result) SummaryRow {
	out := SummaryRow{Profile: r.Profile, Checkpoint: r.Checkpoint, Kind: string(r.Kind), Counted: r.Counted, Status: string(r.Status)}
	if len(r.Failures) > 0 {
		out.FirstFailure = strings.Join(strings.Fields(r.Failures[0]), " ")
	}
	if r.AIPerf != nil {
		out.Runs = max(r.AIPerf.Runs, 1)
	}
	for _, a := range r.Accuracy {
		out.Accuracy = append(out.Accuracy, SummaryAccuracy{Figure: a.Figure, Value: a.Value, P05: a.Lower, P95: a.Upper, Bound: a.Bound, Side: a.Side, ClusterBy: a.ClusterBy})
	}
	if r.Timing == nil {
		return out
	}
	out.Requests = r.Timing.Requests
	for _, name := range headline() {
		for _, f := range r.Timing.Figures {
			if f.Name == name {
				out.Figures = append(out.Figures, SummaryFigure{Name: f.Name, Unit: f.Unit, Value: f.Value, OrderStat: f.Interval, OverRuns: overRuns(r.Repeated, name)})
			}
		}
	}
	return out
}

// overRuns is the figure's interval over runs, when the row ran several and recorded it.
func overRuns(rep *evidence.Repeated, name string) *SummaryInterval {
	if rep == nil || !timing.IsRunMean(name) {
		return nil
	}
	for _, f := range rep.Figures {
		if f.Name == name {
			return &SummaryInterval{N: f.N, CI: f.CI, HalfWidth: f.HalfWidth, Inconclusive: f.Inconclusive}
		}
	}
	return nil
}

// SummaryJSON is summary.json's bytes for e: the evidence's one encoding, so that qual verify
// re-derives and compares them byte for byte.
func SummaryJSON(e evidence.Evidence) ([]byte, error) {
	data, err := evidence.EncodeJSON(SummaryOf(e))
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", SummaryFile, err)
	}
	return data, nil
}

// WriteSummary writes summary.json for e into dir.
func WriteSummary(dir string, e evidence.Evidence) error {
	return evidence.WriteJSON(filepath.Join(dir, SummaryFile), SummaryOf(e))
}

// ReadSummary decodes summary.json, refusing another schema by name.
func ReadSummary(data []byte) (Summary, error) {
	var s Summary
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("%s: %w", SummaryFile, err)
	}
	if s.Schema != SummarySchema || s.SchemaVersion != SummarySchemaVersion {
		return s, fmt.Errorf("%s has schema %q version %d, this qual reads %q version %d", SummaryFile, s.Schema, s.SchemaVersion, SummarySchema, SummarySchemaVersion)
	}
	return s, nil
}
