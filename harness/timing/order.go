package timing

import (
	"math"
	"sort"
)

// OrderInterval is a distribution-free 95% interval for a percentile from order statistics:
// P(x(j) ≤ ξ_q ≤ x(k)) = P(j ≤ B ≤ k−1) with B ~ Binomial(n, q), each side held to 2.5%.
// With too few samples a side is not bounded by any sample (x(k) would need k > n): that side
// is open, and the interval says so instead of the percentile going unreported.
type OrderInterval struct {
	N          int     `json:"n"`
	Level      float64 `json:"level"`
	Lower      float64 `json:"lower,omitempty"`
	LowerOrder int     `json:"lower_order,omitempty"` // j (1-based); 0: no sample bounds it from below
	Upper      float64 `json:"upper,omitempty"`
	UpperOrder int     `json:"upper_order,omitempty"` // k (1-based); 0: no sample bounds it from above
}

// orderLevel is the two-sided confidence of an OrderInterval.
const orderLevel = 0.95

// OrderRule states how the interval is chosen, for the formulas.
const OrderRule = "95% distribution-free interval [x(j), x(k)] from the order statistics: j the largest with P(B ≤ j−1) ≤ 2.5%, k the smallest with P(B ≤ k−1) ≥ 97.5%, B ~ Binomial(n, p/100), " +
	"then widened to hold the estimate (j at most, k at least, the orders it is interpolated between: a wider interval only covers more); " +
	"a side no sample can bound (k > n: fewer than 72 samples for p95's upper side, 368 for p99's) is open; with neither side bounded n is too small for an interval"

// PercentileInterval is the order-statistic interval of the p-th percentile of values.
func PercentileInterval(values []float64, p float64) OrderInterval {
	n := len(values)
	iv := OrderInterval{N: n, Level: orderLevel}
	if n == 0 {
		return iv
	}
	s := append([]float64(nil), values...)
	sort.Float64s(s)
	q, tail := p/100, (1-orderLevel)/2
	cdf := 0.0
	for i := 1; i <= n; i++ {
		cdf += binomialPMF(i-1, n, q) // P(B ≤ i−1): the chance that x(i) lies above the percentile
		if cdf <= tail {
			iv.LowerOrder = i
		}
		if cdf >= 1-tail && iv.UpperOrder == 0 {
			iv.UpperOrder = i
		}
	}
	// With few samples the binomial orders can pass the estimate (p99 of 2: j = 2, the
	// maximum, above the interpolated value): the interval is widened to the orders the estimate
	// lies between (Percentile's), so it holds its estimate by construction and covers at least
	// as often.
	below, above := EstimateOrders(n, q)
	if iv.LowerOrder > below {
		iv.LowerOrder = below
	}
	if iv.UpperOrder > 0 && iv.UpperOrder < above {
		iv.UpperOrder = above
	}
	if iv.LowerOrder > 0 {
		iv.Lower = s[iv.LowerOrder-1]
	}
	if iv.UpperOrder > 0 {
		iv.Upper = s[iv.UpperOrder-1]
	}
	return iv
}

// EstimateOrders are the 1-based orders Percentile interpolates the q-quantile of n sorted
// values between: position q·(n−1) lies between x(⌊q(n−1)⌋+1) and x(⌈q(n−1)⌉+1).
func EstimateOrders(n int, q float64) (below, above int) {
	pos := q * float64(n-1)
	return int(math.Floor(pos)) + 1, int(math.Ceil(pos)) + 1
}

// Bounded says whether any side of the interval is bounded by a sample: with neither, n is too
// small for an interval at its level.
func (iv OrderInterval) Bounded() bool { return iv.LowerOrder > 0 || iv.UpperOrder > 0 }

// binomialPMF is P(B = i), in logs so that large n does not overflow.
func binomialPMF(i, n int, q float64) float64 {
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	return math.Exp(lg(n) - lg(i) - lg(n-i) + float64(i)*math.Log(q) + float64(n-i)*math.Log1p(-q))
}
