package stats

import (
	"fmt"
	"math"
	"sort"

	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
)

// SignedRankRule states how a paired shift is computed.
const SignedRankRule = "paired Hodges–Lehmann shift = median of the Walsh averages (d_i + d_j)/2, i ≤ j, of the pair " +
	"differences d; its interval inverts the two-sided Wilcoxon signed-rank test (exact distribution without ties or " +
	"zeros and below 50 pairs, as R's wilcox.test; else the normal approximation with continuity correction): " +
	"[w(q), w(N+1−q)] over the N = n(n+1)/2 sorted Walsh averages, q the smallest value such that P(V ≤ q) ≥ α/2"

// SignedRank estimates the centre of the pair differences d (one per pair, new − base) and its
// two-sided interval at level. Pairing removes what both members of a pair share (the machine's
// load at that moment), which an unpaired shift counts as noise; the test needs only that each
// difference is symmetric about the centre, which holds when a pair's two members are
// exchangeable.
func SignedRank(d []float64, level float64) (Shift, error) {
	if err := checkFinite("differences", d); err != nil {
		return Shift{}, err
	}
	n := len(d)
	if n == 0 {
		return Shift{}, fmt.Errorf("a paired shift needs at least one pair")
	}
	if level <= 0 || level >= 1 {
		return Shift{}, fmt.Errorf("level %v is not in (0, 1)", level)
	}
	walsh := make([]float64, 0, n*(n+1)/2)
	for i := range d {
		for j := i; j < n; j++ {
			walsh = append(walsh, (d[i]+d[j])/2)
		}
	}
	sort.Float64s(walsh)
	sh := Shift{Estimate: median(walsh), Level: level, N: [2]int{n, n}, Rule: SignedRankRule}
	var q int
	if n < exactShiftMax && !tiedOrZero(d) {
		q, sh.Method = exactQuantileV((1-level)/2, n), "exact"
	} else {
		q, sh.Method = normalQuantileV((1-level)/2, n), "normal"
	}
	q = max(q, 1) // R: a sample too small for the level gives the whole range
	sh.CI = schema.Bounds{Lower: walsh[q-1], Upper: walsh[len(walsh)-q]}
	return sh, nil
}

// tiedOrZero says whether a difference is zero or two have equal magnitude: then the exact
// signed-rank distribution does not hold.
func tiedOrZero(d []float64) bool {
	abs := make([]float64, len(d))
	for i, x := range d {
		if x == 0 {
			return true
		}
		abs[i] = math.Abs(x)
	}
	sort.Float64s(abs)
	return hasTies(abs)
}

// exactQuantileV is the smallest q with P(V ≤ q) ≥ p for the signed-rank statistic V of n pairs
// under the null (R's qsignrank): V is the sum of a random subset of the ranks 1..n, each subset
// equally likely; counts[v] is how many subsets sum to v (2^n ≤ 2^49 stays exact in a float64).
func exactQuantileV(p float64, n int) int {
	top := n * (n + 1) / 2
	counts := make([]float64, top+1)
	counts[0] = 1
	for r := 1; r <= n; r++ {
		for v := r * (r + 1) / 2; v >= r; v-- {
			counts[v] += counts[v-r]
		}
	}
	total := math.Ldexp(1, n)
	cum := 0.0
	for v, c := range counts {
		cum += c
		if cum/total >= p {
			return v
		}
	}
	return top
}

// normalQuantileV is q for many pairs: V's normal approximation with continuity correction.
func normalQuantileV(p float64, n int) int {
	mean := float64(n*(n+1)) / 4
	sd := math.Sqrt(float64(n*(n+1)*(2*n+1)) / 24)
	return int(math.Ceil(mean + normalQuantile(p)*sd - 0.5))
}
