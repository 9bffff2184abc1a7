package evidence

import (
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/stats"
	"github.com/trtmc-qual/trtmc-qual/native/family"
)

func TestGateAccuracy(t *testing.T) {
	asr := func(bound float64, hyps ...string) *family.GateResult {
		g := &family.GateResult{Figures: map[string]float64{"gold_wer": 0}, Thresholds: map[string]float64{"ned": 0, "gold_wer": bound}}
		for i, h := range hyps {
			g.Items = append(g.Items, family.GateItem{ID: string(rune('a' + i)), Gold: "one two three four five", Output: h})
		}
		return g
	}
	// 10 clips, one word wrong in 2 of them: WER 2/50 = 0.04.
	hyps := []string{"one two three four five", "one two three four five", "one two three four five", "one two tree four five",
		"one two three four five", "one two three four five", "one two three four five", "one two three four five",
		"one two three four fife", "one two three four five"}
	allWrong := make([]string, len(hyps))
	for i := range allWrong {
		allWrong[i] = "one two three four"
	}
	for _, c := range []struct {
		bound float64
		hyps  []string
		value float64
		want  stats.Verdict
	}{{0.35, hyps, 0.04, stats.Pass}, {0.04, hyps, 0.04, stats.Inconclusive}, {0.1, allWrong, 0.2, stats.Fail}} {
		got, err := GateAccuracy(asr(c.bound, c.hyps...))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Figure != "gold_wer" || got[0].Test.Verdict != c.want {
			t.Fatalf("bound %v: %+v", c.bound, got)
		}
		a := got[0]
		if a.Value != c.value || !(a.Lower <= a.Value && a.Value <= a.Upper) || a.Lower < 0 {
			t.Errorf("bound %v: WER %v with bootstrap [%v, %v]", c.bound, a.Value, a.Lower, a.Upper)
		}
	}
	img := &family.GateResult{Figures: map[string]float64{"psnr_min_db": 1e308}, Thresholds: map[string]float64{"ssim_min": 0.9999},
		Items: []family.GateItem{{ID: "p1", Distance: 1}, {ID: "p2", Distance: 1}, {ID: "p3", Distance: 0.99999}}}
	got, err := GateAccuracy(img)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Figure != "ssim_mean" || got[0].Side != "≥" || got[0].Test.Verdict != stats.Pass || got[0].Lower < 0.9999 {
		t.Errorf("images at SSIM ≈ 1 against 0.9999: %+v", got)
	}
	none, err := GateAccuracy(&family.GateResult{Figures: map[string]float64{"other": 1}})
	if err != nil || len(none) != 0 {
		t.Errorf("a gate without a corpus figure: %v %v", none, err)
	}
}
