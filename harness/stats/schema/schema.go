// Package schema is the recorded shape of harness/stats' results (intervals over runs,
// non-inferiority verdicts) as they are written into evidence.json. It is apart from
// harness/stats so the evidence schema, the report and the offline verifier's reading of a run
// need no statistics library: the computations (t and normal quantiles) stay in harness/stats.
package schema

import (
	"fmt"
)

// Bounds is a two-sided interval.
type Bounds struct {
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
}

// Interval is a mean over runs with its Student-t interval. CI is nil when fewer than two runs
// make an interval impossible; such a figure is always inconclusive.
type Interval struct {
	N            int     `json:"n"`
	Mean         float64 `json:"mean"`
	SD           float64 `json:"sd"`
	Level        float64 `json:"level"`
	CI           *Bounds `json:"ci,omitempty"`
	HalfWidth    float64 `json:"half_width"`
	Inconclusive bool    `json:"inconclusive"`
	Reason       string  `json:"reason,omitempty"`
	Rule         string  `json:"rule"`
}

// Run is one AIPerf run's figures.
type Run struct {
	Index    int                `json:"index"`
	Requests int                `json:"requests"`
	Figures  map[string]float64 `json:"figures"`
}

// FigureInterval is a per-run figure's mean over runs with its interval.
type FigureInterval struct {
	Name string `json:"name"`
	Unit string `json:"unit"`
	Interval
}

// Repeated is a row's repeated-run statistics.
type Repeated struct {
	Runs    []Run            `json:"runs"`
	Figures []FigureInterval `json:"figures"`
}

// Verdict is a non-inferiority outcome.
type Verdict string

// Verdicts.
const (
	Pass         Verdict = "pass"
	Fail         Verdict = "fail"
	Inconclusive Verdict = "inconclusive"
)

// NonInferiority is a bootstrap verdict.
type NonInferiority struct {
	Test      string  `json:"test"`
	Estimate  float64 `json:"estimate"` // R on the full sample
	P05       float64 `json:"p05"`
	P95       float64 `json:"p95"`
	Units     int     `json:"units"`
	Clusters  int     `json:"clusters"`
	Resamples int     `json:"resamples"`
	Seed      uint64  `json:"seed"`
	Verdict   Verdict `json:"verdict"`
	Rule      string  `json:"rule"`
}

// PerRun is the named figure of every run, in run order, for a comparison.
func (r Repeated) PerRun(name string) ([]float64, error) {
	var out []float64
	for _, run := range r.Runs {
		v, ok := run.Figures[name]
		if !ok {
			return nil, fmt.Errorf("run %d has no %s", run.Index, name)
		}
		out = append(out, v)
	}
	return out, nil
}
