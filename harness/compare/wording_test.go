package compare

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/stats"
)

// TestDecidedReadsAlikeInEveryOutput: over 400 random comparisons of separate runs and 200 of
// interleaved pairs, every output words a row as the verdict counts it: the Markdown's Why line
// says "decided:" exactly for the rows the verdict counts decided and "undecided:" for the others,
// comparison.json carries the same flag and words, the verdict's "k of n decided" is their count,
// and no light's own words claim to decide anything ("decides neither" read beside a yellow row
// the verdict counted decided). Yellow rows clear of the red bound and straddling it both occur.
func TestDecidedReadsAlikeInEveryOutput(t *testing.T) {
	rng := rand.New(rand.NewPCG(44, 4))
	yellow := map[bool]int{}
	draw := func(n int, slow, cv float64) ([]float64, []float64) {
		b, m := make([]float64, n), make([]float64, n)
		for i := range b {
			load := math.Exp(0.3 * rng.NormFloat64())
			b[i] = 1000 * load * math.Exp(cv*rng.NormFloat64())
			m[i] = 1000 * load * (1 + slow) * math.Exp(cv*rng.NormFloat64())
		}
		return b, m
	}
	check := func(c Comparison) {
		t.Helper()
		c.Verdict = overall(c)
		md := compareMarkdown(c)
		data, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var back Comparison
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		decided := 0
		for i, r := range c.Rows {
			p := r.Performance
			want := p != nil && (p.Light == stats.Red || (p.Light != stats.White && p.CI != nil && p.CI.Lower > p.RedBelow))
			if p != nil && p.Light == stats.Yellow {
				yellow[want]++
			}
			if want {
				decided++
			}
			line := whyLine(md, r)
			words := "undecided: "
			if want {
				words = "decided: "
			}
			if r.Decided != want || back.Rows[i].Decided != want || back.Rows[i].Decision != r.Decision ||
				!strings.HasPrefix(r.Decision, words) || !strings.Contains(line, " — "+r.Decision) || strings.Count(line, "decided: ") != 1 {
				t.Fatalf("%s %+v: counted decided %v; row %v %q, json %v %q, Why line %q", p.Light, p.CI, want, r.Decided, r.Decision, back.Rows[i].Decided, back.Rows[i].Decision, line)
			}
			if p != nil && strings.Contains(p.Why, "decide") {
				t.Fatalf("the light's own words decide: %q", p.Why)
			}
		}
		if c.Decided != decided || !strings.Contains(md, "Verdict: **"+c.Verdict+"**") ||
			(strings.HasPrefix(c.Verdict, "INCONCLUSIVE") && !strings.Contains(c.Verdict, "("+strconv.Itoa(decided)+" of ")) {
			t.Fatalf("verdict %q counts %d decided, rows say %d", c.Verdict, c.Decided, decided)
		}
	}
	for range 400 {
		b, m := draw(2+rng.IntN(7), -0.1+0.4*rng.Float64(), 0.04*rng.Float64())
		for i := range b { // separate runs see no common load
			b[i] /= math.Exp(0.3 * rng.NormFloat64())
		}
		check(compareRuns(evidenceOf(t, b), evidenceOf(t, m)))
	}
	for range 200 {
		b, m := draw(2+rng.IntN(6), -0.1+0.4*rng.Float64(), 0.05*rng.Float64())
		var bases, news []evidence.Evidence
		for i := range b {
			bases, news = append(bases, evidenceOf(t, []float64{b[i]})), append(news, evidenceOf(t, []float64{m[i]}))
		}
		check(comparePairs(bases, news))
	}
	if yellow[true] == 0 || yellow[false] == 0 {
		t.Fatalf("the draws must hold yellow rows clear of the red bound (%d) and reaching below it (%d)", yellow[true], yellow[false])
	}
}

// whyLine is the Markdown's Why line of row r.
func whyLine(md string, r RowComparison) string {
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "- **"+r.Stage+"/"+r.Profile+"**: ") {
			return line
		}
	}
	return ""
}
