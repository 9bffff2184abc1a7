package metrics

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// BenchmarkWER10kPairs scores 10,000 pairs of ~20 words (goal: < 200 ms per op).
func BenchmarkWER10kPairs(b *testing.B) {
	pairs := benchPairs(10000)
	b.ResetTimer()
	for b.Loop() {
		s := Score(pairs, Identity(), SCLITECosts())
		if s.Words.RefWords() == 0 {
			b.Fatal("no words scored")
		}
	}
}

// BenchmarkSSIM1024RGB is SSIM on a 1024×1024 RGB pair (goal: < 100 ms per op).
func BenchmarkSSIM1024RGB(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := FromImage(noiseImage(rng, 1024, 1024))
	y := FromImage(addNoise(rng, noiseImage(rng, 1024, 1024), 10))
	b.ResetTimer()
	for b.Loop() {
		if _, err := SSIM(x, y); err != nil {
			b.Fatal(err)
		}
	}
}

func benchPairs(n int) []Pair {
	pairs := randomPairs(n, 42, false)
	for i := range pairs { // trim to ~20 words, the size the goal names
		ref := Identity().Tokens(pairs[i].Expected)
		hyp := Identity().Tokens(pairs[i].Hyp)
		pairs[i].Expected = joinFirst(ref, 20)
		pairs[i].Hyp = joinFirst(hyp, 20)
	}
	return pairs
}

func joinFirst(words []string, n int) string { return strings.Join(words[:min(n, len(words))], " ") }
