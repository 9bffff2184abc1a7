package accuracy

import (
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"math"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/stats/schema"
)

func TestGate(t *testing.T) {
	asr := func(bound float64, hyps ...string) *evidence.GateResult {
		g := &evidence.GateResult{Figures: map[string]float64{"gold_wer": 0}, Thresholds: map[string]float64{"ned": 0, "gold_wer": bound}}
		for i, h := range hyps {
			g.Items = append(g.Items, evidence.GateItem{ID: string(rune('a' + i)), Gold: "one two three four five", Output: h})
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
		want  schema.Verdict
	}{{0.35, hyps, 0.04, schema.Pass}, {0.04, hyps, 0.04, schema.Inconclusive}, {0.1, allWrong, 0.2, schema.Fail}} {
		got, err := Gate(asr(c.bound, c.hyps...), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Figure != "gold_wer" || got[0].Test.Verdict != evidence.Outcome(c.want) {
			t.Fatalf("bound %v: %+v", c.bound, got)
		}
		a := got[0]
		if a.Value != c.value || !(a.Lower <= a.Value && a.Value <= a.Upper) || a.Lower < 0 {
			t.Errorf("bound %v: WER %v with bootstrap [%v, %v]", c.bound, a.Value, a.Lower, a.Upper)
		}
	}
	img := &evidence.GateResult{Figures: map[string]float64{"psnr_min_db": 1e308}, Thresholds: map[string]float64{"ssim_min": 0.9999},
		Items: []evidence.GateItem{{ID: "p1", Distance: 1}, {ID: "p2", Distance: 1}, {ID: "p3", Distance: 0.99999}}}
	got, err := Gate(img, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Figure != "ssim_mean" || got[0].Side != "≥" || got[0].Test.Verdict != evidence.OutcomePass || got[0].Lower < 0.9999 {
		t.Errorf("images at SSIM ≈ 1 against 0.9999: %+v", got)
	}
	none, err := Gate(&evidence.GateResult{Figures: map[string]float64{"other": 1}}, nil)
	if err != nil || len(none) != 0 {
		t.Errorf("a gate without a corpus figure: %v %v", none, err)
	}
}

// TestClusterBootstrapByHand: clips a and b are one speaker (0 errors in 10 gold words), clip c
// another (5 errors in 5). Resampling the 2 speakers gives WER 0 (¼), 1/3 (½) or 1 (¼), so the
// 5th and 95th percentiles are exactly 0 and 1. Resampling the 3 clips alone gives k/3 for k
// draws of c, and P(k = 3) = 1/27 < 5%, so the 95th percentile is 2/3: the groups matter.
func TestClusterBootstrapByHand(t *testing.T) {
	g := &evidence.GateResult{Figures: map[string]float64{"gold_wer": 0}, Thresholds: map[string]float64{"gold_wer": 0.5},
		Items: []evidence.GateItem{{ID: "a", Gold: "one two three four five", Output: "one two three four five"},
			{ID: "b", Gold: "one two three four five", Output: "one two three four five"},
			{ID: "c", Gold: "one two three four five", Output: "x x x x x"}}}
	grouped, err := Gate(g, map[string]string{"a": "spk1", "b": "spk1", "c": "spk2", "elsewhere": "spk3"})
	if err != nil {
		t.Fatal(err)
	}
	a := grouped[0]
	if a.Value != 1.0/3 || a.Lower != 0 || a.Upper != 1 || a.Test.Clusters != 2 || a.Test.Units != 3 || a.Test.Verdict != evidence.OutcomeInconclusive {
		t.Errorf("by speaker: value %v [%v, %v], %d clusters of %d units, %s", a.Value, a.Lower, a.Upper, a.Test.Clusters, a.Test.Units, a.Test.Verdict)
	}
	if len(a.Groups) != 3 || a.Groups["elsewhere"] != "" || !strings.HasPrefix(a.ClusterBy, "speaker/recording groups the dataset declares: 2 clusters over 3 inputs") {
		t.Errorf("groups %v, cluster_by %q", a.Groups, a.ClusterBy)
	}
	alone, err := Gate(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := alone[0]
	if math.Abs(b.Upper-2.0/3) > 1e-12 || b.Lower != 0 || b.Test.Clusters != 3 || b.Groups != nil ||
		!strings.HasPrefix(b.ClusterBy, "inputs: the dataset declares no speaker or recording groups") {
		t.Errorf("by clip: [%v, %v], %d clusters, groups %v, %q", b.Lower, b.Upper, b.Test.Clusters, b.Groups, b.ClusterBy)
	}
}
