package verify

import (
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

// TestFigureDefinitionsRefuseEverySwap: for every figure the code defines and every other one, a
// row whose figure carries the other's unit or formula is refused, naming the figure; the code's
// own figures pass.
func TestFigureDefinitionsRefuseEverySwap(t *testing.T) {
	defs := timingDefinitions()
	if len(defs) < 15 {
		t.Fatalf("the definitions hold %d figures; timing.Summarize writes at least 15 with audio and images", len(defs))
	}
	rowWith := func(f timing.Figure) *Run {
		return &Run{Rows: []*Row{{Where: "asr/x", Result: evidence.Result{Timing: &timing.Summary{Figures: []timing.Figure{f}}}}}}
	}
	for name, d := range defs {
		if got := figureDefinitionsCheck(rowWith(d)); len(got) != 0 {
			t.Errorf("the code's own %s refused: %v", name, got)
		}
		for other, o := range defs {
			for _, swapped := range []timing.Figure{{Name: name, Unit: o.Unit, Formula: d.Formula}, {Name: name, Unit: d.Unit, Formula: o.Formula}} {
				if swapped.Unit == d.Unit && swapped.Formula == d.Formula {
					continue
				}
				got := figureDefinitionsCheck(rowWith(swapped))
				if len(got) != 1 || !strings.Contains(got[0].What, "figure "+name+" has") {
					t.Errorf("%s with %s's unit or formula: %v", name, other, got)
				}
			}
		}
	}
	if got := figureDefinitionsCheck(rowWith(timing.Figure{Name: "speed", Unit: "x"})); len(got) != 1 {
		t.Errorf("a figure the code does not define: %v", got)
	}
}
