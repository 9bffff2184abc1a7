package stats

import (
	"math"

	"github.com/trtmc-qual/trtmc-qual/harness/stats/internal/cephes"
)

// The distributions the rules need come from gonum's own algorithms, copied into
// internal/cephes (which says why: the verifier must not link gonum, and must recompute
// recorded intervals to the last bit).

// studentTQuantile is Student's t quantile at p > 0.5 with df degrees of freedom (df > 0, real:
// Welch's df is), as distuv.StudentsT.Quantile computes it: for t > 0,
// P(T > t) = ½·I_{df/(df+t²)}(df/2, 1/2), inverted by Cephes' incbi.
func studentTQuantile(p, df float64) float64 {
	x := cephes.Incbi(df/2, 0.5, 2*(1-p))
	return math.Sqrt(df * (1 - x) / x)
}

// normalQuantile is the standard normal quantile Φ⁻¹(p) (0 < p < 1), as distuv.UnitNormal
// computes it.
func normalQuantile(p float64) float64 { return cephes.NormalQuantile(p) }

// mean is the arithmetic mean of xs (not empty), summed in the order gonum's stat.Mean sums on
// amd64 (sum).
func mean(xs []float64) float64 { return sum(xs) / float64(len(xs)) }

// sum adds xs in the order of gonum's amd64 floats.Sum (internal/asm/f64/sum_amd64.s) on a
// 16-byte aligned slice: eight accumulators, in four pairs of lanes, over blocks of 16, 8, 4 and
// 2 values, folded pairwise, the last odd value added at the end. Summation order decides the
// last bit of a mean, and a recorded mean is compared exactly. (gonum's own order depends on the
// slice's alignment and the architecture; a slice of two or more float64 is 16-byte aligned in
// Go's size classes, which is how the recorded runs were summed.)
func sum(xs []float64) float64 {
	var acc [4][2]float64 // SUM, SUM_1, SUM_2, SUM_3
	add := func(a, i int) { acc[a][0] += xs[i]; acc[a][1] += xs[i+1] }
	n, i := len(xs), 0
	for ; n-i >= 16; i += 16 {
		for k := 0; k < 8; k++ {
			add(k%4, i+2*k)
		}
	}
	if n&8 != 0 {
		for k := 0; k < 4; k++ {
			add(k, i+2*k)
		}
		i += 8
	}
	acc[0][0], acc[0][1] = acc[0][0]+acc[3][0], acc[0][1]+acc[3][1]
	acc[1][0], acc[1][1] = acc[1][0]+acc[2][0], acc[1][1]+acc[2][1]
	if n&4 != 0 {
		add(0, i)
		add(1, i+2)
		i += 4
	}
	acc[0][0], acc[0][1] = acc[0][0]+acc[1][0], acc[0][1]+acc[1][1]
	if n&2 != 0 {
		add(0, i)
		i += 2
	}
	s := acc[0][0] + acc[0][1]
	if n&1 != 0 {
		s += xs[i]
	}
	return s
}

// variance is the sample variance of xs (n−1 in the denominator; at least two values), by the
// corrected two-pass formula (Chan, Golub & LeVeque 1983), as gonum's stat.Variance computes it.
func variance(xs []float64) float64 {
	m := mean(xs)
	var ss, comp float64
	for _, x := range xs {
		d := x - m
		ss += d * d
		comp += d
	}
	n := float64(len(xs))
	return (ss - comp*comp/n) / (n - 1)
}
