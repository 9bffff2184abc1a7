// Package stats turns repeated measurements into verdicts a statistician would sign: a mean over
// runs with its Student-t interval, a speedup between two builds with a Welch interval on log
// values and a traffic light, a paired percentile bootstrap for corpus metrics (WER, mean PSNR)
// with a non-inferiority verdict. The rules follow TRTMC's own qualification design
// (apps/aiperf_qual, October 2026); every result carries the rule that produced it. Tail
// percentiles are harness/timing's (a percentile with its order-statistic interval).
//
// Quantiles of the t and normal distributions are gonum's algorithms, copied into
// internal/cephes so that the offline verifier links no gonum (distribution.go); the figures are
// checked against scipy.stats in parity_test.go and against gonum in distribution_test.go.
package stats

import (
	"errors"
	"fmt"
	"math"

	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
)

// MaxRelativeHalfWidth is TRTMC's spread rule: a mean whose 95% half-width exceeds 5% of it is
// inconclusive, and a speedup computed from it is white.
const MaxRelativeHalfWidth = 0.05

// MeanLevel is the confidence level of a figure's interval over runs.
const MeanLevel = 0.95

// ErrNoData is returned when there is nothing to summarize.
var ErrNoData = errors.New("stats: no values")

// MeanRule states how an Interval is computed and judged.
const MeanRule = "mean over runs ± t(0.975, n−1)·s/√n (Student t, 95%); inconclusive when n < 2 or the half-width exceeds 5% of |mean|"

// checkFinite rejects empty or non-finite input: an interval over NaN would look like a result.
func checkFinite(name string, xs []float64) error {
	if len(xs) == 0 {
		return fmt.Errorf("%s: %w", name, ErrNoData)
	}
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%s: value %d is %v", name, i, x)
		}
	}
	return nil
}

// tQuantile is the two-sided critical value of Student's t for level at df degrees of freedom.
func tQuantile(level, df float64) float64 {
	return studentTQuantile(1-(1-level)/2, df)
}

// MeanCI is the mean of per-run values with its 95% Student-t interval and the 5% spread rule.
func MeanCI(runs []float64) (schema.Interval, error) {
	return meanCI(runs, MeanLevel)
}

// NonNegativeMeanCI is MeanCI for a figure that cannot be negative (a rate, a latency, a real-time
// factor): Student-t's symmetric interval reaches below 0 for a small mean with a wide spread (a
// goodput of 0 in some runs), and such a bound reads as a figure. The interval is cut at 0, which
// keeps its coverage, since the mean lies there anyway; the half-width and the 5% spread rule are
// those of the uncut interval. A negative value is an error: the figure is not what it claims.
func NonNegativeMeanCI(runs []float64) (schema.Interval, error) {
	for i, v := range runs {
		if v < 0 {
			return schema.Interval{}, fmt.Errorf("runs: value %d is %v, below 0 for a figure that cannot be negative", i, v)
		}
	}
	iv, err := meanCI(runs, MeanLevel)
	if err == nil && iv.CI != nil && iv.CI.Lower < 0 {
		iv.CI.Lower = 0
		iv.Rule = MeanRule + NonNegativeCut
	}
	return iv, err
}

// NonNegativeCut is appended to an interval's rule when its lower bound was cut at 0.
const NonNegativeCut = "; lower bound cut at 0 (the figure cannot be negative)"

func meanCI(runs []float64, level float64) (schema.Interval, error) {
	if err := checkFinite("runs", runs); err != nil {
		return schema.Interval{}, err
	}
	iv := schema.Interval{N: len(runs), Mean: mean(runs), Level: level, Rule: MeanRule}
	if iv.N < 2 {
		iv.Inconclusive, iv.Reason = true, "one run: no interval over runs"
		return iv, nil
	}
	iv.SD = math.Sqrt(variance(runs)) // sample standard deviation (n−1)
	iv.HalfWidth = tQuantile(level, float64(iv.N-1)) * iv.SD / math.Sqrt(float64(iv.N))
	iv.CI = &schema.Bounds{Lower: iv.Mean - iv.HalfWidth, Upper: iv.Mean + iv.HalfWidth}
	if rel := iv.HalfWidth / math.Abs(iv.Mean); !(rel <= MaxRelativeHalfWidth) {
		iv.Inconclusive = true
		iv.Reason = fmt.Sprintf("half-width %.1f%% of the mean exceeds %.0f%%", 100*rel, 100*MaxRelativeHalfWidth)
	}
	return iv, nil
}
