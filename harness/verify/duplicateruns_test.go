package verify

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSameShapeFindsCopiesNotHonestRuns attacks the duplicate-run statistic from both sides: a
// copy of a run, shuffled (fresh ids, another order), shifted and jittered by up to 40 µs a
// request, is always found; independent runs of one server (latencies of 0.2 to 6 s with
// milliseconds of spread, as a reference run's) never are, over many draws; nor is a run whose
// requests differ from the original by more than the tolerance somewhere.
func TestSameShapeFindsCopiesNotHonestRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	run := func(n int) []int64 {
		out := make([]int64, n)
		for i := range out {
			base := 200e6 + float64(i%5)*1.2e9 // five inputs of different cost
			out[i] = int64(base + rng.NormFloat64()*20e6)
		}
		slices.Sort(out)
		return out
	}
	for trial := range 2000 {
		n := 2 + trial%8
		a := run(n)
		if sameShape(a, run(n)) {
			t.Fatalf("two independent runs of %d requests taken for copies: %v", n, a)
		}
		cp := slices.Clone(a)
		rng.Shuffle(len(cp), func(i, j int) { cp[i], cp[j] = cp[j], cp[i] })
		for i := range cp {
			cp[i] += rng.Int64N(80_001) - 40_000 // jitter within the tolerance
		}
		slices.Sort(cp)
		if !sameShape(a, cp) {
			t.Fatalf("a jittered copy of %v not found: %v", a, cp)
		}
		cp[rng.IntN(n)] += 3 * copyToleranceNS
		slices.Sort(cp)
		if sameShape(a, cp) {
			t.Fatalf("a run with one request %d µs off taken for a copy", 3*copyToleranceNS/1000)
		}
	}
	if sameShape([]int64{5e8}, []int64{5e8}) {
		t.Error("one request proves nothing, yet a one-request run was called a copy")
	}
}
