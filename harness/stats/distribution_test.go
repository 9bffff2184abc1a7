package stats

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// The distributions were gonum's distuv until the verifier had to stop linking gonum; recorded
// intervals are compared exactly, so each use must give gonum's result to the last bit.

func TestTQuantileIsGonums(t *testing.T) {
	dfs := []float64{0.5, 1.5, 2.7, 3.3, 7.91, 12.5, 33.3, 1e3 + 0.5, 1e5}
	for df := 1; df <= 2000; df++ {
		dfs = append(dfs, float64(df))
	}
	for _, level := range []float64{SpeedupLevel, MeanLevel, 0.99} {
		for _, df := range dfs {
			want := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - (1-level)/2)
			if got := tQuantile(level, df); got != want {
				t.Fatalf("t quantile level %v df %v: %v, gonum %v", level, df, got, want)
			}
		}
	}
}

func TestNormalQuantileIsGonums(t *testing.T) {
	for i := 1; i < 100_000; i++ {
		p := float64(i) / 100_000
		if got, want := normalQuantile(p), distuv.UnitNormal.Quantile(p); got != want {
			t.Fatalf("normal quantile %v: %v, gonum %v", p, got, want)
		}
	}
}

// mean and variance sum in gonum's amd64 order (its assembly); elsewhere gonum sums in a plain
// loop, so there they can differ from gonum in the last bits only.
func TestMeanAndVarianceAreGonums(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 70; n++ {
		for trial := 0; trial < 50; trial++ {
			var xs []float64 // built as the run code builds them: appended
			for range n {
				xs = append(xs, math.Exp(rng.NormFloat64()*3)*1000)
			}
			check := func(what string, got, want float64) {
				t.Helper()
				exact := runtime.GOARCH == "amd64"
				if exact && got != want || !exact && math.Abs(got-want) > 1e-12*math.Abs(want) {
					t.Fatalf("n=%d %s: %v, gonum %v", n, what, got, want)
				}
			}
			check("mean", mean(xs), stat.Mean(xs, nil))
			if n > 1 {
				check("variance", variance(xs), stat.Variance(xs, nil))
			}
		}
	}
}
