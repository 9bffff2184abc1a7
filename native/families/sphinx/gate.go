package sphinx

import (
	"context"
	"fmt"

	"github.com/trtmc-qual/trtmc-qual/harness/metrics"
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/family/asrgate"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// Gate is the family's correctness contract, like TRTMC's "native vs reference backend": on
// every clip of the pinned selection the native transcript must equal the upstream
// pocketsphinx_batch transcript after the family normalizer (NED ≤ the "ned" bound, 0 for every
// reference profile); WER and CER to the human gold text are reported and bounded by
// "gold_wer", which records the recognizer's quality rather than redefining it.
func (f Family) Gate(ctx context.Context, b *bundle.Bundle, m manifest.Manifest, tc manifest.Testcase, env family.GateEnv) (family.GateResult, error) {
	res := family.GateResult{Family: Name, Profile: m.Name, Testcase: tc.Name, BundleSHA: b.SHA256, Figures: map[string]float64{}}
	in, err := asrgate.Read(m, tc, env, "ned", "gold_wer")
	if err != nil {
		return res, err
	}
	nedMax, goldMax := in.Limits["ned"], in.Limits["gold_wer"]
	res.Thresholds = in.Thresholds.Overrides
	mdl, err := f.Load(b, family.LoadOptions{Lanes: 1})
	if err != nil {
		return res, err
	}
	defer mdl.Close()
	tr, err := task.Lookup[task.Transcriber](mdl, m.Name, task.SpeechTranscription)
	if err != nil {
		return res, err
	}
	texts, seconds, err := asrgate.Transcribe(ctx, tr, in.Clips)
	if err != nil {
		return res, err
	}
	var vsUpstream, vsGold []metrics.Pair
	for i, c := range in.Clips {
		vsUpstream = append(vsUpstream, metrics.Pair{ID: c.ID, Expected: in.Upstream[i], Hyp: texts[i]})
		vsGold = append(vsGold, metrics.Pair{ID: c.ID, Expected: c.Gold, Hyp: texts[i]})
	}
	upstreamScore := metrics.Score(vsUpstream, metrics.TRTMCFamily(), metrics.UnitCosts())
	goldScore := metrics.Score(vsGold, metrics.GoldWER(), metrics.UnitCosts())
	for i, u := range upstreamScore.Utterances {
		item := family.GateItem{ID: u.ID, Output: vsUpstream[i].Hyp, Expected: vsUpstream[i].Expected, Gold: vsGold[i].Expected, Distance: u.NED, Passed: u.NED <= nedMax}
		if !item.Passed {
			res.Failures = append(res.Failures, fmt.Sprintf("clip %s: NED %.4f > %v: native %q, upstream %q", u.ID, u.NED, nedMax, item.Output, item.Expected))
		}
		res.Items = append(res.Items, item)
	}
	werUpstream, _ := upstreamScore.WER()
	res.Figures = map[string]float64{"clips": float64(len(in.Clips)), "audio_seconds": seconds, "ned_max": upstreamScore.MaxNED(),
		"wer_vs_upstream": werUpstream}
	if !anyGold(in.Clips) {
		// A TRTMC testcase's own clip (test_input_audio) has no gold text: the gate is the
		// upstream comparison alone, and no gold WER is claimed.
		res.Passed = len(res.Failures) == 0
		return res, nil
	}
	goldWER, werErr := goldScore.WER()
	goldCER, _ := goldScore.CER()
	res.Figures["gold_wer"], res.Figures["gold_cer"] = goldWER, goldCER
	if werErr != nil || goldWER > goldMax {
		res.Failures = append(res.Failures, fmt.Sprintf("gold WER %.4f above the family bound %v (err %v)", goldWER, goldMax, werErr))
	}
	res.Passed = len(res.Failures) == 0
	return res, nil
}

// anyGold: some clip carries a human gold text.
func anyGold(clips []dataset.Materialized) bool {
	for _, c := range clips {
		if c.Gold != "" {
			return true
		}
	}
	return false
}
