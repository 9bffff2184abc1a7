package stats

import (
	"fmt"
	"math"
	"sort"
)

// StratifiedShiftRule states how a stratified Shift is computed.
const StratifiedShiftRule = "stratified Hodges–Lehmann shift = weighted median of the differences new_j − base_i " +
	"within each block (input) seen on both sides, each block's differences weighted 1/(m_b + n_b + 1); its interval " +
	"inverts van Elteren's stratified Wilcoxon rank-sum test (normal approximation)"

// Blocked is one value observed in a block: a request's Task time and the input it sent.
type Blocked struct {
	Block string
	Value float64
}

// StratifiedShift is the shift new − base of values observed in blocks whose own levels differ
// (a row's inputs: a long clip costs more than a short one). Only values of the same block are
// compared, so the interval reflects the variation within an input, not the spread between
// inputs, which a row sends in the same mix on both sides. Blocks seen on one side only are left
// out; blocks counts those compared.
//
// Written here rather than taken from a library: gonum has no stratified rank test, and the
// estimator is the plain Hodges–Lehmann one (shift.go) restricted to within-block differences,
// with van Elteren's locally best weights (van Elteren 1960; Lehmann, Nonparametrics, 3.3).
func StratifiedShift(base, new []Blocked, level float64) (sh Shift, blocks int, err error) {
	if level <= 0 || level >= 1 {
		return Shift{}, 0, fmt.Errorf("level %v is not in (0, 1)", level)
	}
	if err := checkFinite("base", blockValues(base)); err != nil {
		return Shift{}, 0, err
	}
	if err := checkFinite("new", blockValues(new)); err != nil {
		return Shift{}, 0, err
	}
	diffs, mean, variance, n, blocks := blockDifferences(byBlock(base), byBlock(new))
	if blocks == 0 {
		return Shift{}, 0, fmt.Errorf("no block (input) is on both sides (base %d, new %d values)", len(base), len(new))
	}
	sort.Slice(diffs, func(i, j int) bool { return diffs[i].d < diffs[j].d })
	margin := normalQuantile(1-(1-level)/2) * math.Sqrt(variance)
	sh = Shift{Level: level, N: n, Method: "normal", Rule: StratifiedShiftRule}
	sh.Estimate = weightAbove(diffs, mean)
	lower, lowOK := boundAt(diffs, mean+margin, false)
	upper, highOK := boundAt(diffs, mean-margin, true)
	sh.CI.Lower, sh.CI.Upper = lower, upper
	sh.TooFew = !lowOK || !highOK
	return sh, blocks, nil
}

type weighted struct{ d, w float64 }

// blockDifferences are the within-block differences with their weights, and the null mean and
// variance of van Elteren's statistic T = Σ w_b U_b (U_b the block's Mann–Whitney count).
func blockDifferences(b, n map[string][]float64) (diffs []weighted, mean, variance float64, count [2]int, blocks int) {
	for _, k := range sortedKeys(b) {
		y, ok := n[k]
		if !ok {
			continue
		}
		x := b[k]
		mb, nb := float64(len(x)), float64(len(y))
		w := 1 / (mb + nb + 1)
		for _, xi := range x {
			for _, yj := range y {
				diffs = append(diffs, weighted{yj - xi, w})
			}
		}
		mean += w * mb * nb / 2
		variance += w * w * mb * nb * (mb + nb + 1) / 12
		count[0], count[1] = count[0]+len(x), count[1]+len(y)
		blocks++
	}
	return diffs, mean, variance, count, blocks
}

// weightAbove is the δ at which the weight of differences above it falls to target: the weighted
// median when target is T's null mean (the centre of the two middle differences on a tie).
func weightAbove(sorted []weighted, target float64) float64 {
	above := 0.0
	for _, d := range sorted {
		above += d.w
	}
	for i, d := range sorted {
		above -= d.w
		if math.Abs(above-target) < 1e-12 && i+1 < len(sorted) {
			return (d.d + sorted[i+1].d) / 2
		}
		if above < target {
			return d.d
		}
	}
	return sorted[len(sorted)-1].d
}

// boundAt is an end of the interval: the lower end is the smallest difference at or past which
// the weight above no longer exceeds limit (T(δ) ≤ mean + margin); the upper end the difference
// after the last δ whose weight above still reaches limit (T(δ) ≥ mean − margin). ok is false
// when the limit is beyond every difference: the samples are too small for the level, and the
// bound is the extreme difference (which then decides nothing).
func boundAt(sorted []weighted, limit float64, upper bool) (float64, bool) {
	above := 0.0
	for _, d := range sorted {
		above += d.w
	}
	if !upper {
		if above <= limit {
			return sorted[0].d, false
		}
		for _, d := range sorted {
			above -= d.w
			if above <= limit+1e-12 {
				return d.d, true
			}
		}
		return sorted[len(sorted)-1].d, false
	}
	if limit <= 0 {
		return sorted[len(sorted)-1].d, false
	}
	for _, d := range sorted {
		above -= d.w
		if above < limit-1e-12 {
			return d.d, true
		}
	}
	return sorted[len(sorted)-1].d, false
}

func blockValues(bs []Blocked) []float64 {
	out := make([]float64, len(bs))
	for i, b := range bs {
		out[i] = b.Value
	}
	return out
}

func byBlock(values []Blocked) map[string][]float64 {
	out := map[string][]float64{}
	for _, v := range values {
		out[v.Block] = append(out[v.Block], v.Value)
	}
	return out
}

func sortedKeys(m map[string][]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
