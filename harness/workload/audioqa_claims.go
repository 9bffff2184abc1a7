package workload

// The stage-9 (audio question answering) gate, recomputed offline. The sphinxqa family's gate
// (native/families/sphinxqa/gate.go) answers every pinned QA pair natively and requires the
// answer to be the templated reader's on the upstream pocketsphinx_batch transcript of the clip;
// its accuracy to the pinned gold answers is bounded. The reader is pure Go, so verify re-derives
// every expected answer and gold from the pins, every figure from the stored answers
// (r.Gate.Items), the verdict from those figures and the pinned thresholds, and ties every
// served answer to the gate's answer for its pair.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/families/descriptors"
	"github.com/trtmc-qual/trtmc-qual/native/families/sphinxqa/reader"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// GateFigures derives the sphinxqa gate from its stored answers (checkAudioQAGate).
func (audioQA) GateFigures(in GateInputs) (map[string]float64, []string, []Finding) {
	var found findings
	figures, fails := checkAudioQAGate(in.Root, in.Where, in.Testcase, in.Thresholds, in.Result, found.add)
	return figures, fails, found
}

// CheckStoredInputs re-hashes the clips sent and ties AIPerf's inputs.json to the QA pairs
// (checkAudioQAInputs).
func (audioQA) CheckStoredInputs(in StoredInputs) []Finding {
	var found findings
	checkAudioQAInputs(in.RunDir, in.Root, in.Source, in.Where, in.Result, found.add)
	return found
}

// InputSHA is an audio question's identity: the payload alone says it (qaInputSHA).
func (audioQA) InputSHA(ImageDefaults) (func(map[string]any) (string, error), error) {
	return qaInputSHA, nil
}

// qaWant is what the pins say of one pair: the reader's answer on the upstream transcript
// of its clip (the item's Expected) and the gold answer.
type qaWant struct {
	pair   reader.Pair
	answer string
}

// checkAudioQAGate recomputes the sphinxqa gate from its stored answers and the pins, reports
// every stored expected answer, gold or served answer that differs, and returns the derived
// figures and their failures against the pinned thresholds.
func checkAudioQAGate(root string, where string, tc manifest.Testcase, th manifest.Thresholds, r evidence.Result, report reporter) (map[string]float64, []string) {
	// The recomputation is the templated reader's rule (sphinxqa's, by its descriptor). Another
	// stage-9 family's gate is not passed off as checked: verify must learn its rule first.
	if d, ok := descriptors.Lookup(r.Gate.Family); !ok || !d.QAGateIsTemplatedReader {
		report(where, "gate of family %q: verify recomputes only the %s gate on stage 9, so this one cannot be checked", r.Gate.Family,
			strings.Join(descriptors.With(descriptors.TemplatedQAGate), ", "))
		return r.Gate.Figures, []string{"gate of a family verify cannot recompute"}
	}
	want, clips, err := qaPinned(root, tc)
	if err != nil {
		report(where, "gate not recomputable: %v", err)
		return r.Gate.Figures, []string{"pinned QA inputs unreadable"}
	}
	items := qaGateItems(where, tc, want, r.Gate.Items, report)
	got := qaFigures(want, items, clips)
	checkServedAnswers(where, want, items, r.Outputs, report)
	fails := qaFails(where, th, got, report)
	// The gate computes exactly these figures: one recorded besides them was not earned.
	figures := derivedFigures(r.Gate.Figures, got)
	for name := range figures {
		if _, ok := got[name]; !ok {
			delete(figures, name)
		}
	}
	return figures, fails
}

// qaPinned reads the testcase's pinned pairs with the reader and answers each on the upstream
// transcript of its clip (tc.Expected, the stage-3 upstream transcripts file, read by readUpstream: the
// sphinx family's reader needs cgo), in pair order. clips is the number of clips the gate
// decodes: every clip of each ASR dataset the pairs name, as its materialize does.
func qaPinned(root string, tc manifest.Testcase) (want []qaWant, clips int, err error) {
	pairs, err := reader.ReadPairs(filepath.Join(root, tc.Dataset))
	if err != nil {
		return nil, 0, fmt.Errorf("pinned QA pairs: %w", err)
	}
	upstream, err := readUpstream(filepath.Join(root, tc.Expected))
	if err != nil {
		return nil, 0, err
	}
	if clips, err = qaClipCount(root, pairs); err != nil {
		return nil, 0, err
	}
	for _, pr := range pairs {
		transcript, ok := upstream[pr.Clip]
		if !ok {
			return nil, 0, fmt.Errorf("upstream transcripts %s have none for clip %s (pair %s)", tc.Expected, pr.Clip, pr.ID)
		}
		answer, err := reader.AnswerText(pr.Question, transcript)
		if err != nil {
			return nil, 0, fmt.Errorf("pair %s: %w", pr.ID, err)
		}
		want = append(want, qaWant{pair: pr, answer: answer})
	}
	return want, clips, nil
}

// qaClipCount is the gate's "clips" figure: the distinct clips of the ASR datasets the pairs
// name (each pair's clip must be one of them, or the gate errs).
func qaClipCount(root string, pairs []reader.Pair) (int, error) {
	sets := map[string]map[string]bool{}
	for _, pr := range pairs {
		if _, done := sets[pr.Dataset]; !done {
			set, err := dataset.ReadASR(filepath.Join(root, pr.Dataset))
			if err != nil {
				return 0, fmt.Errorf("ASR dataset of pair %s: %w", pr.ID, err)
			}
			ids := map[string]bool{}
			for _, c := range set.Clips {
				ids[c.ID] = true
			}
			sets[pr.Dataset] = ids
		}
		if !sets[pr.Dataset][pr.Clip] {
			return 0, fmt.Errorf("pair %s names clip %s, not in %s", pr.ID, pr.Clip, pr.Dataset)
		}
	}
	n := 0
	for _, ids := range sets {
		n += len(ids)
	}
	return n, nil
}

// qaGateItems requires exactly one stored item per pinned pair, with the pinned expected answer
// and gold, and an item verdict that is its answer's; it returns the items by pair id (the first
// of duplicates).
func qaGateItems(where string, tc manifest.Testcase, want []qaWant, stored []evidence.GateItem, report reporter) map[string]evidence.GateItem {
	items := map[string]evidence.GateItem{}
	count := map[string]int{}
	for _, it := range stored {
		count[it.ID]++
		if _, seen := items[it.ID]; !seen {
			items[it.ID] = it
		}
	}
	pinned := map[string]bool{}
	for _, w := range want {
		id := w.pair.ID
		pinned[id] = true
		it, ok := items[id]
		switch {
		case !ok:
			report(where, "gate has no item for pinned pair %s of %s", id, tc.Dataset)
			continue
		case count[id] > 1:
			report(where, "gate has %d items for pair %s, one expected", count[id], id)
		}
		if it.Expected != w.answer || it.Gold != w.pair.Answer {
			report(where, "gate pair %s: stored expected answer %q / gold %q are not the reader's %q on the pinned %s transcript of clip %s / the pinned %s gold %q",
				id, it.Expected, it.Gold, w.answer, tc.Expected, w.pair.Clip, tc.Dataset, w.pair.Answer)
		}
		if it.Passed != (it.Output == w.answer) {
			report(where, "gate pair %s: item recorded as passed=%v, but its answer %q vs the expected answer %q says %v", id, it.Passed, it.Output, w.answer, !it.Passed)
		}
	}
	var extra []string
	for id := range items {
		if !pinned[id] {
			extra = append(extra, id)
		}
	}
	slices.Sort(extra)
	for _, id := range extra {
		report(where, "gate item %s is not a pair pinned in %s", id, tc.Dataset)
	}
	return items
}

// qaFigures recomputes the gate's figures from the stored answers, over the pinned pairs: a pair
// with no stored item counts as a wrong answer and an upstream mismatch (it was not answered).
func qaFigures(want []qaWant, items map[string]evidence.GateItem, clips int) map[string]float64 {
	total, correct := map[reader.Kind]int{}, map[reader.Kind]int{}
	mismatches, allCorrect := 0, 0
	for _, w := range want {
		it, ok := items[w.pair.ID]
		if !ok || it.Output != w.answer {
			mismatches++
		}
		total[w.pair.Kind]++
		if ok && it.Output == w.pair.Answer {
			correct[w.pair.Kind]++
			allCorrect++
		}
	}
	got := map[string]float64{
		"pairs":               float64(len(want)),
		"clips":               float64(clips),
		"upstream_mismatches": float64(mismatches),
		"answer_accuracy":     float64(allCorrect) / float64(len(want)),
	}
	for k, n := range total {
		got["accuracy_"+string(k)] = float64(correct[k]) / float64(n)
	}
	return got
}

// qaFails applies the gate's two bounds, both required (the family errs without either).
func qaFails(where string, th manifest.Thresholds, got map[string]float64, report reporter) []string {
	var fails []string
	accMin, err := th.Limit("answer_accuracy_min")
	if err != nil {
		report(where, "%v", err)
		fails = append(fails, "answer_accuracy_min missing")
	} else if acc := got["answer_accuracy"]; acc < accMin {
		fails = append(fails, fmt.Sprintf("answer_accuracy %.4f < %v", acc, accMin))
	}
	mismatchMax, err := th.Limit("upstream_mismatches")
	if err != nil {
		report(where, "%v", err)
		fails = append(fails, "upstream_mismatches missing")
	} else if n := got["upstream_mismatches"]; n > mismatchMax {
		fails = append(fails, fmt.Sprintf("upstream_mismatches %v > %v", n, mismatchMax))
	}
	return fails
}

// checkServedAnswers ties every served answer to the gate: the server runs the same bundle on
// the same pinned clip and question, and the reader is deterministic, so a served answer other
// than the gate's for that pair (or a gold other than the pinned one) means the gate or the
// serving evidence is not what ran.
func checkServedAnswers(where string, want []qaWant, items map[string]evidence.GateItem, outputs []evidence.Output, report reporter) {
	gold := map[string]string{}
	for _, w := range want {
		gold[w.pair.ID] = w.pair.Answer
	}
	for _, o := range outputs {
		it, ok := items[o.InputID]
		pinnedGold, pinned := gold[o.InputID]
		if !ok || !pinned || o.HTTPOutput != it.Output || o.Gold != pinnedGold {
			report(where, "request %s (pair %s): served answer %q with gold %q; the gate's answer for that pair is %q and the pinned gold %q",
				o.RequestID, o.InputID, o.HTTPOutput, o.Gold, it.Output, pinnedGold)
		}
	}
}

// storedClip is the stored copy of a pinned clip a QA pair sends.
type storedClip struct {
	path string // where the run stored it
	set  string // the ASR dataset pin holding it, repository-relative
	clip dataset.ASRClip
}

// checkAudioQAInputs re-hashes the clips an audio-QA row sent (stored beside its server records)
// against the ASR dataset pins its QA pairs name, and ties its AIPerf inputs.json to those pairs.
func checkAudioQAInputs(runDir string, root string, src InputSource, where string, r evidence.Result, report reporter) {
	pairs, dir, ok := pinnedAndStored(runDir, where, r, src.qaPairs, report)
	if !ok {
		return
	}
	clips, err := qaClips(root, dir, pairs)
	if err != nil {
		report(r.Dataset.Path, "%v", err)
		return
	}
	heard := rehashClips(runDir, clips, report)
	want := map[string]payloadCheck{}
	for _, pr := range pairs {
		want[pr.ID] = qaPayload(pr, clips[pr.ID], heard[clips[pr.ID].path])
	}
	checkSessions(runDir, where, r, want, "QA pair", report)
}

// qaClips is where the run stored each pair's clip: workload's audio-QA Inputs materializes each
// ASR dataset the pairs name once, in pair order, under inputs/<clips materialized before it>.
func qaClips(root, dir string, pairs []dataset.QAPair) (map[string]storedClip, error) {
	out := map[string]storedClip{}
	sets := map[string]map[string]storedClip{}
	n := 0
	for _, pr := range pairs {
		set, ok := sets[pr.Dataset]
		if !ok {
			var err error
			if set, err = storedSet(root, pr.Dataset, filepath.Join(dir, strconv.Itoa(n))); err != nil {
				return nil, fmt.Errorf("QA pair %s: %w", pr.ID, err)
			}
			sets[pr.Dataset], n = set, n+len(set)
		}
		c, ok := set[pr.Clip]
		if !ok {
			return nil, fmt.Errorf("QA pair %s names clip %s, not in %s", pr.ID, pr.Clip, pr.Dataset)
		}
		out[pr.ID] = c
	}
	return out, nil
}

// storedSet is an ASR dataset pin's clips as stored under dir.
func storedSet(root, setPath, dir string) (map[string]storedClip, error) {
	path, err := InsideDir(root, "dataset", setPath)
	if err != nil {
		return nil, err
	}
	set, err := dataset.ReadASR(path)
	if err != nil {
		return nil, err
	}
	out := map[string]storedClip{}
	for _, c := range set.Clips {
		out[c.ID] = storedClip{path: filepath.Join(dir, c.ID+".wav"), set: setPath, clip: c}
	}
	return out, nil
}

// rehashClips re-hashes each stored clip (once) against its pin, and returns by path the decoded
// audio's identity (task.Audio.SHA256, what the server hashes) of each that matches.
func rehashClips(runDir string, clips map[string]storedClip, report reporter) map[string]string {
	heard := map[string]string{}
	for _, id := range slices.Sorted(maps.Keys(clips)) {
		c := clips[id]
		if _, done := heard[c.path]; done {
			continue
		}
		heard[c.path] = ""
		data, err := runfile.ReadFile(c.path)
		if err != nil {
			report(relSlash(runDir, c.path), "stored input pinned in %s cannot be read: %v", c.set, err)
			continue
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != c.clip.SHA256 {
			report(relSlash(runDir, c.path), "stored input sha256 %s, pinned %s in %s", got, c.clip.SHA256, c.set)
			continue
		}
		if a, err := audio.DecodeWAV(data); err == nil {
			heard[c.path] = a.SHA256()
		}
	}
	return heard
}

// qaPayload: a chat request carries its pair's question and, as its one input_audio part, its
// pair's clip (heard: the stored clip's decoded identity; "" when the stored clip is not the pin,
// reported by rehashClips).
func qaPayload(pr dataset.QAPair, c storedClip, heard string) payloadCheck {
	return func(payload map[string]any) string {
		question, sent, err := ChatInput(payload)
		if err != nil {
			return err.Error()
		}
		var diffs []string
		if question != strings.TrimSpace(pr.Question) {
			diffs = append(diffs, fmt.Sprintf("question %q, pinned %q", question, pr.Question))
		}
		if heard != "" && sent != heard {
			diffs = append(diffs, fmt.Sprintf("clip (decoded %s) is not clip %s of %s (decoded %s)", sent, c.clip.ID, c.set, heard))
		}
		return strings.Join(diffs, "; ")
	}
}

// qaInputSHA is an audio question's input identity: its clip, decoded, and its question.
func qaInputSHA(payload map[string]any) (string, error) {
	question, clipSHA, err := ChatInput(payload)
	if err != nil {
		return "", err
	}
	return task.AudioQuestionSHA256(clipSHA, question), nil
}
