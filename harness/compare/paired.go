package compare

import (
	"crypto/sha256"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
	"github.com/trtmc-qual/trtmc-qual/harness/stats"
	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
)

// pairedRule is how a paired comparison (`qual compare --paired`, `make compare-ab`) reads its runs.
const pairedRule = "k pairs of runs (A_i, B_i), each pair run back to back with the order alternating from pair to pair (make compare-ab); " +
	"a run's value is the geometric mean of its per-run Task p50 (one AIPerf run each in make compare-ab); accuracy and changed outputs " +
	"are compared within every pair and the first pair that fails (else pair 1) is shown; a row must be in every run of a side"

// PairDirs lists the pairs under dir as `make compare-ab` writes them: A1…Ak and B1…Bk, the
// same k on both sides.
func PairDirs(dir string) (base, new []string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: paired runs: %w", ErrUsage, err)
	}
	sides := map[byte]map[int]string{'A': {}, 'B': {}}
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || len(name) < 2 || sides[name[0]] == nil {
			continue
		}
		if i, err := strconv.Atoi(name[1:]); err == nil && i >= 1 {
			sides[name[0]][i] = filepath.Join(dir, name)
		}
	}
	k := len(sides['A'])
	for i := 1; i <= k; i++ {
		a, okA := sides['A'][i]
		b, okB := sides['B'][i]
		if !okA || !okB {
			return nil, nil, fmt.Errorf("%w: %s: pair %d lacks A%d or B%d (want A1…Ak and B1…Bk)", ErrUsage, dir, i, i, i)
		}
		base, new = append(base, a), append(new, b)
	}
	if k == 0 || len(sides['B']) != k {
		return nil, nil, fmt.Errorf("%w: %s holds %d A and %d B runs: want A1…Ak and B1…Bk, k ≥ 1", ErrUsage, dir, k, len(sides['B']))
	}
	return base, new, nil
}

// Paired compares k pairs of runs (base[i], new[i]) run back to back: per row, the paired speedup
// over the pairs (stats.ComparePaired) decides, with the same verdicts and errors as Dirs.
func Paired(baseDirs, newDirs []string, o Options, w io.Writer) error {
	if len(baseDirs) != len(newDirs) || len(baseDirs) == 0 {
		return fmt.Errorf("%w: --paired needs as many base runs as new runs (%d vs %d)", ErrUsage, len(baseDirs), len(newDirs))
	}
	bases, err := readSide("base", baseDirs)
	if err != nil {
		return err
	}
	news, err := readSide("new", newDirs)
	if err != nil {
		return err
	}
	if err := distinctRuns(append(append([]string{}, baseDirs...), newDirs...), append(append([]evidence.Evidence{}, bases...), news...)); err != nil {
		return err
	}
	if err := tookTurns(baseDirs, newDirs, bases, news); err != nil {
		return err
	}
	c := comparePairs(bases, news)
	c.AllowMissing = o.AllowMissing
	if len(c.Rows) == 0 {
		return fmt.Errorf("the paired runs have %w: nothing to compare", ErrNothingInCommon)
	}
	c.Verdict = overall(c)
	md := compareMarkdown(c)
	fmt.Fprint(w, md)
	if o.Out != "" {
		if err := evidence.WriteJSON(filepath.Join(o.Out, "comparison.json"), c); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(o.Out, "comparison.md"), []byte(md), 0o644); err != nil {
			return fmt.Errorf("write comparison.md: %w", err)
		}
	}
	_, err = outcome(c)
	return err
}

// distinctRuns refuses a run given twice, under any name: the same run id, or the same evidence
// under another id (a copy whose id was changed: everything it records but its name is one
// run's). A run compared with itself measures nothing, and a pair whose two members are one run
// reads as a build equal to itself.
func distinctRuns(dirs []string, runs []evidence.Evidence) error {
	byID, byDigest := map[string]string{}, map[string]string{}
	for i, dir := range dirs {
		anon := runs[i]
		anon.RunID = ""
		data, err := evidence.EncodeJSON(anon)
		if err != nil {
			return err
		}
		digest := fmt.Sprintf("%x", sha256.Sum256(data))
		if first, dup := byID[runs[i].RunID]; dup {
			return fmt.Errorf("%w: %s and %s are the same run (run id %s): a pair compares two runs, each run once", ErrUsage, first, dir, runs[i].RunID)
		}
		if first, dup := byDigest[digest]; dup {
			return fmt.Errorf("%w: %s and %s are the same run under two ids (their evidence is one but for its run id, sha256 %s): a pair compares two runs, each run once", ErrUsage, first, dir, digest[:12])
		}
		byID[runs[i].RunID], byDigest[digest] = dir, dir
	}
	return nil
}

// turnOrder is the order make compare-ab runs k pairs in: A1 B1, B2 A2, A3 B3, … (a constant
// order effect cancels over two pairs, a linear drift within each two), as indices into
// base (side 0) and new (side 1).
func turnOrder(k int) [][2]int {
	var out [][2]int
	for i := range k {
		if i%2 == 0 {
			out = append(out, [2]int{0, i}, [2]int{1, i})
		} else {
			out = append(out, [2]int{1, i}, [2]int{0, i})
		}
	}
	return out
}

// timeOfDay is how a run's recorded time is named, to the millisecond (two runs back to back
// are seconds apart).
const timeOfDay = "2006-01-02 15:04:05.000 UTC"

// tookTurns checks, by the start and end times each run recorded, that the runs ran one after
// another in turnOrder: the interval over pairs cancels drift only if the pairs alternated.
func tookTurns(baseDirs, newDirs []string, bases, news []evidence.Evidence) error {
	dirs, runs := [2][]string{baseDirs, newDirs}, [2][]evidence.Evidence{bases, news}
	names := [2]string{"A", "B"}
	var prev string
	var prevEnd time.Time
	for _, t := range turnOrder(len(bases)) {
		side, i := t[0], t[1]
		name := fmt.Sprintf("%s%d (%s)", names[side], i+1, dirs[side][i])
		start, end, ok := evidence.RunWindow(runs[side][i])
		if !ok {
			return fmt.Errorf("%w: %s records no start and end time: whether the pairs took turns (A1 B1, B2 A2, …, as make compare-ab runs them) cannot be checked", ErrUsage, name)
		}
		if prev != "" && start.Before(prevEnd) {
			return fmt.Errorf("%w: the runs did not take turns as make compare-ab runs them (A1 B1, B2 A2, A3 B3, …): %s started at %s, before %s ended at %s",
				ErrUsage, name, start.Format(timeOfDay), prev, prevEnd.Format(timeOfDay))
		}
		prev, prevEnd = name, end
	}
	return nil
}

// readSide reads every run of one side; they must be one build, or the side measures a change.
func readSide(side string, dirs []string) ([]evidence.Evidence, error) {
	var out []evidence.Evidence
	for _, dir := range dirs {
		if err := runfile.CheckTree(dir); err != nil {
			return nil, err
		}
		e, err := evidence.Read(dir)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", side, dir, err)
		}
		if len(out) > 0 && buildOf(e) != buildOf(out[0]) {
			return nil, fmt.Errorf("%w: %s runs %s and %s are different builds (%s vs %s)", ErrUsage, side, out[0].RunID, e.RunID, buildOf(out[0]).Tags, buildOf(e).Tags)
		}
		out = append(out, e)
	}
	return out, nil
}

// comparePairs compares every row present in every run of both sides, in stage then profile order.
func comparePairs(bases, news []evidence.Evidence) Comparison {
	c := Comparison{Base: runIDs(bases), New: runIDs(news), BaseBuild: buildOf(bases[0]), NewBuild: buildOf(news[0]), Pairs: len(bases), Rules: map[string]string{
		"performance": "S compares " + perfWords + ": " + stats.PairedRule, "paired runs": pairedRule, "accuracy": stats.BootstrapRule, "detectable": detectableRule,
		"work": "white when dataset pins, request counts, concurrency, endpoint settings (image size, steps), the gate testcase or bundle settings differ within any pair",
	}}
	inBase, inNew := rowsInAll(bases), rowsInAll(news)
	c.OnlyInBase, c.OnlyInNew = keysNotIn(inBase, inNew), keysNotIn(inNew, inBase)
	var keys []rowKey
	for k := range inBase {
		if inNew[k] {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	for _, k := range keys {
		c.add(comparePairedRow(k, bases, news))
	}
	return c
}

func comparePairedRow(k rowKey, bases, news []evidence.Evidence) RowComparison {
	row := RowComparison{Stage: k.stage, Profile: k.profile, Figure: perfWords + ", one run of each side a pair"}
	var bVals, nVals []float64
	var errs []string
	untimedAll := true
	for i := range bases {
		b, n := rowsByKey(bases[i])[k], rowsByKey(news[i])[k]
		untimedAll = untimedAll && untimed(b) && untimed(n)
		for _, d := range workDiffers(b, n) {
			row.WorkDiffers = append(row.WorkDiffers, fmt.Sprintf("pair %d: %s", i+1, d))
		}
		bv, bErr := runValue(b)
		nv, nErr := runValue(n)
		if bErr != nil || nErr != nil {
			errs = append(errs, fmt.Sprintf("pair %d: %s", i+1, sideErrors(bErr, nErr)))
			continue
		}
		bVals, nVals = append(bVals, bv), append(nVals, nv)
		acc := compareAccuracy(b, n)
		if row.Accuracy == nil || (accuracyFailed(acc) && !accuracyFailed(row.Accuracy)) {
			row.Accuracy = acc
		}
		row.Changed = append(row.Changed, changedOutputs(b, n)...)
	}
	row.Untimed = untimedAll
	if len(errs) > 0 {
		row.PerfError = strings.Join(errs, "; ")
	} else if sp, err := stats.ComparePaired(bVals, nVals, strings.Join(row.WorkDiffers, "; ")); err != nil {
		row.PerfError = err.Error()
	} else {
		row.Performance = &sp
	}
	row.Detectable, row.DetectableWhy = detectable(row.Performance)
	row.Changed = uniqueChanges(row.Changed)
	return row
}

func accuracyFailed(a *Accuracy) bool {
	return a != nil && a.Verdict != nil && a.Verdict.Verdict == schema.Fail
}

// runValue is one run's value of a row: the geometric mean of its per-run Task p50 (the p50
// itself for a one-run row), so that a pair's ratio is a ratio of like figures.
func runValue(r evidence.Result) (float64, error) {
	runs, err := perRun(r)
	if err != nil {
		return 0, err
	}
	s := 0.0
	for _, v := range runs {
		if !(v > 0) {
			return 0, fmt.Errorf("%s is %v: a time must be positive", perfFigure, v)
		}
		s += math.Log(v)
	}
	return math.Exp(s / float64(len(runs))), nil
}

// rowsInAll is the set of rows present in every one of runs.
func rowsInAll(runs []evidence.Evidence) map[rowKey]bool {
	count := map[rowKey]int{}
	for _, e := range runs {
		for k := range rowsByKey(e) {
			count[k]++
		}
	}
	out := map[rowKey]bool{}
	for k, n := range count {
		if n == len(runs) {
			out[k] = true
		}
	}
	return out
}

func keysNotIn(a, b map[rowKey]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k.String())
		}
	}
	sort.Strings(out)
	return out
}

func runIDs(runs []evidence.Evidence) string {
	ids := make([]string, len(runs))
	for i, e := range runs {
		ids[i] = e.RunID
	}
	return strings.Join(ids, ",")
}

// uniqueChanges keeps one line per changed output (the pairs repeat the same change).
func uniqueChanges(in []ChangedOutput) []ChangedOutput {
	seen := map[ChangedOutput]bool{}
	out := []ChangedOutput{}
	for _, ch := range in {
		if !seen[ch] {
			seen[ch] = true
			out = append(out, ch)
		}
	}
	return out
}

// pairsCell lists each pair's Task p50s and ratio new/base, in the order the pairs ran.
func pairsCell(sp stats.Speedup) string {
	parts := make([]string, len(sp.Runs[0]))
	for i := range parts {
		b, n := sp.Runs[0][i], sp.Runs[1][i]
		parts[i] = fmt.Sprintf("%d: %.0f → %.0f ms (×%.3f)", i+1, b, n, n/b)
	}
	return "pairs " + strings.Join(parts, ", ")
}
