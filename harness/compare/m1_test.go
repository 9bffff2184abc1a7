package compare

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/internal/runfixture"
	"github.com/trtmc-qual/trtmc-qual/harness/stats"
)

// TestCompareYellowReachingBelowRedIsUndecided: a yellow light whose interval reaches below the
// red bound neither shows nor excludes a regression, so "no regression found" would claim what
// the data does not support: the comparison is INCONCLUSIVE, and the Why line says so.
func TestCompareYellowReachingBelowRedIsUndecided(t *testing.T) {
	base := runfixture.WriteRun(t, "base", repeatedRow(t, 100, 101, 99, 100.5, 99.8, 100.1))
	cand := runfixture.WriteRun(t, "new", repeatedRow(t, 112, 118, 110, 120, 115, 115))
	var out bytes.Buffer
	err := runCompare(context.Background(), []string{base, cand}, &out)
	p := compareRuns(mustRead(t, base), mustRead(t, cand)).Rows[0].Performance
	if p.Light != stats.Yellow || p.CI.Lower >= stats.RedBelow || p.CI.Upper <= stats.RedBelow {
		t.Fatalf("the fixture must be yellow and straddle %.3f: %s %+v", stats.RedBelow, p.Light, p.CI)
	}
	if !errors.Is(err, ErrInconclusive) || !strings.Contains(out.String(), "INCONCLUSIVE (0 of 1 timed rows decided)") ||
		!strings.Contains(out.String(), "undecided: the interval reaches below the red bound 0.848") {
		t.Fatalf("a yellow interval reaching below the red bound: got %v\n%s", err, out.String())
	}
}

// TestCompareDecidesOnlyWhollyOnOneSideOfTheRedBound attacks the class: over random run sets
// (2–8 runs a side, spreads 0–4%, slowdowns −10% to +30%) a row counts as decided exactly when
// its light is red or its whole interval lies above the red bound, and the verdict says no
// regression only then: "no regression found" when the interval also reaches 1, else "no
// regression beyond the tolerance; measurably slower within it: …" (the row is slower, by less
// than the red bound tolerates). The draws must include yellow rows on both sides of the rule,
// and rows cleared of regression both slower within the tolerance and not.
func TestCompareDecidesOnlyWhollyOnOneSideOfTheRedBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 44))
	straddling, clear := 0, 0
	within := map[bool]int{}
	for range 400 {
		n := 2 + rng.IntN(7)
		cv, slow := 0.04*rng.Float64(), -0.1+0.4*rng.Float64()
		b, m := make([]float64, n), make([]float64, n)
		for i := range b {
			b[i] = 1000 * math.Exp(cv*rng.NormFloat64())
			m[i] = 1000 * (1 + slow) * math.Exp(cv*rng.NormFloat64())
		}
		c := compareRuns(evidenceOf(t, b), evidenceOf(t, m))
		p := c.Rows[0].Performance
		want := p.Light == stats.Red || (p.Light != stats.White && p.CI.Lower > stats.RedBelow)
		if got := c.Decided == 1; got != want {
			t.Fatalf("%s %+v: decided %v, want %v", p.Light, p.CI, got, want)
		}
		c.Verdict = overall(c)
		cleared := want && p.Light != stats.Red
		slower := cleared && p.CI.Upper < 1
		if cleared {
			within[slower]++
		}
		if (c.Verdict == "no regression found") != (cleared && !slower) ||
			(c.Verdict == "no regression beyond the tolerance; measurably slower within it: asr/sphinx-en-us") != slower {
			t.Fatalf("%s %+v: verdict %q", p.Light, p.CI, c.Verdict)
		}
		if p.Light == stats.Yellow {
			if want {
				clear++
			} else {
				straddling++
			}
		}
	}
	if straddling == 0 || clear == 0 || within[true] == 0 || within[false] == 0 {
		t.Fatalf("the draws must hold yellow rows both straddling (%d) and clear of (%d) the red bound, and cleared rows slower within the tolerance (%d) and not (%d)",
			straddling, clear, within[true], within[false])
	}
}

func evidenceOf(t *testing.T, p50s []float64) evidence.Evidence {
	t.Helper()
	return evidence.Evidence{Stages: []evidence.Stage{{Stage: "asr", Results: []evidence.Result{repeatedRow(t, p50s...)}}}}
}
