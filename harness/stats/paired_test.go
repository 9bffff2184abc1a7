package stats

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

// pairedScript answers with scipy.stats.ttest_rel's 90% interval of mean ln(base) − ln(new),
// exponentiated: an implementation of the paired interval that shares no code with ours.
const pairedScript = `
import json, sys
import numpy as np
from scipy import stats
out = []
for b, n in json.load(sys.stdin):
    r = stats.ttest_rel(np.log(b), np.log(n))
    ci = r.confidence_interval(0.90)
    out.append([float(np.exp(ci.low)), float(np.exp(ci.high)), float(r.df)])
json.dump(out, sys.stdout)
`

// TestPairedScipyParity pins the paired interval to scipy over pairs whose sides drift together
// by up to a factor 4 (the load drift of a shared machine), from 2 to 12 pairs.
func TestPairedScipyParity(t *testing.T) {
	rng := rand.New(rand.NewPCG(44, 5))
	var cases [][2][]float64
	for i := range 40 {
		k := 2 + i%11
		b, n := make([]float64, k), make([]float64, k)
		for j := range b {
			load := math.Exp(0.7 * rng.NormFloat64())
			b[j] = 1000 * load * math.Exp(0.03*rng.NormFloat64())
			n[j] = 1000 * load * (0.9 + 0.01*float64(i)) * math.Exp(0.03*rng.NormFloat64())
		}
		cases = append(cases, [2][]float64{b, n})
	}
	var ref [][]float64
	if err := json.Unmarshal(runScipy(t, pairedScript, cases), &ref); err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i, c := range cases {
		sp, err := ComparePaired(c[0], c[1], "")
		if err != nil {
			t.Fatal(err)
		}
		worst = max(worst, math.Abs(sp.CI.Lower-ref[i][0]), math.Abs(sp.CI.Upper-ref[i][1]), math.Abs(sp.DF-ref[i][2]))
	}
	t.Logf("paired S bounds and df: max |Δ| %.2e against scipy.stats.ttest_rel over %d cases", worst, len(cases))
	if worst > 1e-9 {
		t.Errorf("paired interval differs from scipy's by %.2e", worst)
	}
}

// TestPairedCancelsTheDriftSeparateRunsCannot: every pair runs under its own load (a factor up to
// ~4 between pairs) and the new build is 20% slower within each pair up to 3% noise. The paired
// light is red; the Welch light over the same values as two separate samples is white or yellow,
// never red. The same build against itself lies wholly above the red bound, never red.
func TestPairedCancelsTheDriftSeparateRunsCannot(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := range 200 {
		k := 4 + trial%5
		b, slow, same := make([]float64, k), make([]float64, k), make([]float64, k)
		for j := range b {
			load := math.Exp(0.5 * rng.NormFloat64())
			b[j] = 1000 * load * math.Exp(0.01*rng.NormFloat64())
			slow[j] = 1200 * load * math.Exp(0.01*rng.NormFloat64())
			same[j] = 1000 * load * math.Exp(0.01*rng.NormFloat64())
		}
		p, err := ComparePaired(b, slow, "")
		if err != nil {
			t.Fatal(err)
		}
		w, _ := Compare(b, slow, "")
		if p.Light != Red || w.Light == Red {
			t.Fatalf("k=%d: paired %s %v, separate %s: want paired red, separate not red", k, p.Light, p.CI, w.Light)
		}
		a, _ := ComparePaired(b, same, "")
		if a.Light == Red || a.CI == nil || !(a.CI.Lower > a.RedBelow) {
			t.Fatalf("k=%d: the same build: %s %v; want its whole interval above the red bound %v", k, a.Light, a.CI, a.RedBelow)
		}
	}
}

// TestPairedIsWhiteWithoutAnInterval: one pair (no interval), or different work, is white; unequal
// sides are not pairs.
func TestPairedIsWhiteWithoutAnInterval(t *testing.T) {
	if sp, err := ComparePaired([]float64{100}, []float64{200}, ""); err != nil || sp.Light != White || sp.CI != nil {
		t.Errorf("one pair: %+v %v", sp, err)
	}
	if sp, err := ComparePaired([]float64{100, 101}, []float64{200, 201}, "requests 8 vs 9"); err != nil || sp.Light != White {
		t.Errorf("different work: %+v %v", sp, err)
	}
	if _, err := ComparePaired([]float64{100, 101}, []float64{200}, ""); err == nil {
		t.Error("2 base values against 1 new value must be refused")
	}
}
