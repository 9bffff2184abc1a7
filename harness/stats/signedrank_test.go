package stats

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// signedRankScript answers, for each case, scipy.stats.wilcoxon's two-sided p-value of d − δ at
// each δ asked: the test our paired interval claims to invert.
const signedRankScript = `
import json, sys
import numpy as np
from scipy import stats
out = []
for c in json.load(sys.stdin):
    d = np.asarray(c["d"])
    out.append([float(stats.wilcoxon(d - x, alternative="two-sided", method=c["method"],
                                     correction=True).pvalue) for x in c["deltas"]])
json.dump(out, sys.stdout)
`

// The paired interval is the set of centres the signed-rank test does not reject: each bound is
// pinned to scipy by asking scipy's own test just inside it (not rejected, p ≥ α) and just
// outside it (rejected, p < α), exact for few pairs and asymptotic for many, at the no-caching
// check's level and at another; the estimate is checked to be a median of the Walsh averages.
func TestSignedRankIntervalInvertsScipysWilcoxon(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 2026))
	type probe struct {
		D      []float64 `json:"d"`
		Method string    `json:"method"`
		Deltas []float64 `json:"deltas"`
	}
	var probes []probe
	var shifts []Shift
	for i, n := range []int{6, 8, 9, 12, 16, 24, 40, 60, 90} {
		for _, level := range []float64{0.90, 0.98} {
			if n < 8 && level > 0.95 {
				continue // too few pairs: the interval is every Walsh average, nothing to probe
			}
			d := make([]float64, n)
			for j := range d { // log-ratios of skewed latencies, centred off zero
				d[j] = -0.05*float64(i%3) + 0.2*rng.NormFloat64() + 0.05*rng.ExpFloat64()
			}
			sh, err := SignedRank(d, level)
			if err != nil {
				t.Fatal(err)
			}
			var walsh []float64
			for a := range d {
				for b := a; b < n; b++ {
					walsh = append(walsh, (d[a]+d[b])/2)
				}
			}
			sort.Float64s(walsh)
			if !isMedian(sh.Estimate, walsh) {
				t.Errorf("n %d: estimate %v is not a median of the %d Walsh averages", n, sh.Estimate, len(walsh))
			}
			deltas, ok := boundaryProbes(walsh, sh.CI)
			if !ok {
				t.Fatalf("n %d level %v: interval [%v, %v] reaches the ends of the Walsh averages", n, level, sh.CI.Lower, sh.CI.Upper)
			}
			probes = append(probes, probe{D: d, Method: scipyMethod[sh.Method], Deltas: deltas})
			shifts = append(shifts, sh)
		}
	}
	raw := runScipy(t, signedRankScript, probes)
	var ps [][]float64
	if err := json.Unmarshal(raw, &ps); err != nil {
		t.Fatalf("scipy output: %v: %s", err, raw)
	}
	for i, p := range ps {
		sh, alpha := shifts[i], 1-shifts[i].Level
		if !inverts(p, alpha) {
			t.Errorf("%d pairs at %.2f (%s): scipy p just outside/inside the lower bound %.4g/%.4g, inside/outside the upper %.4g/%.4g; want < %.2f outside, ≥ inside",
				sh.N[0], sh.Level, sh.Method, p[0], p[1], p[2], p[3], alpha)
		}
	}
	if shifts[0].Method != "exact" || shifts[len(shifts)-1].Method != "normal" {
		t.Errorf("methods %s … %s: want exact for few pairs and normal for many", shifts[0].Method, shifts[len(shifts)-1].Method)
	}
}

// The exact signed-rank distribution against counts by hand: for n = 3 the 8 subsets of {1,2,3}
// sum to 0,1,2,3,3,4,5,6, so P(V ≤ 0) = 1/8 and P(V ≤ 3) = 5/8; for n = 8, P(V ≤ 1) = 2/256,
// P(V ≤ 2) = 3/256 and P(V ≤ 4) = 7/256 (the tabled two-sided 5% critical value is 3).
func TestExactQuantileV(t *testing.T) {
	for _, c := range []struct {
		p    float64
		n    int
		want int
	}{{0.125, 3, 0}, {0.13, 3, 1}, {0.5, 3, 3}, {0.63, 3, 4}, {0.0078, 8, 1}, {0.01, 8, 2}, {0.025, 8, 4}, {0.027, 8, 4}, {0.028, 8, 5}} {
		if got := exactQuantileV(c.p, c.n); got != c.want {
			t.Errorf("q(%v; %d) = %d, want %d", c.p, c.n, got, c.want)
		}
	}
}

// Ties and zeros leave the exact distribution; the interval then comes from the normal one.
func TestSignedRankTiesUseTheNormalApproximation(t *testing.T) {
	for name, d := range map[string][]float64{"zero": {0, 0.1, -0.2, 0.3, 0.4, -0.5, 0.6, 0.7}, "tie": {0.1, -0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7}} {
		sh, err := SignedRank(d, 0.95)
		if err != nil || sh.Method != "normal" {
			t.Errorf("%s: method %q, err %v; want normal", name, sh.Method, err)
		}
	}
}

func TestSignedRankRefusesEmptyAndNaN(t *testing.T) {
	if _, err := SignedRank(nil, 0.9); err == nil {
		t.Error("no pairs gave a shift")
	}
	if _, err := SignedRank([]float64{1, math.Inf(-1)}, 0.9); err == nil {
		t.Error("−Inf gave a shift")
	}
	if _, err := SignedRank([]float64{1, 2}, 1); err == nil {
		t.Error("level 1 gave a shift")
	}
}
