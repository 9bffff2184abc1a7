package workload

import (
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/metrics"
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/families/descriptors"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// upstreamNormalizer is how a family compares its transcript with the upstream transcript (its
// descriptor's; sphinx after TRTMC's family normalizer, whisper exactly); a family without one
// gets only the gold-text figures recomputed.
func upstreamNormalizer(name string) (metrics.Normalizer, bool) {
	d, ok := descriptors.Lookup(name)
	if !ok || d.UpstreamNormalizer == nil {
		return metrics.Normalizer{}, false
	}
	return *d.UpstreamNormalizer, true
}

// GateFigures derives the gate from its stored transcripts (checkASRGate).
func (asr) GateFigures(in GateRecheck) (map[string]float64, []string, []Finding) {
	var found findings
	figures, fails := checkASRGate(in.Root, in.Where, in.Testcase, in.Thresholds, in.Result, found.add)
	return figures, fails, found
}

// CheckStoredInputs re-hashes the stored WAVs (checkASRInputs).
func (asr) CheckStoredInputs(in StoredInputs) []Finding {
	var found findings
	checkASRInputs(in.RunDir, in.Source, in.Where, in.Result, found.add)
	return found
}

// CheckAdmission re-applies the clip limits (checkAdmission).
func (asr) CheckAdmission(in Admission) []Finding {
	var found findings
	checkAdmission(in, found.add)
	return found
}

// InputSHA is an uploaded clip's identity: the payload alone says it.
func (asr) InputSHA(ImageDefaults) (func(map[string]any) (string, error), error) {
	return UploadedClipSHA, nil
}

// checkASRGate derives NED to the upstream transcript and WER/CER to the gold text from the
// gate's stored transcripts (a figure it cannot derive, of a family's own normalizer, kept as
// recorded), requires those upstream transcripts to be the pinned ones, and ties every served
// transcript to the gate's transcript of the same clip.
func checkASRGate(root string, where string, tc manifest.Testcase, th manifest.Thresholds, r evidence.Result, report reporter) (map[string]float64, []string) {
	g := r.Gate
	set, err := dataset.ReadASR(filepath.Join(root, tc.Dataset))
	if err != nil {
		report(where, "gate not recomputable: %v", err)
		return r.Gate.Figures, []string{"dataset unreadable"}
	}
	upstream, err := readUpstream(filepath.Join(root, tc.Expected))
	if err != nil {
		report(tc.Expected, "%v", err)
		return r.Gate.Figures, []string{"upstream transcripts unreadable"}
	}
	gold := map[string]string{}
	for _, c := range set.Clips {
		gold[c.ID] = c.Gold
	}
	native := map[string]string{}
	var vsUpstream, vsGold []metrics.Pair
	for _, it := range g.Items {
		if upstream[it.ID] != it.Expected || gold[it.ID] != it.Gold {
			report(where, "gate clip %s: stored upstream %q / gold %q are not the pinned %s %q / %s %q", it.ID, it.Expected, it.Gold, tc.Expected, upstream[it.ID], tc.Dataset, gold[it.ID])
		}
		native[it.ID] = it.Output
		vsUpstream = append(vsUpstream, metrics.Pair{ID: it.ID, Expected: upstream[it.ID], Hyp: it.Output})
		vsGold = append(vsGold, metrics.Pair{ID: it.ID, Expected: gold[it.ID], Hyp: it.Output})
	}
	if len(g.Items) != len(set.Clips) {
		report(where, "gate has %d clips, the pinned dataset %s has %d", len(g.Items), tc.Dataset, len(set.Clips))
	}
	var fails []string
	seconds := 0.0
	for _, c := range set.Clips {
		seconds += c.Duration // the pinned length of the clip the gate decodes
	}
	if rec, ok := g.Figures["audio_seconds"]; ok && math.Abs(rec-seconds) <= 1e-6*float64(len(set.Clips)) {
		seconds = rec // the pins state each length to the microsecond, the gate decodes it exactly
	}
	got := map[string]float64{"clips": float64(len(set.Clips)), "audio_seconds": seconds}
	uncomputable := map[string]bool{}
	figure := func(name string, v float64, err error) {
		if err != nil {
			report(where, "gate figure %s not computable from the stored transcripts: %v", name, err)
			fails = append(fails, name+" not computable")
			uncomputable[name] = true
			return
		}
		got[name] = v
	}
	goldScore := metrics.Score(vsGold, metrics.GoldWER(), metrics.UnitCosts())
	goldWER, err := goldScore.WER()
	figure("gold_wer", goldWER, err)
	goldCER, err := goldScore.CER()
	figure("gold_cer", goldCER, err)
	if norm, ok := upstreamNormalizer(g.Family); ok {
		upstreamScore := metrics.Score(vsUpstream, norm, metrics.UnitCosts())
		got["ned_max"] = upstreamScore.MaxNED()
		upstreamWER, err := upstreamScore.WER()
		figure("wer_vs_upstream", upstreamWER, err)
	}
	// Every ASR bound is an upper bound on a figure ("ned" bounds ned_max); a figure this
	// package cannot recompute (a family's own normalizer) is taken as recorded, and a pinned
	// bound on a figure neither recomputed nor recorded fails.
	for _, k := range sortedNames(th.Overrides) {
		fig := k
		if k == "ned" {
			fig = "ned_max"
		}
		if uncomputable[fig] {
			continue // failed above
		}
		v, ok := got[fig]
		if !ok {
			v, ok = g.Figures[fig]
		}
		switch {
		case !ok:
			report(where, "pinned bound %s (%v): gate figure %s neither recomputed nor recorded", k, th.Overrides[k], fig)
			fails = append(fails, fmt.Sprintf("%s missing", fig))
		case v > th.Overrides[k]:
			fails = append(fails, fmt.Sprintf("%s %.4f > %v", fig, v, th.Overrides[k]))
		}
	}
	for _, o := range r.Outputs {
		want, ok := native[o.InputID]
		if !ok || o.HTTPOutput != want || o.Gold != gold[o.InputID] {
			report(where, "request %s (clip %s): served transcript %q with gold %q; the gate's transcript of that clip is %q and the pinned gold %q",
				o.RequestID, o.InputID, o.HTTPOutput, o.Gold, want, gold[o.InputID])
		}
	}
	return derivedFigures(g.Figures, got), fails
}

// checkASRInputs re-hashes the stored WAV inputs beside the server records against the pinned
// dataset's clips (or the testcase's own clip, against the sha256 the evidence records for it).
func checkASRInputs(runDir string, src InputSource, where string, r evidence.Result, report reporter) {
	set, dir, ok := pinnedAndStored(runDir, where, r, src.asr, report)
	if !ok {
		return
	}
	for _, c := range set.Clips {
		rel, _ := filepath.Rel(runDir, filepath.Join(dir, c.ID+".wav"))
		got, err := bundle.FileSHA256(filepath.Join(dir, c.ID+".wav"))
		switch {
		case err != nil:
			report(filepath.ToSlash(rel), "stored input pinned in %s cannot be read: %v", r.Dataset.Path, err)
		case got != c.SHA256:
			report(filepath.ToSlash(rel), "stored input sha256 %s, pinned %s in %s", got, c.SHA256, r.Dataset.Path)
		}
	}
}

// checkAdmission holds a stage-3 row to its clip limits: nothing is dropped silently. Every
// pinned clip was either sent (it is a row of every AIPerf input file the run stored) or recorded
// as skipped, never both; a skipped clip really breaks a recorded limit, re-applied to the stored
// WAV; a sent clip breaks none; a row whose every clip was skipped is failed. A row whose input
// is its TRTMC testcase's own clip (test_input_audio) is held to the same with that one clip,
// sent under the testcase's name.
func checkAdmission(in Admission, report reporter) {
	runDir, where, r := in.RunDir, in.Where, in.Result
	set, err := in.Source.asr()
	if err != nil {
		report(r.Dataset.Path, "%v", err)
		return
	}
	limits := in.Limits
	skipped := map[string]evidence.SkippedInput{}
	for _, sk := range r.Skipped {
		if _, dup := skipped[sk.Clip]; dup {
			report(where, "clip %s is listed as skipped twice", sk.Clip)
		}
		skipped[sk.Clip] = sk
	}
	if len(r.Skipped) > 0 && r.Limits == nil {
		report(where, "%d clips recorded as skipped, but no input limits are recorded", len(r.Skipped))
	}
	dir := filepath.Join(runDir, in.Stage, r.Profile, "inputs")
	if r.Records != "" {
		if recordsPath, err := InsideDir(runDir, "records", r.Records); err == nil {
			dir = filepath.Join(filepath.Dir(recordsPath), "inputs")
		}
	}
	pinned := map[string]bool{}
	for _, c := range set.Clips {
		pinned[c.ID] = true
		seconds, rate, err := ClipOf(filepath.Join(dir, c.ID+".wav"))
		if err != nil {
			report(where, "clip %s: stored input not readable, its limits cannot be re-applied: %v", c.ID, err)
			continue
		}
		why := limits.Violation(in.Family, seconds, rate)
		sk, isSkipped := skipped[c.ID]
		switch {
		case isSkipped && why == "":
			report(where, "clip %s (%.2f s, %d Hz) is recorded as skipped (%q) but breaks none of the limits that apply %+v", c.ID, seconds, rate, sk.Reason, limits)
		case !isSkipped && why != "":
			report(where, "clip %s was not skipped but breaks the family's declared limits: %s", c.ID, why)
		}
	}
	for _, sk := range r.Skipped {
		if !pinned[sk.Clip] {
			report(where, "skipped clip %s is not a clip of the pinned dataset %s", sk.Clip, r.Dataset.Path)
		}
	}
	for _, o := range r.Outputs {
		if _, isSkipped := skipped[o.InputID]; isSkipped {
			report(where, "request %s served clip %s, which is recorded as skipped", o.RequestID, o.InputID)
		}
	}
	if len(set.Clips) > 0 && len(skipped) >= len(set.Clips) && r.Status != evidence.StatusFailed {
		report(where, "every pinned clip was skipped, yet the row is %s: a row never qualifies on zero inputs", r.Status)
	}
	if r.AIPerf != nil {
		checkSent(runDir, where, r, set, skipped, report)
	}
}

// checkSent requires every AIPerf input file of the row to hold exactly the clips not skipped.
func checkSent(runDir, where string, r evidence.Result, set dataset.ASRSet, skipped map[string]evidence.SkippedInput, report reporter) {
	for _, f := range aiperfInputsFiles(runDir, where, r, "clips", report) {
		rel := relSlash(runDir, f)
		sent, err := sessionIDs(f)
		if err != nil {
			report(rel, "%v", err)
			continue
		}
		for _, c := range set.Clips {
			_, isSkipped := skipped[c.ID]
			switch {
			case isSkipped && sent[c.ID]:
				report(rel, "clip %s is recorded as skipped but AIPerf was given it", c.ID)
			case !isSkipped && !sent[c.ID]:
				report(rel, "clip %s was neither sent nor recorded as skipped", c.ID)
			}
			delete(sent, c.ID)
		}
		if len(sent) > 0 {
			report(rel, "AIPerf was given inputs %v that are not clips of the pinned dataset %s", slices.Sorted(maps.Keys(sent)), r.Dataset.Path)
		}
	}
}

// sessionIDs are the session ids of an AIPerf inputs.json (readSessions).
func sessionIDs(path string) (map[string]bool, error) {
	sessions, err := readSessions(path)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, s := range sessions {
		out[s.ID] = true
	}
	return out, nil
}
