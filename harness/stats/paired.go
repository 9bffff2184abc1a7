package stats

import (
	"fmt"
	"math"

	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
)

// Bounds of a paired speedup's light: TRTMC's bare equivalence bounds, without the guard. The
// guard is for two effects separate runs cannot remove, the order the sides ran in and the
// machine instance that ran them; interleaved pairs run on one instance, and with the order
// alternating from pair to pair a constant order effect cancels in the mean and its variation
// widens the pairs' own interval, where it is measured instead of assumed.
const (
	PairedGreenAbove = 1.05
	PairedRedBelow   = 0.95
)

// PairedRule states how a paired Speedup is computed and judged.
const PairedRule = "S = base/new = exp(−mean d), d_i = ln(new_i/base_i) over k pairs of one-run measurements taken back to back, " +
	"the order alternating from pair to pair; 90% Student-t interval on mean d (df = k − 1); green if lower > 1.05, red if upper < 0.95 " +
	"(no guard: one machine instance, and the alternating order puts the order effect into the pairs' spread); yellow otherwise; " +
	"white with fewer than 2 pairs or when the work differs. The sides' own spread over runs (load drift) is not a reason for white: the pairs cancel it"

// ComparePaired computes S = base/new from k pairs (base[i], new[i]) measured back to back, with
// the 90% Student-t interval of the mean log ratio and the paired light. Load drift between pairs
// moves both members of a pair together and drops out of d_i; only what differs within a pair
// is noise. workDiffers, when not empty, makes the light white.
func ComparePaired(base, new []float64, workDiffers string) (Speedup, error) {
	if len(base) != len(new) {
		return Speedup{}, fmt.Errorf("paired speedup: %d base values and %d new values: not pairs", len(base), len(new))
	}
	if err := checkPositive("base runs", base); err != nil {
		return Speedup{}, err
	}
	if err := checkPositive("new runs", new); err != nil {
		return Speedup{}, err
	}
	sp := Speedup{Level: SpeedupLevel, Rule: PairedRule, Runs: [2][]float64{base, new}, Pairs: len(base),
		GreenAbove: PairedGreenAbove, RedBelow: PairedRedBelow}
	sp.Base, _ = MeanCI(base) // inputs already checked
	sp.New, _ = MeanCI(new)
	d := make([]float64, len(base))
	for i := range base {
		d[i] = math.Log(base[i]) - math.Log(new[i]) // ln S per pair
	}
	m := mean(d)
	sp.S = math.Exp(m)
	if len(d) >= 2 {
		h := tQuantile(SpeedupLevel, float64(len(d)-1)) * math.Sqrt(variance(d)/float64(len(d)))
		sp.CI, sp.DF = &schema.Bounds{Lower: math.Exp(m - h), Upper: math.Exp(m + h)}, float64(len(d)-1)
	}
	switch {
	case workDiffers != "":
		sp.Light, sp.Why = White, "not comparable: "+workDiffers
	case sp.CI == nil:
		sp.Light, sp.Why = White, "one pair: no interval over pairs"
	default:
		sp.Light, sp.Why = lightOf(*sp.CI, sp.GreenAbove, sp.RedBelow)
	}
	return sp, nil
}
