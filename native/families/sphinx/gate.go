package sphinx

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/metrics"
	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// References are the upstream tool's transcripts for a dataset, with the command that made them.
type References struct {
	Tool        string      `json:"tool"`
	ToolPackage string      `json:"tool_package"`
	ToolVersion string      `json:"tool_version"`
	Command     string      `json:"command"`
	Note        string      `json:"note"`
	Transcripts []Reference `json:"transcripts"`
}

// Reference is one clip's upstream transcript.
type Reference struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// ReadReferences reads a reference file.
func ReadReferences(path string) (References, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return References{}, fmt.Errorf("read references: %w", err)
	}
	var r References
	if err := json.Unmarshal(data, &r); err != nil {
		return References{}, fmt.Errorf("references %s: %w", path, err)
	}
	return r, nil
}

// Gate is the family's correctness contract, like TRTMC's "native vs upstream reference": on
// every clip of the pinned selection the native transcript must equal the upstream
// pocketsphinx_batch transcript after the family normalizer (NED ≤ the "ned" bound, 0 for every
// reference profile); WER and CER to the human gold text are reported and bounded by
// "gold_wer", which records the recognizer's quality rather than redefining it.
func (f Family) Gate(ctx context.Context, b *bundle.Bundle, m manifest.Manifest, tc manifest.Testcase, env family.GateEnv) (family.GateResult, error) {
	res := family.GateResult{Family: Name, Profile: m.Name, Testcase: tc.Name, BundleSHA: b.SHA256, Figures: map[string]float64{}}
	th, err := manifest.ReadThresholds(manifest.ThresholdsPath(m, tc.Name))
	if err != nil {
		return res, err
	}
	nedMax, err := th.Limit("ned")
	if err != nil {
		return res, err
	}
	goldMax, err := th.Limit("gold_wer")
	if err != nil {
		return res, err
	}
	res.Thresholds = th.Overrides
	set, err := dataset.ReadASR(filepath.Join(env.Root, tc.Dataset))
	if err != nil {
		return res, err
	}
	clips, err := set.Materialize(env.Root, filepath.Join(env.WorkDir, "clips"))
	if err != nil {
		return res, err
	}
	refs, err := ReadReferences(filepath.Join(env.Root, tc.Reference))
	if err != nil {
		return res, err
	}
	byID := map[string]string{}
	for _, r := range refs.Transcripts {
		byID[r.ID] = r.Text
	}
	mdl, err := f.Load(b, family.LoadOptions{Lanes: 1})
	if err != nil {
		return res, err
	}
	defer mdl.Close()
	tr, err := task.Lookup[task.Transcriber](mdl, m.Name, task.SpeechTranscription)
	if err != nil {
		return res, err
	}
	var vsRef, vsGold []metrics.Pair
	seconds := 0.0
	for _, c := range clips {
		ref, ok := byID[c.ID]
		if !ok {
			return res, fmt.Errorf("references %s have no transcript for clip %s", tc.Reference, c.ID)
		}
		text, secs, err := transcribeFile(ctx, tr, c.Path)
		if err != nil {
			return res, fmt.Errorf("clip %s: %w", c.ID, err)
		}
		seconds += secs
		vsRef = append(vsRef, metrics.Pair{ID: c.ID, Reference: ref, Hyp: text})
		vsGold = append(vsGold, metrics.Pair{ID: c.ID, Reference: c.Gold, Hyp: text})
	}
	refScore := metrics.Score(vsRef, metrics.TRTMCFamily(), metrics.UnitCosts())
	goldScore := metrics.Score(vsGold, metrics.GoldWER(), metrics.UnitCosts())
	for i, u := range refScore.Utterances {
		item := family.GateItem{ID: u.ID, Output: vsRef[i].Hyp, Reference: vsRef[i].Reference, Gold: vsGold[i].Reference, Distance: u.NED, Passed: u.NED <= nedMax}
		if !item.Passed {
			res.Failures = append(res.Failures, fmt.Sprintf("clip %s: NED %.4f > %v: native %q, reference %q", u.ID, u.NED, nedMax, item.Output, item.Reference))
		}
		res.Items = append(res.Items, item)
	}
	werRef, _ := refScore.WER()
	goldWER, werErr := goldScore.WER()
	goldCER, _ := goldScore.CER()
	res.Figures = map[string]float64{"clips": float64(len(clips)), "audio_seconds": seconds, "ned_max": refScore.MaxNED(),
		"wer_vs_reference": werRef, "gold_wer": goldWER, "gold_cer": goldCER}
	if werErr != nil || goldWER > goldMax {
		res.Failures = append(res.Failures, fmt.Sprintf("gold WER %.4f above the family bound %v (err %v)", goldWER, goldMax, werErr))
	}
	res.Passed = len(res.Failures) == 0
	return res, nil
}

// transcribeFile decodes a WAV file and runs it through the public Task, as the native CLI does.
func transcribeFile(ctx context.Context, tr task.Transcriber, path string) (string, float64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", 0, err
	}
	a, err := audio.DecodeWAV(data)
	if err != nil {
		return "", 0, err
	}
	out, err := tr.Transcribe(ctx, a, task.TranscribeConfig{})
	return out.Text, a.Seconds(), err
}
