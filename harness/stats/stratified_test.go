package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// requests draws a row's measured requests on a log scale: perInput requests of each of inputs
// inputs, whose own costs spread by blockSD, each request varying by withinSD around its input's
// cost, all shifted by shift.
func requests(r *rand.Rand, costs []float64, perInput int, withinSD, shift float64) []Blocked {
	var out []Blocked
	for i, c := range costs {
		for range perInput {
			out = append(out, Blocked{Block: fmt.Sprintf("input-%d", i), Value: c + shift + withinSD*r.NormFloat64()})
		}
	}
	return out
}

// The stratified interval keeps its level when inputs cost very different amounts: over many seeds
// of identical builds (no shift), its 90% interval covers 0 about 90% of the time, at the default
// load (7 inputs × 5 measured requests a side) and at a smoke-like 3 × 2.
func TestStratifiedShiftKeepsItsLevel(t *testing.T) {
	for _, tc := range []struct{ inputs, per int }{{7, 5}, {3, 2}, {2, 5}, {7, 2}, {7, 3}, {2, 2}, {1, 8}, {12, 10}} {
		covered, draws := 0, 2000
		r := rand.New(rand.NewPCG(1, uint64(tc.inputs*100+tc.per)))
		for range draws {
			costs := make([]float64, tc.inputs)
			for i := range costs {
				costs[i] = 0.8 * r.NormFloat64()
			}
			sh, _, err := StratifiedShift(requests(r, costs, tc.per, 0.05, 0), requests(r, costs, tc.per, 0.05, 0), SpeedupLevel)
			if err != nil {
				t.Fatal(err)
			}
			if sh.CI.Lower <= 0 && 0 <= sh.CI.Upper {
				covered++
			}
		}
		rate := float64(covered) / float64(draws)
		t.Logf("%d inputs × %d: covered %.1f%%", tc.inputs, tc.per, 100*rate)
		if rate < 0.87 {
			t.Errorf("%d inputs × %d: the 90%% interval covered no shift in %.1f%% of %d draws", tc.inputs, tc.per, 100*rate, draws)
		}
	}
}

// Where the plain shift cannot see a 20% slowdown behind the spread between inputs, the aligned
// shift places its whole interval past the red light's bound; and an input sent on one side only
// is left out rather than read as a shift.
func TestStratifiedShiftSeesASlowdownThePlainShiftCannot(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	red := -math.Log(RedBelow)
	aligned, plain, draws := 0, 0, 300
	for range draws {
		costs := make([]float64, 7)
		for i := range costs {
			costs[i] = 0.5 * r.NormFloat64()
		}
		base, slow := requests(r, costs, 5, 0.01, 0), requests(r, costs, 5, 0.01, math.Log(1.2))
		sh, blocks, err := StratifiedShift(base, slow, SpeedupLevel)
		if err != nil || blocks != 7 || sh.N != [2]int{35, 35} {
			t.Fatalf("%v: %d blocks, n %v", err, blocks, sh.N)
		}
		if sh.CI.Lower > red {
			aligned++
		}
		p, err := HodgesLehmann(blockValues(base), blockValues(slow), SpeedupLevel)
		if err != nil {
			t.Fatal(err)
		}
		if p.CI.Lower > red {
			plain++
		}
	}
	if aligned < draws*95/100 || plain > draws/10 {
		t.Errorf("a 20%% slowdown past the red bound: stratified %d, plain %d of %d draws", aligned, plain, draws)
	}

	one := []Blocked{{"a", 1}, {"a", 1.1}, {"b", 5}}
	other := []Blocked{{"a", 1.05}, {"a", 1.0}, {"c", 9}}
	sh, blocks, err := StratifiedShift(one, other, SpeedupLevel)
	if err != nil || blocks != 1 || sh.N != [2]int{2, 2} {
		t.Errorf("only input a is on both sides: %+v, %d blocks, %v", sh, blocks, err)
	}
	if _, _, err := StratifiedShift(one[2:], other[2:], SpeedupLevel); err == nil {
		t.Error("no common input must be an error, not a shift")
	}
}

// With one block the stratified shift is the plain Hodges–Lehmann estimate: the median of every
// difference new − base.
func TestStratifiedShiftOfOneBlockIsThePlainEstimate(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for range 200 {
		m, n := 1+r.IntN(30), 1+r.IntN(30)
		base, slow := requests(r, []float64{0}, m, 1, 0)[:m], requests(r, []float64{0}, n, 1, 0.3)[:n]
		sh, blocks, err := StratifiedShift(base, slow, SpeedupLevel)
		plain, perr := HodgesLehmann(blockValues(base), blockValues(slow), SpeedupLevel)
		if err != nil || perr != nil || blocks != 1 {
			t.Fatal(err, perr, blocks)
		}
		if math.Abs(sh.Estimate-plain.Estimate) > 1e-12 || sh.CI.Lower > sh.Estimate || sh.Estimate > sh.CI.Upper {
			t.Fatalf("m %d n %d: stratified %+v, plain %+v", m, n, sh, plain)
		}
	}
}
