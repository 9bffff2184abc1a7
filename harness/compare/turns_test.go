package compare

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/internal/runfixture"
)

// pairRuns writes k base and k new runs of one row (the new ones built with newTags), run j
// (A1…Ak, then B1…Bk) taking turn slots[j] (0-based), each ten minutes long.
func pairRuns(t *testing.T, k int, slots []int, newTags string) (base, new []string) {
	t.Helper()
	t0 := time.Date(2026, 12, 3, 18, 0, 0, 0, time.UTC)
	for j := range 2 * k {
		start := t0.Add(time.Duration(slots[j]) * 10 * time.Minute)
		side, i, tags := "A", j, "none"
		if j >= k {
			side, i, tags = "B", j-k, newTags
		}
		dir := runfixture.WriteBuildAt(t, fmt.Sprintf("%s%d", side, i+1), tags, start, start.Add(9*time.Minute),
			runfixture.ASRRow("whisper-tiny-en", runfixture.Golds(), 1000*float64(1+j%3)))
		if side == "A" {
			base = append(base, dir)
		} else {
			new = append(new, dir)
		}
	}
	return base, new
}

// alternating are the turns make compare-ab gives A1…Ak, B1…Bk: A1 B1, B2 A2, A3 B3, …
func alternating(k int) []int {
	slots := make([]int, 2*k)
	for n, turn := range turnOrder(k) {
		slots[turn[0]*k+turn[1]] = n
	}
	return slots
}

// TestPairedRunsMustHaveTakenTurns: over k = 1…5 pairs and 200 random orders of their 2k runs,
// a paired comparison accepts exactly the order make compare-ab runs (A1 B1, B2 A2, …) and
// refuses every other as a usage error naming the first run out of turn; two runs that overlap
// in time, and a run that recorded no time, are refused too.
func TestPairedRunsMustHaveTakenTurns(t *testing.T) {
	rng := rand.New(rand.NewPCG(44, 3))
	for trial := range 200 {
		k := 1 + trial%5
		slots := alternating(k)
		if trial%4 != 0 {
			rng.Shuffle(len(slots), func(i, j int) { slots[i], slots[j] = slots[j], slots[i] })
		}
		base, new := pairRuns(t, k, slots, "qual_slowdown")
		err := Paired(base, new, Options{AllowMissing: true}, io.Discard)
		if slices.Equal(slots, alternating(k)) {
			if errors.Is(err, ErrUsage) {
				t.Fatalf("k=%d, turns %v (make compare-ab's order): refused: %v", k, slots, err)
			}
			continue
		}
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "did not take turns as make compare-ab runs them") {
			t.Fatalf("k=%d, turns %v: %v; want refused, not taking turns", k, slots, err)
		}
	}
	// Overlapping runs: B1 starts a minute before A1 ends.
	base, new := pairRuns(t, 2, []int{0, 3, 1, 2}, "qual_slowdown")
	shiftRun(t, new[0], -2*time.Minute)
	if err := Paired(base, new, Options{}, io.Discard); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "B1 ("+new[0]+") started at 2026-12-03 18:08:00.000 UTC, before A1 ("+base[0]+") ended at 2026-12-03 18:09:00.000 UTC") {
		t.Errorf("overlapping runs: %v", err)
	}
	base, new = pairRuns(t, 2, alternating(2), "qual_slowdown")
	shiftRun(t, base[1], 0) // rewritten without times
	if err := Paired(base, new, Options{}, io.Discard); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "A2 ("+base[1]+") records no start and end time") {
		t.Errorf("a run without times: %v", err)
	}
}

// shiftRun moves a fixture run's recorded times by d; d = 0 removes them.
func shiftRun(t *testing.T, dir string, d time.Duration) {
	t.Helper()
	e, err := evidence.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range e.Stages {
		if d == 0 {
			e.Stages[i].Started, e.Stages[i].Finished = time.Time{}, time.Time{}
		} else {
			e.Stages[i].Started, e.Stages[i].Finished = e.Stages[i].Started.Add(d), e.Stages[i].Finished.Add(d)
		}
	}
	if err := evidence.WriteJSON(filepath.Join(dir, "evidence.json"), e); err != nil {
		t.Fatal(err)
	}
}

// TestPairedRefusesARunGivenTwice: the same run given twice, on both sides of a pair or twice on
// one side, by its run id, or as a copy whose run id was changed, is a usage error, whichever pair.
func TestPairedRefusesARunGivenTwice(t *testing.T) {
	for k := 1; k <= 3; k++ {
		for i := range k {
			base, new := pairRuns(t, k, alternating(k), "none") // one build: an A/A comparison
			// A<i+1> as the new side of its own pair.
			n2 := append([]string{}, new...)
			n2[i] = base[i]
			if err := Paired(base, n2, Options{}, io.Discard); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "are the same run (run id A") {
				t.Errorf("k=%d: A%d as both sides of its pair: %v", k, i+1, err)
			}
			// B<i+1> copied and renamed, given as the new side of another pair (or, with one
			// pair, as its base: a build is then compared with itself).
			e, err := evidence.Read(new[i])
			if err != nil {
				t.Fatal(err)
			}
			e.RunID = "renamed"
			cp := filepath.Join(t.TempDir(), "renamed")
			if err := evidence.WriteJSON(filepath.Join(cp, "evidence.json"), e); err != nil {
				t.Fatal(err)
			}
			b2, n3 := base, append([]string{}, new...)
			if k == 1 {
				b2 = []string{cp}
			} else {
				n3[(i+1)%k] = cp
			}
			if err := Paired(b2, n3, Options{}, io.Discard); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "are the same run under two ids") {
				t.Errorf("k=%d: a renamed copy of B%d given again: %v", k, i+1, err)
			}
		}
	}
}
