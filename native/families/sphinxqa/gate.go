package sphinxqa

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/families/sphinxqa/reader"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/family/asrgate"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// Gate is the family's contract, in the sphinx family's style. For every pinned pair:
//   - the native answer (the public Task on this bundle) must equal the reader applied to the
//     upstream pocketsphinx_batch transcript of the clip — the same upstream transcripts stage 3
//     gates the sphinx bundles against ("upstream_mismatches" ≤ its bound, 0);
//   - accuracy of the native answers to the gold answers (the reader on the human gold
//     transcripts, pinned in golden/audioqa/) is reported overall and per question kind, and
//     the overall figure must reach "answer_accuracy_min": ASR errors propagate, and the bound
//     records the cascade's measured quality rather than redefining it.
func (f Family) Gate(ctx context.Context, b *bundle.Bundle, m manifest.Manifest, tc manifest.Testcase, env family.GateEnv) (family.GateResult, error) {
	res := family.GateResult{Family: Name, Profile: m.Name, Testcase: tc.Name, BundleSHA: b.SHA256, Figures: map[string]float64{}}
	th, err := manifest.ReadThresholds(manifest.ThresholdsPath(m, tc.Name))
	if err != nil {
		return res, err
	}
	accMin, err := th.Limit("answer_accuracy_min")
	if err != nil {
		return res, err
	}
	mismatchMax, err := th.Limit("upstream_mismatches")
	if err != nil {
		return res, err
	}
	res.Thresholds = th.Overrides
	pairs, err := reader.ReadPairs(filepath.Join(env.Root, tc.Dataset))
	if err != nil {
		return res, err
	}
	clips, err := materialize(env, pairs)
	if err != nil {
		return res, err
	}
	file, err := asrgate.ReadUpstream(filepath.Join(env.Root, tc.Expected))
	if err != nil {
		return res, err
	}
	upstream := map[string]string{}
	for _, r := range file.Transcripts {
		upstream[r.ID] = r.Text
	}
	mdl, err := f.Load(b, family.LoadOptions{Lanes: 1})
	if err != nil {
		return res, err
	}
	defer mdl.Close()
	qa, err := task.Lookup[task.AudioAnswerer](mdl, m.Name, task.AudioTextToText)
	if err != nil {
		return res, err
	}
	total, correct := map[reader.Kind]int{}, map[reader.Kind]int{}
	mismatches, allCorrect := 0, 0
	for _, p := range pairs {
		ref, ok := upstream[p.Clip]
		if !ok {
			return res, fmt.Errorf("upstream transcripts %s have none for clip %s (pair %s)", tc.Expected, p.Clip, p.ID)
		}
		wantAnswer, err := reader.AnswerText(p.Question, ref)
		if err != nil {
			return res, fmt.Errorf("pair %s: %w", p.ID, err)
		}
		got, err := qa.Answer(ctx, task.AudioQuestion{Audio: clips[p.Dataset+"\x00"+p.Clip], Question: p.Question})
		if err != nil {
			return res, fmt.Errorf("pair %s: %w", p.ID, err)
		}
		item := family.GateItem{ID: p.ID, Output: got, Expected: wantAnswer, Gold: p.Answer, Passed: got == wantAnswer,
			Detail: fmt.Sprintf("%s | upstream transcript %q", p.Question, ref)}
		if !item.Passed {
			mismatches++
			item.Distance = 1
			res.Failures = append(res.Failures, fmt.Sprintf("pair %s: native answer %q, reader on the upstream transcript %q", p.ID, got, wantAnswer))
		}
		total[p.Kind]++
		if got == p.Answer {
			correct[p.Kind]++
			allCorrect++
		}
		res.Items = append(res.Items, item)
	}
	res.Figures["pairs"] = float64(len(pairs))
	res.Figures["clips"] = float64(len(clips))
	res.Figures["upstream_mismatches"] = float64(mismatches)
	res.Figures["answer_accuracy"] = float64(allCorrect) / float64(len(pairs))
	kinds := make([]string, 0, len(total))
	for k := range total {
		kinds = append(kinds, string(k))
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		res.Figures["accuracy_"+k] = float64(correct[reader.Kind(k)]) / float64(total[reader.Kind(k)])
	}
	if float64(mismatches) > mismatchMax {
		res.Failures = append(res.Failures, fmt.Sprintf("%d answers differ from the reader on the upstream transcript (bound %v)", mismatches, mismatchMax))
	}
	if acc := res.Figures["answer_accuracy"]; acc < accMin {
		res.Failures = append(res.Failures, fmt.Sprintf("answer accuracy to gold %.4f below the family bound %v", acc, accMin))
	}
	res.Passed = len(res.Failures) == 0
	return res, nil
}

// materialize writes and decodes every clip the pairs name, keyed by dataset and clip id.
func materialize(env family.GateEnv, pairs []reader.Pair) (map[string]task.Audio, error) {
	out := map[string]task.Audio{}
	sets := map[string]bool{}
	for _, p := range pairs {
		if sets[p.Dataset] {
			continue
		}
		sets[p.Dataset] = true
		set, err := dataset.ReadASR(filepath.Join(env.Root, p.Dataset))
		if err != nil {
			return nil, err
		}
		set.Cache = env.Cache
		mat, err := set.Materialize(env.Root, filepath.Join(env.WorkDir, "clips", fmt.Sprint(len(sets))))
		if err != nil {
			return nil, err
		}
		for _, c := range mat {
			data, err := os.ReadFile(c.Path)
			if err != nil {
				return nil, err
			}
			a, err := audio.DecodeWAV(data)
			if err != nil {
				return nil, fmt.Errorf("clip %s: %w", c.ID, err)
			}
			out[p.Dataset+"\x00"+c.ID] = a
		}
	}
	for _, p := range pairs {
		if _, ok := out[p.Dataset+"\x00"+p.Clip]; !ok {
			return nil, fmt.Errorf("pair %s names clip %s, not in %s", p.ID, p.Clip, p.Dataset)
		}
	}
	return out, nil
}
