package metrics

import (
	"errors"
	"fmt"
)

// CostModel weighs the edit operations of a word alignment. Different tools weigh them
// differently, and the weights change which of several minimal alignments is chosen, so the
// S/D/I split (not only the total) depends on the model.
type CostModel struct {
	Name                             string
	Correct, Sub, Ins, Del           int
	preferSubOverDel, preferInsFirst bool
}

// UnitCosts is jiwer's model: every edit costs 1 (the default for gates).
func UnitCosts() CostModel {
	return CostModel{Name: "unit", Correct: 0, Sub: 1, Ins: 1, Del: 1, preferSubOverDel: true}
}

// SCLITECosts is NIST sclite's model: correct 0, insertion 3, deletion 3, substitution 4.
func SCLITECosts() CostModel {
	return CostModel{Name: "sclite", Correct: 0, Sub: 4, Ins: 3, Del: 3, preferSubOverDel: true}
}

// Counts are the outcome of aligning hypothesis words to reference words.
type Counts struct {
	Hits, Subs, Dels, Ins int
}

// RefWords is the number of reference words: hits + substitutions + deletions.
func (c Counts) RefWords() int { return c.Hits + c.Subs + c.Dels }

// Errors is substitutions + deletions + insertions.
func (c Counts) Errors() int { return c.Subs + c.Dels + c.Ins }

// Add sums two counts (corpus totals are sums, never averages of per-utterance rates).
func (c Counts) Add(o Counts) Counts {
	return Counts{c.Hits + o.Hits, c.Subs + o.Subs, c.Dels + o.Dels, c.Ins + o.Ins}
}

// ErrEmptyReference is returned for an error rate over zero reference units with at least one
// insertion: the rate is undefined, and a gate must not read it as a pass.
var ErrEmptyReference = errors.New("error rate undefined: the reference is empty but the hypothesis is not")

// WER is (S+D+I)/N. Empty-reference rule: N = 0 with no errors is 0 (both sides empty); N = 0
// with insertions is an error, never +Inf or 0.
func (c Counts) WER() (float64, error) { return rate(c.Errors(), c.RefWords()) }

func rate(errs, n int) (float64, error) {
	if n == 0 {
		if errs == 0 {
			return 0, nil
		}
		return 0, fmt.Errorf("%d errors over 0 reference units: %w", errs, ErrEmptyReference)
	}
	return float64(errs) / float64(n), nil
}

// op codes of the backtrace.
const (
	opHit = iota
	opSub
	opDel
	opIns
)

// AlignWords aligns hyp to ref under the cost model and counts each operation on one minimal
// path. agnivade/levenshtein gives only a distance over runes; the S/D/I split over words
// needs the DP table and a backtrace, so that part is written here.
func AlignWords(ref, hyp []string, m CostModel) Counts {
	n, k := len(ref), len(hyp)
	cost := make([]int, (n+1)*(k+1))
	at := func(i, j int) *int { return &cost[i*(k+1)+j] }
	for i := 1; i <= n; i++ {
		*at(i, 0) = i * m.Del
	}
	for j := 1; j <= k; j++ {
		*at(0, j) = j * m.Ins
	}
	for i := 1; i <= n; i++ {
		for j := 1; j <= k; j++ {
			diag := *at(i-1, j-1) + m.Sub
			if ref[i-1] == hyp[j-1] {
				diag = *at(i-1, j-1) + m.Correct
			}
			*at(i, j) = min(diag, *at(i-1, j)+m.Del, *at(i, j-1)+m.Ins)
		}
	}
	var c Counts
	for i, j := n, k; i > 0 || j > 0; {
		switch op := m.step(ref, hyp, i, j, *at(i, j), at); op {
		case opHit:
			c.Hits++
			i, j = i-1, j-1
		case opSub:
			c.Subs++
			i, j = i-1, j-1
		case opDel:
			c.Dels++
			i--
		default:
			c.Ins++
			j--
		}
	}
	return c
}

// step picks the backtrace move at (i, j). Among equal-cost moves the diagonal wins, then
// deletion, then insertion: the order sclite uses, which the parity test pins.
func (m CostModel) step(ref, hyp []string, i, j, here int, at func(int, int) *int) int {
	if i > 0 && j > 0 {
		if ref[i-1] == hyp[j-1] && *at(i-1, j-1)+m.Correct == here {
			return opHit
		}
		if ref[i-1] != hyp[j-1] && *at(i-1, j-1)+m.Sub == here {
			return opSub
		}
	}
	if m.preferInsFirst && j > 0 && *at(i, j-1)+m.Ins == here {
		return opIns
	}
	if i > 0 && *at(i-1, j)+m.Del == here {
		return opDel
	}
	return opIns
}
