package report

import (
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/stats"
)

// A figure that cannot be negative, whose interval over runs was cut at 0, reads as that
// interval in every cell that shows a mean over runs, never "mean ± half-width" reaching below 0;
// an uncut interval keeps its ± form.
func TestACutIntervalNeverReadsBelowZero(t *testing.T) {
	for _, runs := range [][]float64{{0, 0, 1.2}, {1.0, 1.01, 0.99}} {
		iv, err := stats.NonNegativeMeanCI(runs)
		if err != nil {
			t.Fatal(err)
		}
		cut := strings.HasSuffix(iv.Rule, stats.NonNegativeCut)
		rec := evidence.Interval{N: iv.N, Mean: iv.Mean, SD: iv.SD, Level: iv.Level, HalfWidth: iv.HalfWidth, Inconclusive: iv.Inconclusive, Reason: iv.Reason, Rule: iv.Rule}
		if iv.CI != nil {
			b := evidence.Bounds(*iv.CI)
			rec.CI = &b
		}
		rep := &evidence.Repeated{Figures: []evidence.FigureInterval{{Name: "request_throughput", Unit: "req/s", Interval: rec}}}
		r := evidence.Result{Timing: &evidence.Timing{Figures: []evidence.Figure{{Name: "request_throughput", Value: iv.Mean}}}, Repeated: rep}
		for where, cell := range map[string]string{"figures": FigureCell(r, "request_throughput"), "over runs": intervalCell(rep, "request_throughput").String()} {
			if strings.Contains(cell, "±") == cut || strings.Contains(cell, "[0, ") != cut {
				t.Errorf("runs %v (cut %v): %s cell %q", runs, cut, where, cell)
			}
		}
	}
}
