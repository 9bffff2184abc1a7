package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// These simulations check that the intervals mean what they say: over many comparisons with a
// known truth, a 90% interval must contain it about 90% of the time. Seeds are fixed, so each
// figure is reproducible; the tolerance (±3 points over 1,000 trials) is about 3 binomial
// standard errors.

// runs draws n per-run medians around center with lognormal run-to-run noise.
func runs(rng *rand.Rand, n int, center, sigma float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = center * math.Exp(sigma*rng.NormFloat64())
	}
	return out
}

func TestWelchSpeedupCoverage(t *testing.T) {
	const trials, truth = 1000, 1.2
	rng := rand.New(rand.NewPCG(1, 19))
	covered := 0
	for range trials {
		// Unequal spreads and run counts: the case Welch exists for.
		sp, err := Compare(runs(rng, 5, 120, 0.04), runs(rng, 4, 100, 0.015), "")
		if err != nil {
			t.Fatal(err)
		}
		if sp.CI.Lower <= truth && truth <= sp.CI.Upper {
			covered++
		}
	}
	rate := float64(covered) / trials
	t.Logf("90%% Welch interval of S = %.1f covered the truth in %d of %d simulated comparisons (%.1f%%)", truth, covered, trials, 100*rate)
	if math.Abs(rate-0.90) > 0.03 {
		t.Errorf("coverage %.3f, want 0.90 ± 0.03", rate)
	}
}

func TestStudentTCoverage(t *testing.T) {
	const trials, truth = 1000, 50.0
	rng := rand.New(rand.NewPCG(2, 19))
	covered := 0
	for range trials {
		x := make([]float64, 5)
		for i := range x {
			x[i] = truth + 3*rng.NormFloat64()
		}
		iv, _ := MeanCI(x)
		if iv.CI.Lower <= truth && truth <= iv.CI.Upper {
			covered++
		}
	}
	rate := float64(covered) / trials
	t.Logf("95%% Student-t interval over 5 runs covered the mean in %d of %d (%.1f%%)", covered, trials, 100*rate)
	if math.Abs(rate-0.95) > 0.03 {
		t.Errorf("coverage %.3f, want 0.95 ± 0.03", rate)
	}
}

// TestLightsUnderKnownTruth: two runs of the same build (S = 1) are never red and a 30% slowdown
// (S = 1/1.3) is red, with the spread our reference runs show (about 1–2% between runs). TRTMC's
// guard g = 12% costs power: red needs the upper bound below 0.95/1.12 = 0.848, so a 20%
// slowdown (S = 0.833) is red only about a third of the time at this spread (logged).
func TestLightsUnderKnownTruth(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 19))
	count := func(s float64) map[Light]int {
		lights := map[Light]int{}
		for range 1000 {
			sp, err := Compare(runs(rng, 5, 100, 0.02), runs(rng, 5, 100/s, 0.02), "")
			if err != nil {
				t.Fatal(err)
			}
			lights[sp.Light]++
		}
		return lights
	}
	same, slow, slow20 := count(1), count(1/1.3), count(1/1.2)
	t.Logf("same build: %v; 30%% slower: %v; 20%% slower: %v (1,000 each)", same, slow, slow20)
	// White is the spread rule at work (a 95% half-width over 5 runs above 5% of the mean), not
	// a verdict; it must stay rare at this spread.
	if same[Red] != 0 || same[Green] != 0 {
		t.Errorf("same build: %d red, %d green in 1,000", same[Red], same[Green])
	}
	if slow[Green] != 0 || slow[Yellow] != 0 || slow[Red] < 990 {
		t.Errorf("30%% slowdown: %v, want red except for rare white", slow)
	}
	if slow20[Green] != 0 || slow20[Red] == 0 || slow20[Red] > 700 {
		t.Errorf("20%% slowdown: %v, want never green, and red only where the interval clears the guard", slow20)
	}
}

// TestBootstrapCoverage: the percentile bootstrap's 90% interval (5th–95th) of a WER difference
// over 50 speakers with 10 clips each, against the true difference of the generating process.
func TestBootstrapCoverage(t *testing.T) {
	const trials, speakers, clips = 1000, 50, 10
	const pBase, pNew = 0.10, 0.12 // per-word error probabilities: true difference 0.02
	rng := rand.New(rand.NewPCG(4, 19))
	covered := 0
	for trial := range trials {
		var units []Unit
		for s := range speakers {
			lift := 0.05 * rng.NormFloat64() // speaker difficulty, shared by both sides
			for range clips {
				words := float64(5 + rng.IntN(20))
				units = append(units, Unit{
					Cluster: string(rune('A' + s)),
					Base:    wer(binom(rng, int(words), clamp(pBase+lift)), words),
					New:     wer(binom(rng, int(words), clamp(pNew+lift)), words),
				})
			}
		}
		ni, err := Bootstrap(units, Increase(0), Resamples, Seed+uint64(trial))
		if err != nil {
			t.Fatal(err)
		}
		if truth := truthDiff(pBase, pNew); ni.P05 <= truth && truth <= ni.P95 {
			covered++
		}
	}
	rate := float64(covered) / trials
	t.Logf("bootstrap 5th–95th of the WER difference (50 speaker clusters × 10 clips) covered the truth in %d of %d (%.1f%%)", covered, trials, 100*rate)
	if math.Abs(rate-0.90) > 0.03 {
		t.Errorf("coverage %.3f, want 0.90 ± 0.03", rate)
	}
}

func clamp(p float64) float64 { return min(0.95, max(0.0, p)) }

// truthDiff: the clamp is never reached with lifts of a few points, so the difference is exact.
func truthDiff(pBase, pNew float64) float64 { return pNew - pBase }

func binom(rng *rand.Rand, n int, p float64) float64 {
	k := 0
	for range n {
		if rng.Float64() < p {
			k++
		}
	}
	return float64(k)
}
