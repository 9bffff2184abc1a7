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
func (asr) GateFigures(in GateInputs) (map[string]float64, []string, []Finding) {
	var found findings
	figures, fails := checkASRGate(in.Root, in.Where, in.Testcase, in.Thresholds, in.Result, found.add)
	return figures, fails, found
}

// CheckStoredInputs re-hashes the stored WAVs (checkASRInputs) and ties AIPerf's inputs.json
// to the clips the row did not skip (checkSent).
func (asr) CheckStoredInputs(in StoredInputs) []Finding {
	var found findings
	checkASRInputs(in.RunDir, in.Source, in.Where, in.Result, found.add)
	checkSent(in, found.add)
	return found
}

// StoredClips are the row's pinned clips as the run stores them, in pinned order (Admitter).
func (asr) StoredClips(in Admission) ([]StoredClip, error) {
	set, err := in.Source.asr()
	if err != nil {
		return nil, err
	}
	out := make([]StoredClip, 0, len(set.Clips))
	for _, c := range set.Clips {
		out = append(out, StoredClip{ID: c.ID, Path: filepath.Join(in.Dir, c.ID+".wav")})
	}
	return out, nil
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

// checkSent requires every AIPerf input file of the row to hold exactly the pinned clips its
// admission did not skip (the admission claim derives the skipped ones from the stored clips).
func checkSent(in StoredInputs, report reporter) {
	runDir, where, r := in.RunDir, in.Where, in.Result
	set, err := in.Source.asr()
	if err != nil {
		report(r.Dataset.Path, "%v", err)
		return
	}
	skipped := map[string]bool{}
	for _, sk := range r.Skipped {
		skipped[sk.Clip] = true
	}
	for _, f := range aiperfInputsFiles(runDir, where, r, "clips", report) {
		rel := relSlash(runDir, f)
		sent, err := sessionIDs(f)
		if err != nil {
			report(rel, "%v", err)
			continue
		}
		for _, c := range set.Clips {
			switch {
			case skipped[c.ID] && sent[c.ID]:
				report(rel, "clip %s is recorded as skipped but AIPerf was given it", c.ID)
			case !skipped[c.ID] && !sent[c.ID]:
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
