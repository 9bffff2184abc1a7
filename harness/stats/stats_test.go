package stats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
)

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.9g, want %.9g (±%g)", what, got, want, tol)
	}
}

func TestMeanCIKnownValues(t *testing.T) {
	// mean 11, s = √2.5, t(0.975, 4) = 2.776445105 (tables): half-width 1.963243.
	iv, err := MeanCI([]float64{10, 12, 11, 13, 9})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "mean", iv.Mean, 11, 1e-12)
	near(t, "sd", iv.SD, math.Sqrt(2.5), 1e-12)
	near(t, "half-width", iv.HalfWidth, 2.776445105*math.Sqrt(2.5)/math.Sqrt(5), 1e-8)
	if iv.CI == nil || !iv.Inconclusive || !strings.Contains(iv.Reason, "17.8%") {
		t.Errorf("spread 17.8%% must be inconclusive with the figure in the reason: %+v", iv)
	}
	tight, err := MeanCI([]float64{100, 101, 99, 100.5, 99.5})
	if err != nil {
		t.Fatal(err)
	}
	if tight.Inconclusive {
		t.Errorf("half-width %.3f on mean 100 is below 5%%, yet inconclusive: %s", tight.HalfWidth, tight.Reason)
	}
}

func TestMeanCIOneRunAndBadInput(t *testing.T) {
	iv, err := MeanCI([]float64{42})
	if err != nil {
		t.Fatal(err)
	}
	if iv.CI != nil || !iv.Inconclusive || iv.Mean != 42 {
		t.Errorf("one run: want a mean, no interval, inconclusive; got %+v", iv)
	}
	for _, bad := range [][]float64{nil, {1, math.NaN()}, {math.Inf(1), 2}} {
		if _, err := MeanCI(bad); err == nil {
			t.Errorf("MeanCI(%v) accepted", bad)
		}
	}
}

func TestCompareLights(t *testing.T) {
	base := []float64{100, 101, 99, 100.5, 99.5}
	scale := func(xs []float64, f float64) []float64 {
		out := make([]float64, len(xs))
		for i, x := range xs {
			out[i] = x * f
		}
		return out
	}
	cases := []struct {
		name  string
		new   []float64
		work  string
		light Light
	}{
		{"new 20% faster", scale(base, 1/1.2), "", Green},
		{"new 20% slower", scale(base, 1.2), "", Red},
		{"same", []float64{100.2, 99.8, 100.1, 99.9, 100.4}, "", Yellow},
		{"2% slower decides nothing", scale(base, 1.02), "", Yellow},
		{"10% faster is within TRTMC's guard", scale(base, 1/1.10), "", Yellow},
		{"10% slower is within TRTMC's guard", scale(base, 1.10), "", Yellow},
		{"work differs", scale(base, 1.2), "request count 8 vs 12", White},
		{"one run", []float64{120}, "", White},
		{"spread", []float64{60, 140, 100, 80, 120}, "", White},
	}
	for _, c := range cases {
		sp, err := Compare(base, c.new, c.work)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if sp.Light != c.light {
			t.Errorf("%s: light %s (%s), want %s", c.name, sp.Light, sp.Why, c.light)
		}
	}
	if _, err := Compare(base, []float64{100, 0}, ""); err == nil {
		t.Error("a zero time was accepted")
	}
}

func TestCompareIdenticalRunsHaveAPointInterval(t *testing.T) {
	sp, err := Compare([]float64{5, 5, 5}, []float64{5, 5, 5}, "")
	if err != nil {
		t.Fatal(err)
	}
	if sp.S != 1 || sp.CI == nil || sp.CI.Lower != 1 || sp.CI.Upper != 1 || sp.Light != Yellow {
		t.Errorf("identical constant runs: %+v", sp)
	}
}

func wer(errs, words float64) Ratio { return Ratio{Num: errs, Den: words} }

func TestBootstrapVerdicts(t *testing.T) {
	same := make([]Unit, 40)
	worse := make([]Unit, 40)
	for i := range same {
		e := float64(i % 4)
		same[i] = Unit{ID: string(rune('a' + i%26)), Base: wer(e, 10), New: wer(e, 10)}
		worse[i] = Unit{Base: wer(e, 10), New: wer(e+3, 10)}
	}
	check := func(name string, units []Unit, reg Regression, want schema.Verdict) schema.NonInferiority {
		t.Helper()
		ni, err := Bootstrap(units, reg, Resamples, Seed)
		if err != nil {
			t.Fatal(err)
		}
		if ni.Verdict != want {
			t.Errorf("%s: %s (p5 %.4f, p95 %.4f), want %s", name, ni.Verdict, ni.P05, ni.P95, want)
		}
		return ni
	}
	check("identical within a 0.01 margin", same, Increase(0.01), schema.Pass)
	check("WER +30 points against a 0.01 margin", worse, Increase(0.01), schema.Fail)
	check("WER +30 points against a 0.5 margin", worse, Increase(0.5), schema.Pass)
	check("WER 15% under a 0.3 bound", same, AtMost(0.3), schema.Pass)
	check("WER 45% over a 0.3 bound", worse, AtMost(0.3), schema.Fail)
	check("PSNR-like drop", worse, Decrease(0.01), schema.Pass) // higher is better: "worse" units went up
	ni := check("WER 15% against a 0.15 bound", same, AtMost(0.15), schema.Inconclusive)
	if ni.P05 >= 0 || ni.P95 <= 0 {
		t.Errorf("a bound at the estimate must straddle: %+v", ni)
	}
}

func TestBootstrapClustersAndDeterminism(t *testing.T) {
	var units []Unit
	for i := range 30 {
		units = append(units, Unit{Cluster: []string{"spk1", "spk2", "spk3"}[i%3], Base: wer(1, 10), New: wer(float64(i%5), 10)})
	}
	a, err := Bootstrap(units, Increase(0.05), Resamples, Seed)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Bootstrap(units, Increase(0.05), Resamples, Seed)
	if a != b {
		t.Errorf("same data and seed gave different results: %+v vs %+v", a, b)
	}
	if a.Clusters != 3 || a.Units != 30 {
		t.Errorf("clusters %d units %d, want 3 and 30", a.Clusters, a.Units)
	}
	if _, err := Bootstrap(nil, Increase(0), Resamples, Seed); err == nil {
		t.Error("empty corpus accepted")
	}
	if _, err := Bootstrap([]Unit{{Base: wer(1, 0), New: wer(1, 1)}}, Increase(0), Resamples, Seed); err == nil {
		t.Error("zero denominator accepted")
	}
}

// Over random runs of a figure that cannot be negative (zeros, tiny means with wide spreads):
// the interval never reaches below 0, and where the uncut one does not, they are the same.
func TestNonNegativeMeanCINeverReachesBelowZero(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for trial := range 2000 {
		runs := make([]float64, 1+rng.IntN(8))
		for i := range runs {
			if rng.IntN(3) > 0 {
				runs[i] = rng.ExpFloat64() * math.Pow(10, float64(rng.IntN(6)-3))
			}
		}
		cut, err := NonNegativeMeanCI(runs)
		if err != nil {
			t.Fatal(err)
		}
		plain, _ := MeanCI(runs)
		switch {
		case cut.CI == nil:
			if plain.CI != nil {
				t.Fatalf("trial %d %v: no interval where MeanCI has one", trial, runs)
			}
		case cut.CI.Lower < 0:
			t.Fatalf("trial %d %v: lower bound %g", trial, runs, cut.CI.Lower)
		case plain.CI.Lower >= 0 && *cut.CI != *plain.CI, cut.CI.Upper != plain.CI.Upper, cut.HalfWidth != plain.HalfWidth, cut.Inconclusive != plain.Inconclusive:
			t.Fatalf("trial %d %v: cut %+v differs from %+v beyond the cut", trial, runs, cut, plain)
		case (plain.CI.Lower < 0) != strings.HasSuffix(cut.Rule, NonNegativeCut):
			t.Fatalf("trial %d %v: rule %q for an uncut lower bound %g", trial, runs, cut.Rule, plain.CI.Lower)
		}
	}
	if _, err := NonNegativeMeanCI([]float64{1, -0.5}); err == nil {
		t.Fatal("a negative value of a figure that cannot be negative was accepted")
	}
}
