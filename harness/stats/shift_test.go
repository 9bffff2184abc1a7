package stats

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// mannWhitneyScript answers, for each case, scipy.stats.mannwhitneyu's two-sided p-value of
// new − δ against base at each δ asked: the test our interval claims to invert.
const mannWhitneyScript = `
import json, sys
import numpy as np
from scipy import stats
out = []
for c in json.load(sys.stdin):
    b, n = np.asarray(c["base"]), np.asarray(c["new"])
    out.append([float(stats.mannwhitneyu(n - d, b, alternative="two-sided", method=c["method"],
                                         use_continuity=True).pvalue) for d in c["deltas"]])
json.dump(out, sys.stdout)
`

// The interval is the set of shifts the Mann–Whitney test does not reject: each bound is pinned
// to scipy by asking scipy's own test just inside it (not rejected, p ≥ α) and just outside it
// (rejected, p < α), exact for small samples and asymptotic for large ones. The estimate is the
// median of the pairwise differences, checked against a direct count.
func TestHodgesLehmannIntervalInvertsScipysMannWhitney(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 2026))
	type probe struct {
		Base   []float64 `json:"base"`
		New    []float64 `json:"new"`
		Method string    `json:"method"`
		Deltas []float64 `json:"deltas"`
	}
	sizes := [][2]int{{6, 6}, {8, 11}, {12, 7}, {20, 25}, {36, 36}, {60, 70}, {120, 90}}
	const level = 0.90
	var probes []probe
	var shifts []Shift
	for i, sz := range sizes {
		base, new := make([]float64, sz[0]), make([]float64, sz[1])
		for j := range base {
			base[j] = 800 * math.Exp(0.3*rng.NormFloat64()) // skewed, like request latency
		}
		for j := range new {
			new[j] = (700 + 20*float64(i)) * math.Exp(0.35*rng.NormFloat64())
		}
		sh, err := HodgesLehmann(base, new, level)
		if err != nil {
			t.Fatal(err)
		}
		var diffs []float64
		for _, b := range base {
			for _, x := range new {
				diffs = append(diffs, x-b)
			}
		}
		sort.Float64s(diffs)
		below, above := 0, 0
		for _, d := range diffs {
			if d < sh.Estimate {
				below++
			} else if d > sh.Estimate {
				above++
			}
		}
		if below > len(diffs)/2 || above > len(diffs)/2 {
			t.Errorf("case %d: estimate %v is not a median of the differences (%d below, %d above of %d)", i, sh.Estimate, below, above, len(diffs))
		}
		lo := sort.SearchFloat64s(diffs, sh.CI.Lower)
		hi := sort.SearchFloat64s(diffs, sh.CI.Upper)
		if lo < 1 || hi+1 >= len(diffs) {
			t.Fatalf("case %d: interval [%v, %v] reaches the ends of the differences", i, sh.CI.Lower, sh.CI.Upper)
		}
		method := map[string]string{"exact": "exact", "normal": "asymptotic"}[sh.Method]
		probes = append(probes, probe{Base: base, New: new, Method: method, Deltas: []float64{
			(diffs[lo-1] + diffs[lo]) / 2, (diffs[lo] + diffs[lo+1]) / 2, // outside, inside the lower bound
			(diffs[hi-1] + diffs[hi]) / 2, (diffs[hi] + diffs[hi+1]) / 2, // inside, outside the upper bound
		}})
		shifts = append(shifts, sh)
	}
	raw := runScipy(t, mannWhitneyScript, probes)
	var ps [][]float64
	if err := json.Unmarshal(raw, &ps); err != nil {
		t.Fatalf("scipy output: %v: %s", err, raw)
	}
	alpha := 1 - level
	for i, p := range ps {
		sh := shifts[i]
		if !(p[0] < alpha && p[1] >= alpha && p[2] >= alpha && p[3] < alpha) {
			t.Errorf("sizes %v (%s): scipy p just outside/inside the lower bound %.4g/%.4g, inside/outside the upper %.4g/%.4g; want < %.2f outside, ≥ inside",
				sh.N, sh.Method, p[0], p[1], p[2], p[3], alpha)
		}
	}
	if shifts[0].Method != "exact" || shifts[len(shifts)-1].Method != "normal" {
		t.Errorf("methods %s … %s: want exact for small sides and normal for large", shifts[0].Method, shifts[len(shifts)-1].Method)
	}
}

// The exact U distribution against known values: for m = n = 3 there are 20 arrangements with
// U = 0,1,2,2,3,3,3,4,4,5,... (counts 1,1,2,3,3,3,3,2,1,1), so P(U ≤ 0) = 0.05, P(U ≤ 1) = 0.10.
func TestExactQuantileU(t *testing.T) {
	for _, c := range []struct {
		p    float64
		m, n int
		want int
	}{{0.05, 3, 3, 0}, {0.06, 3, 3, 1}, {0.10, 3, 3, 1}, {0.11, 3, 3, 2}, {0.5, 3, 3, 4}, {0.025, 6, 6, 6}, {0.05, 6, 6, 8}} {
		if got := exactQuantileU(c.p, c.m, c.n); got != c.want {
			t.Errorf("q(%v; %d, %d) = %d, want %d", c.p, c.m, c.n, got, c.want)
		}
	}
}

func TestHodgesLehmannRefusesEmptyAndNaN(t *testing.T) {
	if _, err := HodgesLehmann(nil, []float64{1}, 0.9); err == nil {
		t.Error("an empty side gave a shift")
	}
	if _, err := HodgesLehmann([]float64{1, math.NaN()}, []float64{1}, 0.9); err == nil {
		t.Error("NaN gave a shift")
	}
}
