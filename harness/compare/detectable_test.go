package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/stats"
)

// The detectable slowdown is what the light does: for run sets of every spread the 5% cap admits
// and 2–20 runs a side, a slowdown just above it is red and one just below is not, and with no
// spread it is the guard's floor, 1/0.848 − 1. A side past the cap has none.
func TestDetectableSlowdownIsWhereTheLightTurnsRed(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	gmean := func(xs []float64) float64 {
		s := 0.0
		for _, x := range xs {
			s += math.Log(x)
		}
		return math.Exp(s / float64(len(xs)))
	}
	decided := 0
	for trial := range 300 {
		n := 2 + trial%19
		cv := []float64{0, 0.002, 0.01, 0.02, 0.03}[trial%5]
		base, shape := make([]float64, n), make([]float64, n)
		for i := range n {
			base[i] = 1000 * (1 + cv*rng.NormFloat64())
			shape[i] = 1000 * (1 + cv*rng.NormFloat64())
		}
		at := func(x float64) stats.Speedup { // new runs whose S is exactly 1/(1+x)
			newRuns := make([]float64, n)
			k := gmean(base) * (1 + x) / gmean(shape)
			for i := range n {
				newRuns[i] = shape[i] * k
			}
			sp, err := stats.Compare(base, newRuns, "")
			if err != nil {
				t.Fatal(err)
			}
			return sp
		}
		sp := at(0.2)
		d, why := detectable(&sp)
		if sp.Base.Inconclusive || sp.New.Inconclusive {
			if d != nil || why == "" {
				t.Errorf("trial %d: a side past the cap has a detectable slowdown %+v", trial, d)
			}
			continue
		}
		decided++
		if d == nil {
			t.Fatalf("trial %d (n %d, cv %v): none: %s", trial, n, cv, why)
		}
		if cv == 0 && math.Abs(d.Slowdown-(1/stats.RedBelow-1)) > 1e-9 {
			t.Errorf("no spread: %v, want the guard's floor %v", d.Slowdown, 1/stats.RedBelow-1)
		}
		turnsRedAt(t, fmt.Sprintf("trial %d (n %d, cv %v)", trial, n, cv), d.Slowdown, at)
	}
	if decided < 150 {
		t.Errorf("only %d of 300 trials within the cap: the property was hardly tested", decided)
	}
}

// The Task shift's detectable slowdown is where the shift turns a row red: for identical builds
// of every input mix and spread (the interval then centred on no shift), the new side made slower
// by just above the stated figure is slower by the shift, and by just below it is not.
func TestShiftDetectableIsWhereTheShiftTurnsRed(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 13))
	for trial := range 300 {
		inputs, per, spread := 1+r.IntN(8), 2+r.IntN(8), 0.002+0.05*r.Float64()
		var base []stats.Blocked
		for i := range inputs {
			cost := 3 + r.NormFloat64()
			for range per {
				base = append(base, stats.Blocked{Block: fmt.Sprint(i), Value: cost + spread*r.NormFloat64()})
			}
		}
		scaled := func(k float64) RowComparison {
			slow := make([]stats.Blocked, len(base))
			for i, b := range base {
				slow[i] = stats.Blocked{Block: b.Block, Value: b.Value + math.Log(k)}
			}
			sh, _, err := stats.StratifiedShift(base, slow, stats.SpeedupLevel)
			if err != nil {
				t.Fatal(err)
			}
			return RowComparison{TaskShift: &sh}
		}
		same := scaled(1)
		d := shiftDetectable(*same.TaskShift)
		if d == 0 {
			continue // too few for an interval: it decides nothing, at any slowdown
		}
		if !slowerByShift(scaled((1+d)*1.002)) || slowerByShift(scaled((1+d)*0.998)) {
			t.Fatalf("trial %d (%d inputs × %d, spread %.3f): stated %.2f%% is not where the shift turns red", trial, inputs, per, spread, 100*d)
		}
	}
}

// The same holds for interleaved pairs against the paired light's own red bound 0.95: over 2–12
// pairs whose load drifts by up to a factor 3 between pairs and 0–15% within them, a slowdown 0.2
// points above the stated figure is red and 0.2 points below is not; with no spread within the
// pairs it is 1/0.95 − 1 = 5.3%, whatever the drift between them.
func TestPairedDetectableSlowdownIsWhereThePairedLightTurnsRed(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 300 {
		k := 2 + trial%11
		within := []float64{0, 0.01, 0.03, 0.08, 0.15}[trial%5]
		base, noise := make([]float64, k), make([]float64, k)
		for i := range k {
			base[i] = 1000 * math.Exp(1.1*rng.Float64())
			noise[i] = math.Exp(within * rng.NormFloat64())
		}
		at := func(x float64) stats.Speedup { // S over the pairs exactly 1/(1+x)
			g := 0.0
			for _, v := range noise {
				g += math.Log(v)
			}
			c := (1 + x) / math.Exp(g/float64(k))
			newRuns := make([]float64, k)
			for i := range k {
				newRuns[i] = base[i] * noise[i] * c
			}
			sp, err := stats.ComparePaired(base, newRuns, "")
			if err != nil {
				t.Fatal(err)
			}
			return sp
		}
		sp := at(0.2)
		d, why := detectable(&sp)
		if d == nil {
			t.Fatalf("trial %d (k %d, within %v): none: %s", trial, k, within, why)
		}
		if within == 0 && math.Abs(d.Slowdown-(1/stats.PairedRedBelow-1)) > 1e-9 {
			t.Errorf("no spread within the pairs: %v, want %v", d.Slowdown, 1/stats.PairedRedBelow-1)
		}
		turnsRedAt(t, fmt.Sprintf("trial %d (k %d, within %v)", trial, k, within), d.Slowdown, at)
	}
}

// turnsRedAt checks that a slowdown 0.2 points above x is red and 0.2 points below is not.
func turnsRedAt(t *testing.T, what string, x float64, at func(float64) stats.Speedup) {
	t.Helper()
	if above := at(x + 0.002); above.Light != stats.Red {
		t.Errorf("%s: %.1f%% + 0.2 points is %s, not red", what, 100*x, above.Light)
	}
	if below := at(x - 0.002); below.Light == stats.Red {
		t.Errorf("%s: %.1f%% − 0.2 points is already red", what, 100*x)
	}
}
