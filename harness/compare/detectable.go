package compare

import (
	"fmt"
	"math"

	"github.com/trtmc-qual/trtmc-qual/harness/stats"
)

// Detectable is the smallest slowdown of the row's Task p50 that the two sides' run-to-run spread
// lets the light call red: the Welch interval's half-width on the log scale does not depend on the
// shift, so red (upper bound of S below stats.RedBelow) needs S·e^h < RedBelow, a slowdown
// new/base − 1 above e^h/RedBelow − 1. With no spread at all it is 1/RedBelow − 1 = 17.9%, the
// guard's floor. Nil when the light cannot decide at any shift (a side inconclusive, one run).
type Detectable struct {
	Slowdown float64 `json:"slowdown"`       // fraction: 0.25 is a 25% slower Task
	HalfLog  float64 `json:"log_half_width"` // h, the 90% interval's half-width of ln S
	Rule     string  `json:"rule"`
}

const detectableRule = "the smallest slowdown new/base − 1 the light calls red at this spread: e^h/r − 1, r the light's red bound (0.848 for separate runs, 0.95 for interleaved pairs), h the half-width of the 90% interval of ln S (Welch over runs, or Student t over pairs; it does not move with the shift); 1/r − 1 with no spread (17.9% for separate runs, 5.3% for pairs); none while a side of separate runs is inconclusive"

// detectable is the row's detectable slowdown, or nil with why not.
func detectable(sp *stats.Speedup) (*Detectable, string) {
	switch {
	case sp == nil:
		return nil, "no performance figure"
	case sp.CI == nil && sp.Pairs > 0:
		return nil, "no interval (one pair)"
	case sp.CI == nil:
		return nil, "no interval (one run a side)"
	case sp.Pairs == 0 && (sp.Base.Inconclusive || sp.New.Inconclusive):
		return nil, "a side's spread over runs exceeds the 5% cap: no shift is decided"
	}
	h := (math.Log(sp.CI.Upper) - math.Log(sp.CI.Lower)) / 2
	red := sp.RedBelow
	if red == 0 {
		red = stats.RedBelow
	}
	return &Detectable{Slowdown: math.Exp(h)/red - 1, HalfLog: h, Rule: detectableRule}, ""
}

func detectableCell(r RowComparison) string {
	light := "detectable slowdown by the light: none (" + r.DetectableWhy + ")"
	if r.Detectable != nil {
		light = fmt.Sprintf("detectable slowdown at this spread: by the light %.1f%%", 100*r.Detectable.Slowdown)
	}
	if r.TaskShiftDetectable > 0 {
		light += fmt.Sprintf("; by the Task shift %.1f%%", 100*r.TaskShiftDetectable)
	}
	return light
}
