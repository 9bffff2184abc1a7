package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// JUnitClaim is the claim whose JUnit case carries a figure.
type JUnitClaim string

// The claims whose cases carry a row's figures.
const (
	JUnitAIPerf JUnitClaim = "aiperf" // the inputs skipped before AIPerf ran
	JUnitGate   JUnitClaim = "gate"
	JUnitTiming JUnitClaim = "timing"
)

// JUnitFigure is one numeric property of a row's JUnit case, rendered from the row.
type JUnitFigure struct {
	Of    JUnitClaim
	Name  string
	Value float64
}

// JUnitFigures are a row's figures as its JUnit cases carry them: the count of inputs skipped
// (the AIPerf case), each timing figure by its unit-suffixed name (the timing case), each gate
// figure as gate_<key> (the gate case). The suite adds them to its cases from its row and
// `qual verify` renders them again from the published row: one rendering, so a case property is
// the evidence's figure or it is named.
func JUnitFigures(r evidence.Result) []JUnitFigure {
	out := []JUnitFigure{{JUnitAIPerf, "inputs_skipped", float64(len(r.Skipped))}}
	if r.Timing != nil {
		for _, f := range r.Timing.Figures {
			out = append(out, JUnitFigure{JUnitTiming, JUnitFigureName(f.Name, f.Unit), f.Value})
			out = append(out, intervalFigures(f)...)
		}
	}
	if r.Gate != nil {
		for _, k := range slices.Sorted(maps.Keys(r.Gate.Figures)) {
			out = append(out, JUnitFigure{JUnitGate, "gate_" + k, r.Gate.Figures[k]})
		}
	}
	return out
}

// intervalFigures are a tail's n and the sides of its order-statistic interval a sample bounds,
// beside its value (client_latency_p95_n, client_latency_p95_lower_ms, …): a dashboard reads how
// much a p95 rests on, as the reports show it.
func intervalFigures(f evidence.Figure) []JUnitFigure {
	iv := f.Interval
	if iv == nil {
		return nil
	}
	out := []JUnitFigure{{JUnitTiming, f.Name + "_n", float64(iv.N)}}
	if iv.LowerOrder > 0 {
		out = append(out, JUnitFigure{JUnitTiming, JUnitFigureName(f.Name+"_lower", f.Unit), iv.Lower})
	}
	if iv.UpperOrder > 0 {
		out = append(out, JUnitFigure{JUnitTiming, JUnitFigureName(f.Name+"_upper", f.Unit), iv.Upper})
	}
	return out
}

// JUnitFigureName is a figure's property name with its unit in it: ("client_latency_p50", "ms")
// → "client_latency_p50_ms"; a unitless ratio keeps its name.
func JUnitFigureName(name, unit string) string {
	u := strings.NewReplacer("/", "_per_", " ", "_").Replace(unit)
	if u == "" || u == "ratio" {
		return name
	}
	return name + "_" + u
}

// JUnitStageProperties are the suite properties a stage's JUnit report carries of its stage.json:
// the target, its kind, the stage's scope in the verdict's words (a smoke or reduced-load run's
// report says it is no qualification), the hardware and every version (the run's id, the stage and
// the shard are the run's, beside them).
func JUnitStageProperties(s evidence.Stage) map[string]string {
	out := map[string]string{"target": s.Target, "target_kind": string(s.TargetKind), "scope": evidence.ScopeWords(evidence.StageScope(s)),
		"hardware.cpu": s.Hardware.CPU, "hardware.cores": fmt.Sprint(s.Hardware.Cores), "hardware.gpu": s.Hardware.GPU}
	for k, v := range s.Versions {
		out["version."+k] = v
	}
	return out
}
