package metrics

import (
	"fmt"
	"strings"

	"github.com/agnivade/levenshtein"
)

// Pair is one utterance as raw text: the hypothesis and the transcript it is scored against
// (jiwer's "reference": a gold text or an upstream transcript, so named Expected here, where
// "reference" would also name the reference target).
type Pair struct {
	ID       string
	Expected string
	Hyp      string
}

// UtteranceScore is one utterance's alignment and character distance after normalization.
type UtteranceScore struct {
	ID            string
	Words         Counts
	CharDistance  int // rune edit distance between the normalized texts
	RefChars      int
	NED           float64
	RefNormalized string
	HypNormalized string
}

// CorpusScore sums utterance counts. Rates are corpus-level: total errors over total reference
// units, never the mean of per-utterance rates.
type CorpusScore struct {
	Normalizer   string
	CostModel    string
	Words        Counts
	CharDistance int
	RefChars     int
	Utterances   []UtteranceScore
}

// WER is corpus (S+D+I)/N.
func (c CorpusScore) WER() (float64, error) { return c.Words.WER() }

// CER is corpus rune edit distance over reference runes (spaces between normalized words count,
// as in jiwer).
func (c CorpusScore) CER() (float64, error) { return rate(c.CharDistance, c.RefChars) }

// MaxNED is the largest per-utterance NED: a gate of "NED = 0" means every utterance matches.
func (c CorpusScore) MaxNED() float64 {
	worst := 0.0
	for _, u := range c.Utterances {
		worst = max(worst, u.NED)
	}
	return worst
}

// Score aligns every pair after normalizing both sides with norm.
func Score(pairs []Pair, norm Normalizer, model CostModel) CorpusScore {
	out := CorpusScore{Normalizer: norm.Name, CostModel: model.Name}
	for _, p := range pairs {
		u := ScoreUtterance(p, norm, model)
		out.Words = out.Words.Add(u.Words)
		out.CharDistance += u.CharDistance
		out.RefChars += u.RefChars
		out.Utterances = append(out.Utterances, u)
	}
	return out
}

// ScoreUtterance aligns one pair after normalizing both sides with norm.
func ScoreUtterance(p Pair, norm Normalizer, model CostModel) UtteranceScore {
	ref, hyp := norm.Tokens(p.Expected), norm.Tokens(p.Hyp)
	u := UtteranceScore{ID: p.ID, Words: AlignWords(ref, hyp, model)}
	u.RefNormalized, u.HypNormalized = norm.Text(p.Expected), norm.Text(p.Hyp)
	u.CharDistance = levenshtein.ComputeDistance(u.RefNormalized, u.HypNormalized)
	u.RefChars = len([]rune(u.RefNormalized))
	u.NED = NED(u.RefNormalized, u.HypNormalized)
	return u
}

// NED is the rune edit distance divided by the longer string's rune length, in [0, 1]; two
// empty strings give 0.
func NED(a, b string) float64 {
	longer := max(len([]rune(a)), len([]rune(b)))
	if longer == 0 {
		return 0
	}
	return float64(levenshtein.ComputeDistance(a, b)) / float64(longer)
}

// String prints corpus figures for logs and reports.
func (c CorpusScore) String() string {
	wer, werErr := c.WER()
	cer, cerErr := c.CER()
	return fmt.Sprintf("utts=%d N=%d H=%d S=%d D=%d I=%d WER=%s CER=%s maxNED=%.4f (%s, %s)",
		len(c.Utterances), c.Words.RefWords(), c.Words.Hits, c.Words.Subs, c.Words.Dels, c.Words.Ins,
		fmtRate(wer, werErr), fmtRate(cer, cerErr), c.MaxNED(), c.Normalizer, c.CostModel)
}

func fmtRate(v float64, err error) string {
	if err != nil {
		return "undefined"
	}
	return fmt.Sprintf("%.4f", v)
}

// GoldCorpusWER is the corpus WER of hypotheses against their human gold text (gold-wer-v1
// normalization, unit costs) and the number of empty hypotheses. The suite and the offline
// verifier both call it, so the figure in the evidence and its recomputation cannot drift.
func GoldCorpusWER(pairs []Pair) (float64, int, error) {
	empty := 0
	for _, p := range pairs {
		if strings.TrimSpace(p.Hyp) == "" {
			empty++
		}
	}
	wer, err := Score(pairs, GoldWER(), UnitCosts()).WER()
	return wer, empty, err
}
