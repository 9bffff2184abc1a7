package whisper

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

// Gate is the family's correctness contract: on every clip of the pinned selection the native
// transcript must be byte-for-byte the transcript faster-whisper's own transcribe() gives
// standalone on the same files with the same settings (the committed upstream transcripts; "ned" bounds
// the word-level distance too, 0 for every profile). The claim holds on any x86-64 CPU
// because both sides run with the same pinned kernels, not the CPU's best ones: the bundle's
// kernel_env (pinnedKernelEnv: CTranslate2's GENERIC instruction set over oneDNN capped at
// SSE4.1) is the environment of the upstream transcription's process and of every worker, and a worker
// whose CTranslate2 reports another selection is refused. One upstream transcripts file per profile, made
// under those pins; the gate's settings record the pins and the CPU and instruction set
// CTranslate2 reported. Against the human gold text it bounds
// WER twice: "gold_wer" after gold-wer-v1 (lowercase, punctuation dropped except apostrophes:
// the normalizer the suite's meaning check and `qual verify` use), and "gold_wer_normalized"
// after Whisper's own EnglishTextNormalizer (whisper-normalizer package) on both sides, which
// folds "Mr."/"mister", "10"/"ten" and hyphenation; both record the model's quality.
func (f Family) Gate(ctx context.Context, b *bundle.Bundle, m manifest.Manifest, tc manifest.Testcase, env family.GateEnv) (family.GateResult, error) {
	res := family.GateResult{Family: Name, Profile: m.Name, Testcase: tc.Name, BundleSHA: b.SHA256, Figures: map[string]float64{}}
	in, err := asrgate.Read(m, tc, env, "ned", "gold_wer", "gold_wer_normalized")
	if err != nil {
		return res, err
	}
	res.Thresholds = in.Thresholds.Overrides
	native, seconds, kernels, err := f.transcribeClips(ctx, b, in.Clips)
	if err != nil {
		return res, err
	}
	return f.judge(res, in, native, seconds, kernels, env.WorkDir)
}

// judge scores the native transcripts of in's clips against the upstream and gold texts: the
// gate's decision apart from running the Task (a test judges one run's transcripts twice).
func (f Family) judge(res family.GateResult, in asrgate.Inputs, native []string, seconds float64, kernels map[string]string, workDir string) (family.GateResult, error) {
	limits := in.Limits
	res.Settings = kernels
	var vsUpstream, vsGold []metrics.Pair
	for i, c := range in.Clips {
		vsUpstream = append(vsUpstream, metrics.Pair{ID: c.ID, Expected: in.Upstream[i], Hyp: native[i]})
		vsGold = append(vsGold, metrics.Pair{ID: c.ID, Expected: c.Gold, Hyp: native[i]})
	}
	normGold, err := f.normalizedPairs(vsGold, workDir)
	if err != nil {
		return res, err
	}
	upstreamScore := metrics.Score(vsUpstream, metrics.Identity(), metrics.UnitCosts())
	goldScore := metrics.Score(vsGold, metrics.GoldWER(), metrics.UnitCosts())
	normScore := metrics.Score(normGold, metrics.Identity(), metrics.UnitCosts())
	for i, u := range upstreamScore.Utterances {
		raw, norm := goldScore.Utterances[i], normScore.Utterances[i]
		item := family.GateItem{ID: u.ID, Output: vsUpstream[i].Hyp, Expected: vsUpstream[i].Expected, Gold: vsGold[i].Expected, Distance: u.NED,
			Passed: u.NED <= limits["ned"] && vsUpstream[i].Hyp == vsUpstream[i].Expected,
			Detail: fmt.Sprintf("gold WER raw %.4f (%d/%d), normalized %.4f (%d/%d)", ratio(raw.Words.Errors(), raw.Words.RefWords()), raw.Words.Errors(), raw.Words.RefWords(), ratio(norm.Words.Errors(), norm.Words.RefWords()), norm.Words.Errors(), norm.Words.RefWords())}
		if !item.Passed {
			res.Failures = append(res.Failures, fmt.Sprintf("clip %s: native %q != upstream transcribe() %q", u.ID, item.Output, item.Expected))
		}
		res.Items = append(res.Items, item)
	}
	werUpstream, _ := upstreamScore.WER()
	goldWER, errRaw := goldScore.WER()
	goldCER, _ := goldScore.CER()
	normWER, errNorm := normScore.WER()
	res.Figures = map[string]float64{"clips": float64(len(in.Clips)), "audio_seconds": seconds, "ned_max": upstreamScore.MaxNED(),
		"wer_vs_upstream": werUpstream, "gold_wer": goldWER, "gold_cer": goldCER, "gold_wer_normalized": normWER}
	if errRaw != nil || goldWER > limits["gold_wer"] {
		res.Failures = append(res.Failures, fmt.Sprintf("gold WER %.4f above the family bound %v (err %v)", goldWER, limits["gold_wer"], errRaw))
	}
	if errNorm != nil || normWER > limits["gold_wer_normalized"] {
		res.Failures = append(res.Failures, fmt.Sprintf("normalized gold WER %.4f above the family bound %v (err %v)", normWER, limits["gold_wer_normalized"], errNorm))
	}
	res.Passed = len(res.Failures) == 0
	return res, nil
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// transcribeClips runs every clip through the public Task on one lane, as the native CLI does;
// it also returns the kernel pins and what CTranslate2 reported selecting in that worker.
func (f Family) transcribeClips(ctx context.Context, b *bundle.Bundle, clips []dataset.Materialized) ([]string, float64, map[string]string, error) {
	mdl, err := f.Load(b, family.LoadOptions{Lanes: 1, Host: f.Host})
	if err != nil {
		return nil, 0, nil, err
	}
	defer mdl.Close()
	tr, err := task.Lookup[task.Transcriber](mdl, b.Header.Profile, task.SpeechTranscription)
	if err != nil {
		return nil, 0, nil, err
	}
	texts, seconds, err := asrgate.Transcribe(ctx, tr, clips)
	return texts, seconds, mdl.(*model).kernelFacts(), err
}

// normalizedPairs applies Whisper's English normalizer to both sides of every pair.
func (f Family) normalizedPairs(pairs []metrics.Pair, workDir string) ([]metrics.Pair, error) {
	texts := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		texts = append(texts, p.Expected, p.Hyp)
	}
	norm, _, err := NormalizeEnglish(f.Host, texts, workDir)
	if err != nil {
		return nil, err
	}
	out := make([]metrics.Pair, len(pairs))
	for i, p := range pairs {
		out[i] = metrics.Pair{ID: p.ID, Expected: norm[2*i], Hyp: norm[2*i+1]}
	}
	return out, nil
}
