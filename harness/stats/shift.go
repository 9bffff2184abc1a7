package stats

import (
	"fmt"
	"math"
	"sort"

	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
)

// ShiftRule states how a Shift is computed.
const ShiftRule = "Hodges–Lehmann shift = median of all pairwise differences new_j − base_i of per-request values; " +
	"its interval inverts the two-sided Mann–Whitney test (exact U distribution without ties and below 50 values a side, " +
	"as R's wilcox.test; else the normal approximation with continuity correction): [d(q), d(mn+1−q)] with q the " +
	"smallest value such that P(U ≤ q) ≥ α/2"

// exactShiftMax is the largest side for which the exact U distribution is used (R's rule).
const exactShiftMax = 50

// Shift is the Hodges–Lehmann estimate of the location shift new − base with its
// distribution-free interval. Per-request latency is skewed and heavy-tailed: this compares
// every request of one side with every request of the other, where the Welch interval of run
// medians treats runs as the unit. The two answer different questions and are shown together.
type Shift struct {
	Estimate float64       `json:"estimate"`
	Level    float64       `json:"level"`
	CI       schema.Bounds `json:"ci"`
	N        [2]int        `json:"n"` // base, new
	Method   string        `json:"method"`
	Rule     string        `json:"rule"`
	// TooFew says the samples are too small for the level: the interval is then the whole range
	// of differences (R's rule), which covers less than level and decides nothing.
	TooFew bool `json:"too_few,omitempty"`
}

// HodgesLehmann estimates the shift new − base and its two-sided interval at level.
func HodgesLehmann(base, new []float64, level float64) (Shift, error) {
	if err := checkFinite("base", base); err != nil {
		return Shift{}, err
	}
	if err := checkFinite("new", new); err != nil {
		return Shift{}, err
	}
	m, n := len(base), len(new)
	if m == 0 || n == 0 {
		return Shift{}, fmt.Errorf("a shift needs values on both sides (base %d, new %d)", m, n)
	}
	if level <= 0 || level >= 1 {
		return Shift{}, fmt.Errorf("level %v is not in (0, 1)", level)
	}
	diffs := make([]float64, 0, m*n)
	for _, b := range base {
		for _, x := range new {
			diffs = append(diffs, x-b)
		}
	}
	sort.Float64s(diffs)
	sh := Shift{Estimate: median(diffs), Level: level, N: [2]int{m, n}, Rule: ShiftRule}
	var q int
	if m < exactShiftMax && n < exactShiftMax && !hasTies(diffs) {
		q, sh.Method = exactQuantileU((1-level)/2, m, n), "exact"
	} else {
		q, sh.Method = normalQuantileU((1-level)/2, m, n), "normal"
	}
	if q < 1 { // R: a sample too small for the level gives the whole range
		q, sh.TooFew = 1, true
	}
	sh.CI = schema.Bounds{Lower: diffs[q-1], Upper: diffs[m*n-q]}
	return sh, nil
}

func median(sorted []float64) float64 {
	k := len(sorted)
	if k%2 == 1 {
		return sorted[k/2]
	}
	return (sorted[k/2-1] + sorted[k/2]) / 2
}

// hasTies says whether two pairwise differences are equal: with ties the exact U distribution
// does not hold.
func hasTies(sorted []float64) bool {
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			return true
		}
	}
	return false
}

// exactQuantileU is the smallest q with P(U ≤ q) ≥ p for the Mann–Whitney U of sides m and n
// under the null (R's qwilcox). The counts follow the recursion
// c(u; m, n) = c(u−n; m−1, n) + c(u; m, n−1), carried out over n for each m.
func exactQuantileU(p float64, m, n int) int {
	// counts[j][u]: arrangements of i values of one side and j of the other with U = u.
	counts := make([][]float64, n+1)
	for j := range counts {
		counts[j] = make([]float64, m*n+1)
		counts[j][0] = 1 // i = 0: U is 0 whatever j
	}
	for i := 1; i <= m; i++ {
		next := make([][]float64, n+1)
		next[0] = make([]float64, m*n+1)
		next[0][0] = 1
		for j := 1; j <= n; j++ {
			next[j] = make([]float64, m*n+1)
			for u := 0; u <= i*j; u++ {
				c := next[j-1][u]
				if u >= j {
					c += counts[j][u-j]
				}
				next[j][u] = c
			}
		}
		counts = next
	}
	total := 0.0
	for _, c := range counts[n] {
		total += c
	}
	cum := 0.0
	for u, c := range counts[n] {
		cum += c
		if cum/total >= p {
			return u
		}
	}
	return m * n
}

// normalQuantileU is q for large samples: U's normal approximation with continuity correction.
func normalQuantileU(p float64, m, n int) int {
	mean := float64(m*n) / 2
	sd := math.Sqrt(float64(m*n*(m+n+1)) / 12)
	z := normalQuantile(p)
	return int(math.Ceil(mean + z*sd - 0.5))
}
