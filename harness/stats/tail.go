package stats

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

// TailConfidence is the confidence of a tail percentile's upper bound.
const TailConfidence = 0.95

// TailRule states when a tail percentile is reported.
const TailRule = "p-th percentile reported only when some order statistic x(k), k ≤ n, is a 95% upper confidence bound for it: " +
	"P(Binomial(n, p) ≤ k−1) ≥ 0.95 (the distribution-free bound behind MLPerf LoadGen's early stopping, " +
	"zero overshoots); so n ≥ ⌈ln 0.05 / ln p⌉: 59 samples for p95, 299 for p99; else \"insufficient samples\""

// Tail is a tail percentile with its sample rule.
type Tail struct {
	Percentile float64 `json:"percentile"`
	N          int     `json:"n"`
	MinSamples int     `json:"min_samples"`
	Reportable bool    `json:"reportable"`
	Value      float64 `json:"value,omitempty"`       // linear interpolation, as timing.Percentile
	UpperBound float64 `json:"upper_bound,omitempty"` // x(k): P(true percentile ≤ x(k)) ≥ 95%
	Order      int     `json:"order,omitempty"`       // k, 1-based
	Label      string  `json:"label"`
	Rule       string  `json:"rule"`
}

// MinTailSamples is the smallest n for which x(n) is a 95% upper bound of the p-th percentile.
func MinTailSamples(p float64) int {
	return int(math.Ceil(math.Log(1-TailConfidence) / math.Log(p/100)))
}

// TailPercentile reports the p-th percentile of values under the sample rule.
func TailPercentile(values []float64, p float64) (Tail, error) {
	if err := checkFinite("samples", values); err != nil {
		return Tail{}, err
	}
	if !(p > 0 && p < 100) {
		return Tail{}, fmt.Errorf("percentile %v outside (0, 100)", p)
	}
	t := Tail{Percentile: p, N: len(values), MinSamples: MinTailSamples(p), Rule: TailRule}
	k := upperOrder(len(values), p/100)
	if k == 0 {
		t.Label = fmt.Sprintf("insufficient samples (%d < %d for p%g)", len(values), t.MinSamples, p)
		return t, nil
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
	b := distuv.Binomial{N: float64(n), P: q}
	for k := 1; k <= n; k++ {
		if b.CDF(float64(k-1)) >= TailConfidence {
			return k
		}
	}
	return 0
}
