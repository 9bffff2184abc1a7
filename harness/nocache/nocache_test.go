package nocache

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// seeded is k repeats and k fresh variants: fresh Task times around baseMS, repeats scaled by
// (1 − speedup), each with multiplicative log-normal noise of relative size noise.
func seeded(seed uint64, k int, baseMS, speedup, noise float64) *evidence.NoCache {
	rng := rand.New(rand.NewPCG(seed, 30))
	n := &evidence.NoCache{Input: "clip", Output: "text", K: k}
	for i := range k {
		n.Repeats = append(n.Repeats, evidence.NoCacheRequest{RequestID: fmt.Sprintf("r%d", i+1), Status: 200, Output: "text",
			TaskMS: baseMS * (1 - speedup) * math.Exp(noise*rng.NormFloat64())})
		n.Fresh = append(n.Fresh, evidence.NoCacheRequest{RequestID: fmt.Sprintf("f%d", i+1), Status: 200,
			TaskMS: baseMS * math.Exp(noise*rng.NormFloat64())})
	}
	return n
}

func ms(v float64) *float64 { return &v }

func TestHonestNoisePasses(t *testing.T) {
	for seed := range uint64(40) {
		for _, k := range []int{MinK, 16} {
			n := seeded(seed, k, 100, 0, 0.10)
			n.NativeTaskMS = ms(120) // a cold process, slower than a warm lane
			if Judge(n); !n.Passed {
				t.Fatalf("seed %d, k %d: honest noise failed: %v", seed, k, n.Failures)
			}
		}
	}
}

func TestConsistentSpeedupOverTheMarginFails(t *testing.T) {
	for seed := range uint64(20) {
		for _, speedup := range []float64{0.15, 0.30, 0.99} {
			n := seeded(seed, MinK, 100, speedup, 0.01)
			if Judge(n); n.Passed || !strings.Contains(strings.Join(n.Failures, "; "), Failure) {
				t.Fatalf("seed %d: repeats %.0f%% faster passed (shift %.1f%%, interval %+.3f to %+.3f)", seed, speedup*100,
					100*n.ShiftFraction, n.ShiftFractionCI.Lower, n.ShiftFractionCI.Upper)
			}
			if n.ShiftFractionCI.Upper >= -Margin {
				t.Fatalf("seed %d: failed with an interval upper bound %.3f not below −%.2f", seed, n.ShiftFractionCI.Upper, Margin)
			}
		}
	}
}

func TestSpeedupWithinTheMarginPasses(t *testing.T) {
	for seed := range uint64(20) {
		n := seeded(seed, MinK, 100, 0.05, 0.01)
		if Judge(n); !n.Passed {
			t.Fatalf("seed %d: repeats 5%% faster failed: %v", seed, n.Failures)
		}
		if n.ShiftFraction > -0.03 || n.ShiftFraction < -0.07 {
			t.Fatalf("seed %d: shift %.3f, want about −0.05", seed, n.ShiftFraction)
		}
	}
}

// A point estimate beyond 10% is not enough: the interval must lie wholly beyond it. Pair
// ratios spread from 0.5 to 1.2 around 0.85 leave a 15% speedup uncertain.
func TestAnUncertainSpeedupPasses(t *testing.T) {
	n := &evidence.NoCache{Input: "clip", Output: "text"}
	ratios := []float64{0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.05, 1.2}
	for i, r := range ratios {
		f := 100 + 10*float64(i)
		n.Fresh = append(n.Fresh, evidence.NoCacheRequest{RequestID: fmt.Sprintf("f%d", i), Status: 200, TaskMS: f})
		n.Repeats = append(n.Repeats, evidence.NoCacheRequest{RequestID: fmt.Sprintf("r%d", i), Status: 200, Output: "text", TaskMS: f * r})
	}
	if Judge(n); !n.Passed || n.ShiftFraction > -Margin {
		t.Fatalf("a 15%% point estimate in a wide interval: passed %v, shift %.3f [%.3f, %.3f], failures %v", n.Passed, n.ShiftFraction,
			n.ShiftFractionCI.Lower, n.ShiftFractionCI.Upper, n.Failures)
	}
}

// Pairs are repeat i with fresh variant i: the same times paired the other way round (each
// repeat beside a fresh variant sent at another moment of a drifting load) would not be caught.
// A load that rises eightfold through the check hides a consistent 20% speedup from any
// comparison of the two sides as wholes, not from the pairs.
func TestAConsistentSpeedupUnderDriftFails(t *testing.T) {
	n := &evidence.NoCache{Input: "clip", Output: "text"}
	for i := range MinK {
		load := 100 * math.Pow(8, float64(i)/MinK) * (1 + 0.01*float64(i%3))
		n.Fresh = append(n.Fresh, evidence.NoCacheRequest{RequestID: fmt.Sprintf("f%d", i), Status: 200, TaskMS: load})
		n.Repeats = append(n.Repeats, evidence.NoCacheRequest{RequestID: fmt.Sprintf("r%d", i), Status: 200, Output: "text", TaskMS: 0.8 * load})
	}
	if Judge(n); n.Passed || n.Pairs != MinK || math.Abs(n.ShiftFraction+0.2) > 0.01 {
		t.Fatalf("a 20%% speedup under drift: passed %v, %d pairs, ratio − 1 %.3f [%.3f, %.3f]", n.Passed, n.Pairs, n.ShiftFraction,
			n.ShiftFractionCI.Lower, n.ShiftFractionCI.Upper)
	}
}

// A cached answer recorded as taking 0 ms compares as the fastest possible, not as an error.
func TestZeroMillisecondRepeatsFail(t *testing.T) {
	n := seeded(3, MinK, 100, 0, 0.05)
	for i := range n.Repeats {
		n.Repeats[i].TaskMS = 0
	}
	if Judge(n); n.Passed || !strings.Contains(strings.Join(n.Failures, "; "), "significantly more than") {
		t.Fatalf("repeats at 0 ms: passed %v, failures %v", n.Passed, n.Failures)
	}
}

func TestFasterThanHalfTheNativeRunFails(t *testing.T) {
	n := seeded(1, MinK, 100, 0, 0.05)
	n.NativeTaskMS = ms(250)
	if Judge(n); n.Passed || !strings.Contains(strings.Join(n.Failures, "; "), "faster than the Task can run") {
		t.Fatalf("repeats at 40%% of the native run passed: %+v", n.Failures)
	}
	n = seeded(1, MinK, 100, 0, 0.05)
	n.NativeTaskMS = ms(180)
	if Judge(n); !n.Passed {
		t.Fatalf("repeats at 55%% of the native run failed: %v", n.Failures)
	}
}

func TestEveryRequestMustBeAnsweredAndFresh(t *testing.T) {
	cases := map[string]func(n *evidence.NoCache){
		"HTTP 503":            func(n *evidence.NoCache) { n.Fresh[3].Status = 503 },
		"answered \"other\"":  func(n *evidence.NoCache) { n.Repeats[2].Output = "other" },
		"as the repeated":     func(n *evidence.NoCache) { n.Fresh[1].InputSHA256 = "aa" },
		"as one input":        func(n *evidence.NoCache) { n.Fresh[1].InputSHA256, n.Fresh[2].InputSHA256 = "f", "f" },
		"2 different inputs":  func(n *evidence.NoCache) { n.Repeats[0].InputSHA256 = "bb" },
		"nothing to compare:": func(n *evidence.NoCache) { n.Fresh = nil },
	}
	for want, spoil := range cases {
		n := seeded(2, MinK, 100, 0, 0.05)
		for i := range n.Repeats {
			n.Repeats[i].InputSHA256 = "aa"
			n.Fresh[i].InputSHA256 = fmt.Sprintf("f%d", i)
		}
		if Judge(n); !n.Passed {
			t.Fatalf("clean data failed: %v", n.Failures)
		}
		n = seeded(2, MinK, 100, 0, 0.05)
		for i := range n.Repeats {
			n.Repeats[i].InputSHA256 = "aa"
			n.Fresh[i].InputSHA256 = fmt.Sprintf("f%d", i)
		}
		spoil(n)
		if Judge(n); n.Passed || !strings.Contains(strings.Join(n.Failures, "; "), want) {
			t.Errorf("%s: passed %v, failures %v", want, n.Passed, n.Failures)
		}
	}
}

func TestKGrowsWithConcurrency(t *testing.T) {
	for c, want := range map[int]int{1: 16, 2: 16, 8: 16, 9: 18, 16: 32} {
		if K(c) != want {
			t.Errorf("K(%d) = %d, want %d", c, K(c), want)
		}
	}
}

// The floor needs both baselines: over random loads of the native run (up to 5× slower) and of
// the server's first sight of the input, an honest row whose first sight ran at the repeats'
// speed never fails the floor, and a cache (repeats under half of both) always does.
func TestTheFloorNeedsBothBaselines(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 4))
	for trial := range 400 {
		native := 100 * (0.8 + 4.2*rng.Float64()) // the native run, under any load
		honest := seeded(uint64(trial), MinK, 100, 0, 0.05)
		honest.NativeTaskMS, honest.FirstSightTaskMS = ms(native), ms(100*(0.9+0.5*rng.Float64()))
		if Judge(honest); strings.Contains(strings.Join(honest.Failures, "; "), "faster than the Task can run") {
			t.Fatalf("trial %d: honest repeats failed the floor with native %.0f ms, first sight %.0f ms: %v", trial, native, *honest.FirstSightTaskMS, honest.Failures)
		}
		cached := seeded(uint64(trial), MinK, 100, 0, 0.05) // fresh variants as fast as repeats: a cache the paired rule cannot see
		for i := range cached.Repeats {
			cached.Repeats[i].TaskMS /= 3
			cached.Fresh[i].TaskMS /= 3
		}
		cached.NativeTaskMS, cached.FirstSightTaskMS = ms(native*1.25), ms(100*(0.9+0.5*rng.Float64()))
		if Judge(cached); !strings.Contains(strings.Join(cached.Failures, "; "), "faster than the Task can run") {
			t.Fatalf("trial %d: repeats at a third of both baselines passed the floor: %v", trial, cached.Failures)
		}
	}
}
