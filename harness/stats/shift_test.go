package stats

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
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
		if !isMedian(sh.Estimate, diffs) {
			t.Errorf("case %d: estimate %v is not a median of the %d differences", i, sh.Estimate, len(diffs))
		}
		deltas, ok := boundaryProbes(diffs, sh.CI)
		if !ok {
			t.Fatalf("case %d: interval [%v, %v] reaches the ends of the differences", i, sh.CI.Lower, sh.CI.Upper)
		}
		probes = append(probes, probe{Base: base, New: new, Method: scipyMethod[sh.Method], Deltas: deltas})
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
		if !inverts(p, alpha) {
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
// isMedian says whether at most half of xs lie on either side of m.
func isMedian(m float64, xs []float64) bool {
	below, above := 0, 0
	for _, x := range xs {
		if x < m {
			below++
		} else if x > m {
			above++
		}
	}
	return below <= len(xs)/2 && above <= len(xs)/2
}

// scipyMethod names our methods as scipy's tests do.
var scipyMethod = map[string]string{"exact": "exact", "normal": "asymptotic"}

// boundaryProbes are the points just outside and just inside each bound of an interval whose
// bounds are values of sorted: midway to the neighbouring values. ok is false when a bound is
// an end of sorted (nothing lies outside it).
func boundaryProbes(sorted []float64, ci schema.Bounds) (deltas []float64, ok bool) {
	lo, hi := sort.SearchFloat64s(sorted, ci.Lower), sort.SearchFloat64s(sorted, ci.Upper)
	if lo < 1 || hi+1 >= len(sorted) {
		return nil, false
	}
	return []float64{
		(sorted[lo-1] + sorted[lo]) / 2, (sorted[lo] + sorted[lo+1]) / 2, // outside, inside the lower bound
		(sorted[hi-1] + sorted[hi]) / 2, (sorted[hi] + sorted[hi+1]) / 2, // inside, outside the upper bound
	}, true
}

// inverts says whether a test's p-values at boundaryProbes' points reject outside the interval
// and not inside it, at alpha.
func inverts(p []float64, alpha float64) bool {
	return p[0] < alpha && p[1] >= alpha && p[2] >= alpha && p[3] < alpha
}

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
