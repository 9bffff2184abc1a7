package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/internal/runfixture"
)

// abDir writes k pairs as make compare-ab leaves them (DIR/A<i>, DIR/B<i>): pair i runs under its
// own load (a factor up to 3.4 between pairs, as this machine measured), the new build's Task is
// factor × the base's up to 1% noise, built with newTags.
func abDir(t *testing.T, factor float64, newTags string, k int) string {
	t.Helper()
	dir := t.TempDir()
	loads := []float64{1, 3.4, 1.7, 2.6, 1.2, 3.0}
	noise := []float64{1.004, 0.993, 1.008, 0.997, 1.002, 0.995}
	// The runs take turns as make compare-ab runs them: A1 B1, B2 A2, …, ten minutes each.
	at := func(side, i int) (time.Time, time.Time) {
		turn := 2*i + side
		if i%2 == 1 {
			turn = 2*i + 1 - side
		}
		start := time.Date(2026, 12, 3, 18, 0, 0, 0, time.UTC).Add(time.Duration(turn) * 10 * time.Minute)
		return start, start.Add(9 * time.Minute)
	}
	for i := range k {
		aStart, aEnd := at(0, i)
		bStart, bEnd := at(1, i)
		a := runfixture.WriteBuildAt(t, fmt.Sprintf("A%d", i+1), "none", aStart, aEnd, runfixture.ASRRow("whisper-tiny-en", runfixture.Golds(), 1000*loads[i]))
		b := runfixture.WriteBuildAt(t, fmt.Sprintf("B%d", i+1), newTags, bStart, bEnd, runfixture.ASRRow("whisper-tiny-en", runfixture.Golds(), 1000*loads[i]*factor*noise[i]))
		for side, src := range map[string]string{"A": a, "B": b} {
			if err := os.Rename(src, filepath.Join(dir, side+string(rune('1'+i)))); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// TestComparePairedDecidesThroughTheDrift: with the load moving the Task time by a factor 3.4
// between pairs (every side's spread far past the 5% cap, so separate runs are white), the pairs
// decide: a 20% slower build is REGRESSION (exit 1), the same build "no regression found" (exit 0),
// each with the verdict words and exit statuses of a two-run comparison.
func TestComparePairedDecidesThroughTheDrift(t *testing.T) {
	slow := abDir(t, 1.2, "qual_slowdown", 4)
	code, out, _ := qualRun(t, "compare", "--paired", slow)
	if code != exitFailed || !strings.Contains(out, "Verdict: **REGRESSION") || !strings.Contains(out, "| 4/4 |") || !strings.Contains(out, "| red |") ||
		!strings.Contains(out, "pairs 1: 1000 → 1205 ms (×1.205), 2: 3400 → 4051 ms (×1.192)") {
		t.Errorf("20%% slower over 4 pairs: exit %d\n%s", code, out)
	}
	same := abDir(t, 1, "none", 4)
	out2 := t.TempDir()
	code, out, _ = qualRun(t, "compare", "--paired", "-o", out2, same)
	if code != exitOK || !strings.Contains(out, "Verdict: **no regression found**") || !strings.Contains(out, "Paired: 4 pairs") {
		t.Errorf("the same build over 4 pairs: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(out2, "comparison.json")); err != nil {
		t.Errorf("-o: %v", err)
	}
	lists := []string{filepath.Join(same, "A1") + "," + filepath.Join(same, "A2"), filepath.Join(same, "B1") + "," + filepath.Join(same, "B2")}
	if code, out, _ = qualRun(t, "compare", "--paired", lists[0], lists[1]); code != exitOK {
		t.Errorf("two comma lists of 2 pairs: exit %d\n%s", code, out)
	}
	one := abDir(t, 1.2, "qual_slowdown", 1)
	if code, out, _ = qualRun(t, "compare", "--paired", one); code != exitUndecided || !strings.Contains(out, "INCONCLUSIVE (0 of 1 timed rows decided)") ||
		!strings.Contains(out, "none (no interval (one pair))") {
		t.Errorf("one pair has no interval: exit %d\n%s", code, out)
	}
}

// TestComparePairedRefusesWhatAreNotPairs: a side mixing builds, a pair lacking a member, a
// lone list or --noise-floor are usage errors (exit 2), before any verdict.
func TestComparePairedRefusesWhatAreNotPairs(t *testing.T) {
	mixed := abDir(t, 1.2, "qual_slowdown", 2)
	if err := os.RemoveAll(filepath.Join(mixed, "B2")); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := qualRun(t, "compare", "--paired", mixed); code != exitUsage || !strings.Contains(errOut, "pair 2 lacks") {
		t.Errorf("B2 missing: exit %d %s", code, errOut)
	}
	other := abDir(t, 1.2, "qual_slowdown", 2)
	a1, b1, b2 := filepath.Join(other, "A1"), filepath.Join(other, "B1"), filepath.Join(other, "B2")
	if code, _, errOut := qualRun(t, "compare", "--paired", b1+","+a1, b2+","+b1); code != exitUsage || !strings.Contains(errOut, "different builds") {
		t.Errorf("a base side of two builds: exit %d %s", code, errOut)
	}
	if code, _, errOut := qualRun(t, "compare", "--paired", a1+","+b1, b2); code != exitUsage || !strings.Contains(errOut, "as many base runs as new runs") {
		t.Errorf("2 base runs against 1: exit %d %s", code, errOut)
	}
	if code, _, _ := qualRun(t, "compare", "--paired", "--noise-floor", a1+","+b1, other); code != exitUsage {
		t.Errorf("--noise-floor with --paired: exit %d", code)
	}
}
