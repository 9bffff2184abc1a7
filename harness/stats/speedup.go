package stats

import (
	"fmt"
	"math"

	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
)

// SpeedupLevel is the two-sided confidence level of a speedup interval (TRTMC: 90%, so that each
// one-sided bound is a 95% statement).
const SpeedupLevel = 0.90

// Light is a comparison's traffic light.
type Light string

// The lights. White is not a pass: it says the data cannot decide, or the work differs.
const (
	Green  Light = "green"  // faster: lower bound of S above GreenAbove
	Yellow Light = "yellow" // the interval lies wholly on neither side of the bounds
	Red    Light = "red"    // slower: upper bound of S below RedBelow
	White  Light = "white"  // inconclusive (one run, too much spread) or not comparable
)

// Guard is TRTMC's margin g for effects a comparison cannot remove (the order the sides ran in,
// which machine instance ran them): 12%, measured by TRTMC and written into its design. A light
// must clear it: green needs S above 1.05·(1+g), red S below 0.95/(1+g).
const Guard = 0.12

// Light thresholds on S = base/new.
const (
	GreenAbove = 1.05 * (1 + Guard)
	RedBelow   = 0.95 / (1 + Guard)
)

// SpeedupRule states how a Speedup is computed and judged.
const SpeedupRule = "S = base/new = exp(mean ln base − mean ln new) over per-run values; 90% Welch interval on the log difference " +
	"(Welch–Satterthwaite df); green if lower > 1.05·(1+g) = 1.176, red if upper < 0.95/(1+g) = 0.848 (guard g = 12%, TRTMC's), " +
	"yellow otherwise; white if the work differs " +
	"or either side's 95% half-width exceeds 5% of its mean (or has one run)"

// Speedup compares per-run values (lower is faster: model-call medians in ms) of two builds.
type Speedup struct {
	S     float64         `json:"speedup"`
	Level float64         `json:"level"`
	CI    *schema.Bounds  `json:"ci,omitempty"`
	DF    float64         `json:"df,omitempty"`
	Base  schema.Interval `json:"base"`
	New   schema.Interval `json:"new"`
	Light Light           `json:"light"`
	// GreenAbove and RedBelow are the bounds this light was judged against (the guarded ones for
	// separate runs, the bare ones for interleaved pairs: paired.go).
	GreenAbove float64 `json:"green_above,omitempty"`
	RedBelow   float64 `json:"red_below,omitempty"`
	// Pairs is how many interleaved pairs a paired speedup came from (0: separate runs).
	Pairs int          `json:"pairs,omitempty"`
	Why   string       `json:"why"`
	Rule  string       `json:"rule"`
	Runs  [2][]float64 `json:"runs"` // base, new: the per-run values the figures came from
}

// Compare computes S = base/new with its 90% Welch interval on log values and the light.
// workDiffers, when not empty, says how the two runs did different work: the light is white.
func Compare(base, new []float64, workDiffers string) (Speedup, error) {
	if err := checkPositive("base runs", base); err != nil {
		return Speedup{}, err
	}
	if err := checkPositive("new runs", new); err != nil {
		return Speedup{}, err
	}
	sp := Speedup{Level: SpeedupLevel, Rule: SpeedupRule, Runs: [2][]float64{base, new}, GreenAbove: GreenAbove, RedBelow: RedBelow}
	sp.Base, _ = MeanCI(base) // inputs already checked
	sp.New, _ = MeanCI(new)
	lb, ln := logs(base), logs(new)
	d := mean(lb) - mean(ln)
	sp.S = math.Exp(d)
	if len(base) >= 2 && len(new) >= 2 {
		lo, hi, df := welch(lb, ln, d, SpeedupLevel)
		sp.CI, sp.DF = &schema.Bounds{Lower: math.Exp(lo), Upper: math.Exp(hi)}, df
	}
	sp.Light, sp.Why = judge(sp, workDiffers)
	return sp, nil
}

// checkPositive rejects what has no logarithm: a time of zero or less is a broken measurement.
func checkPositive(name string, xs []float64) error {
	if err := checkFinite(name, xs); err != nil {
		return err
	}
	for i, x := range xs {
		if x <= 0 {
			return fmt.Errorf("%s: value %d is %v; a time must be positive", name, i, x)
		}
	}
	return nil
}

func logs(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Log(x)
	}
	return out
}

// welch is the Welch interval for the difference of means d of a and b. Two constant samples
// have no spread at all: the interval is the point and df is reported as +Inf.
func welch(a, b []float64, d, level float64) (lo, hi, df float64) {
	va, vb := variance(a)/float64(len(a)), variance(b)/float64(len(b))
	se := math.Sqrt(va + vb)
	if se == 0 {
		return d, d, math.Inf(1)
	}
	df = (va + vb) * (va + vb) / (va*va/float64(len(a)-1) + vb*vb/float64(len(b)-1))
	h := tQuantile(level, df) * se
	return d - h, d + h, df
}

func judge(sp Speedup, workDiffers string) (Light, string) {
	switch {
	case workDiffers != "":
		return White, "not comparable: " + workDiffers
	case sp.Base.Inconclusive:
		return White, "base inconclusive: " + sp.Base.Reason
	case sp.New.Inconclusive:
		return White, "new inconclusive: " + sp.New.Reason
	case sp.CI == nil:
		return White, "no interval"
	}
	return lightOf(*sp.CI, sp.GreenAbove, sp.RedBelow)
}

// lightOf judges an interval of S against the green and red bounds.
func lightOf(ci schema.Bounds, green, red float64) (Light, string) {
	switch {
	case ci.Lower > green:
		return Green, fmt.Sprintf("lower bound %.3f > %.3f", ci.Lower, green)
	case ci.Upper < red:
		return Red, fmt.Sprintf("upper bound %.3f < %.3f", ci.Upper, red)
	default:
		// Where the interval lies, not what it decides: harness/compare reads that off (decide),
		// and a yellow interval clear of red decides "no regression".
		return Yellow, fmt.Sprintf("interval [%.3f, %.3f] lies wholly neither above %.3f (green) nor below %.3f (red)", ci.Lower, ci.Upper, green, red)
	}
}
