package stats

import (
	"fmt"
	"sort"

	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

// TailPercentile reports the p-th percentile of values under the sample rule.
func TailPercentile(values []float64, p float64) (schema.Tail, error) {
	if err := checkFinite("samples", values); err != nil {
		return schema.Tail{}, err
	}
	if !(p > 0 && p < 100) {
		return schema.Tail{}, fmt.Errorf("percentile %v outside (0, 100)", p)
	}
	t := schema.Tail{Percentile: p, N: len(values), MinSamples: schema.MinTailSamples(p), Rule: schema.TailRule}
	k := upperOrder(len(values), p/100)
	if k == 0 {
		t.Label = fmt.Sprintf("insufficient samples (%d < %d for p%g)", len(values), t.MinSamples, p)
		return t, nil
	}
	// The bound holds its estimate by construction: never an order below the one the estimate is
	// interpolated up to (a higher order bounds from above at least as surely).
	if _, above := timing.EstimateOrders(len(values), p/100); k < above {
		k = above
	}
	sorted := append([]float64(nil), values...)
	sort.Float64s(sorted)
	t.Reportable, t.Order = true, k
	t.Value, t.UpperBound = timing.Percentile(values, p), sorted[k-1]
	t.Label = fmt.Sprintf("%.3f (95%% upper bound %.3f = x(%d) of %d)", t.Value, t.UpperBound, k, len(values))
	return t, nil
}

// upperOrder is the smallest k ≤ n with P(Binomial(n, q) ≤ k−1) ≥ TailConfidence, or 0 if none.
func upperOrder(n int, q float64) int {
	for k := 1; k <= n; k++ {
		if binomialCDF(k-1, n, q) >= schema.TailConfidence {
			return k
		}
	}
	return 0
}
