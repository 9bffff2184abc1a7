package verify

import (
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

// figureDefinitionsCheck: every timing figure's unit and formula are the definition the code
// states for that figure (timingDefinitions). servedCheck recomputes the values; a report whose
// numbers are right under swapped units or formulas (rtf's text on rtfx, ms called s) says
// something else than the numbers do.
func figureDefinitionsCheck(r *Run) []Problem {
	defs := timingDefinitions()
	return r.eachRow(func(row *Row, report reporter) {
		if row.Result.Timing == nil {
			return
		}
		for _, f := range row.Result.Timing.Figures {
			d, ok := defs[f.Name]
			switch {
			case !ok:
				report(row.Where, "figure %s is no figure harness/timing defines", f.Name)
			case f.Unit != d.Unit:
				report(row.Where, "figure %s has unit %q; its definition's unit is %q", f.Name, f.Unit, d.Unit)
			case f.Formula != d.Formula:
				report(row.Where, "figure %s has formula %q; its definition is %q", f.Name, f.Formula, d.Formula)
			}
		}
	})
}

// timingDefinitions are the code's own definitions, by figure name: what timing.Summarize
// writes beside each figure. A figure's unit and formula do not depend on the values, so two
// measured requests in two runs, with audio and an image each, give every figure it can write.
func timingDefinitions() map[string]timing.Figure {
	sum, err := timing.Summarize([]timing.Sample{
		{ClientMS: 2, TaskMS: 1, StartNS: 0, EndNS: 2e6, AudioSeconds: 1, Images: 1, Run: 0},
		{ClientMS: 3, TaskMS: 1, StartNS: 1e6, EndNS: 4e6, AudioSeconds: 1, Images: 1, Run: 1},
	})
	defs := map[string]timing.Figure{}
	if err != nil {
		return defs // unreachable with these samples; every figure is then reported undefined
	}
	for _, f := range sum.Figures {
		defs[f.Name] = f
	}
	return defs
}
