package timing

import (
	"math"
	"math/rand/v2"
	"testing"
)

func ranks(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[n-1-i] = float64(i + 1) // reversed: the interval must sort
	}
	return v
}

// Known order-statistic intervals: the median of 10 is [x(2), x(9)] (the textbook table); the
// upper side of p95 needs n ≥ ⌈ln 0.025 / ln 0.95⌉ = 72 and of p99 n ≥ 368, open below that.
func TestPercentileIntervalKnownCases(t *testing.T) {
	for _, tc := range []struct {
		n            int
		p            float64
		lower, upper int
	}{
		{10, 50, 2, 9}, {35, 95, 30, 0}, {71, 95, 63, 0}, {72, 95, 64, 72}, {367, 99, 359, 0}, {368, 99, 360, 368}, {1, 95, 0, 0},
	} {
		iv := PercentileInterval(ranks(tc.n), tc.p)
		if iv.N != tc.n || iv.LowerOrder != tc.lower || iv.UpperOrder != tc.upper ||
			(tc.lower > 0 && iv.Lower != float64(tc.lower)) || (tc.upper > 0 && iv.Upper != float64(tc.upper)) {
			t.Errorf("n=%d p%g: %+v, want orders %d, %d", tc.n, tc.p, iv, tc.lower, tc.upper)
		}
	}
}

// Coverage: on uniform samples (true p-th percentile p/100), the closed intervals contain it
// at least 95% of the time, up to simulation noise.
func TestPercentileIntervalCovers(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		n int
		p float64
	}{{100, 95}, {400, 99}, {30, 50}} {
		hit, trials := 0, 2000
		for range trials {
			v := make([]float64, tc.n)
			for i := range v {
				v[i] = r.Float64()
			}
			iv := PercentileInterval(v, tc.p)
			q := tc.p / 100
			if (iv.LowerOrder == 0 || iv.Lower <= q) && (iv.UpperOrder == 0 || q <= iv.Upper) {
				hit++
			}
		}
		if cov := float64(hit) / float64(trials); cov < 0.94 {
			t.Errorf("n=%d p%g: coverage %.3f < 0.95", tc.n, tc.p, cov)
		}
	}
}

// TestPercentileIntervalHoldsItsEstimate: for every n from 1 to 150, percentiles from the 1st to
// the 99.9th and random samples (ties included), a bounded side never excludes the estimate
// (Percentile of the same values: p99 of 2 samples once had its lower bound at the maximum,
// above its own estimate), each bounded side keeps its confidence (P(B ≤ j−1) ≤ 2.5% below,
// P(B ≤ k−1) ≥ 97.5% above), and an interval bounded on neither side says n is too small.
func TestPercentileIntervalHoldsItsEstimate(t *testing.T) {
	r := rand.New(rand.NewPCG(44, 7))
	cdf := func(k, n int, q float64) float64 {
		c := 0.0
		for i := 0; i <= k; i++ {
			c += binomialPMF(i, n, q)
		}
		return c
	}
	ps := []float64{1, 5, 25, 50, 75, 90, 95, 99, 99.9}
	for n := 1; n <= 150; n++ {
		for trial := range 12 {
			p := ps[trial%len(ps)]
			if trial >= len(ps) {
				p = 0.1 + 99.8*r.Float64()
			}
			v := make([]float64, n)
			for i := range v {
				v[i] = math.Exp(3 * r.NormFloat64())
				if trial%2 == 1 {
					v[i] = math.Round(v[i]) // ties
				}
			}
			est, iv, q := Percentile(v, p), PercentileInterval(v, p), p/100
			if iv.LowerOrder > 0 && (iv.Lower > est || cdf(iv.LowerOrder-2, n, q) > 0.025+1e-12) {
				t.Fatalf("n=%d p%g: lower x(%d) = %v, estimate %v, P(B ≤ j−1) = %v", n, p, iv.LowerOrder, iv.Lower, est, cdf(iv.LowerOrder-2, n, q))
			}
			if iv.UpperOrder > 0 && (iv.Upper < est || cdf(iv.UpperOrder-1, n, q) < 0.975-1e-12) {
				t.Fatalf("n=%d p%g: upper x(%d) = %v, estimate %v, P(B ≤ k−1) = %v", n, p, iv.UpperOrder, iv.Upper, est, cdf(iv.UpperOrder-1, n, q))
			}
			if iv.Bounded() != (cdf(0, n, q) <= 0.025 || cdf(n-1, n, q) >= 0.975) {
				t.Fatalf("n=%d p%g: bounded %v, but x(1) bounds below at %v and x(n) above at %v", n, p, iv.Bounded(), cdf(0, n, q), cdf(n-1, n, q))
			}
		}
	}
}
