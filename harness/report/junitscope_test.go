package report

import (
	"math/rand/v2"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// TestJUnitCarriesTheScopeAndEachTailsN: a stage's JUnit report carries its scope in the
// verdict's words (a reduced-load or partial stage says it is no qualification), and each row's
// timing case carries, beside every tail percentile, its n and each side of its interval a sample
// bounds (an open side is absent, never a 0) — for rows of 1 to 80 requests and of five runs.
func TestJUnitCarriesTheScopeAndEachTailsN(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 44))
	rows := []evidence.Result{repeatedRow(t)}
	for n := 1; n <= 80; n += 7 {
		rows = append(rows, oneRunRow(t, rng, n))
	}
	for _, r := range rows {
		props := map[string]float64{}
		for _, f := range JUnitFigures(r) {
			if f.Of == JUnitTiming {
				props[f.Name] = f.Value
			}
		}
		tails := 0
		for _, f := range r.Timing.Figures {
			iv := f.Interval
			if iv == nil {
				continue
			}
			tails++
			if n, ok := props[f.Name+"_n"]; !ok || int(n) != iv.N {
				t.Errorf("%s: %s_n = %v (%v), want %d", r.Profile, f.Name, n, ok, iv.N)
			}
			lo, hasLo := props[f.Name+"_lower_ms"]
			hi, hasHi := props[f.Name+"_upper_ms"]
			if hasLo != (iv.LowerOrder > 0) || hasHi != (iv.UpperOrder > 0) || (hasLo && lo != iv.Lower) || (hasHi && hi != iv.Upper) {
				t.Errorf("%s %s: lower %v %v, upper %v %v; interval %+v", r.Profile, f.Name, lo, hasLo, hi, hasHi, *iv)
			}
		}
		if tails != 6 {
			t.Errorf("%s: %d tails with an interval, want 6 (p95 and p99 of client, Task and overhead)", r.Profile, tails)
		}
	}
	for _, c := range []struct {
		ran  int // of the target's 3 rows
		sel  evidence.Selection
		want string
	}{
		{3, evidence.Selection{}, "qualification: 3 of 3 rows at the target's load"},
		{3, evidence.Selection{ReducedLoad: []string{"runs 2 of 5"}}, "REDUCED LOAD — not a qualification: 3 of 3 rows, at a load below the target's (asr: runs 2 of 5)"},
		{1, evidence.Selection{Label: "smoke"}, "SMOKE — not a qualification: 1 of 3 rows"},
		{1, evidence.Selection{Label: "smoke", ReducedLoad: []string{"runs 1 of 5", "requests 2 of 7"}}, "SMOKE — not a qualification: 1 of 3 rows, at a load below the target's (asr: runs 1 of 5, requests 2 of 7)"},
		{1, evidence.Selection{}, "PARTIAL SELECTION — not a qualification: 1 of 3 rows"},
	} {
		sel := c.sel
		sel.TargetRows, sel.Counted = []string{"a", "b", "c"}, 1
		s := evidence.Stage{Stage: "asr", Results: []evidence.Result{{Profile: "a"}, {Profile: "b"}, {Profile: "c"}}[:c.ran], Selection: &sel}
		if got := JUnitStageProperties(s)["scope"]; got != c.want {
			t.Errorf("scope property %q, want %q", got, c.want)
		}
	}
}
