package verify

// Clip limits (issue #12): nothing is dropped silently. On a stage-3 row every pinned clip was
// either sent (it is a row of every AIPerf input file the run stored) or recorded as skipped,
// never both; a skipped clip really breaks a recorded limit, re-applied to the stored WAV; a
// sent clip breaks none; a row's recorded limits are its manifest's (a reference row's pinned
// one, a TRTMC row's in the checkout, QUAL_TRTMC_ROOT); a row whose every clip was skipped is
// failed. A row whose input is its TRTMC testcase's own clip (test_input_audio) is held to the
// same with that one clip, sent under the testcase's name.

import (
	"maps"
	"path/filepath"
	"slices"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
)

func checkAdmission(runDir string, p pins, src inputSource, where string, s evidence.Stage, r evidence.Result, report reporter) {
	set, err := src.asr()
	if err != nil {
		report(r.Dataset.Path, "%v", err)
		return
	}
	limits := pinnedLimits(p, where, s, r, report)
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
	dir := filepath.Join(runDir, s.Stage, r.Profile, "inputs")
	if r.Records != "" {
		if recordsPath, err := local(runDir, "records", r.Records); err == nil {
			dir = filepath.Join(filepath.Dir(recordsPath), "inputs")
		}
	}
	row, _ := inventoryRow(s, r.Profile) // its family names the limit, as the run's reason does
	pinned := map[string]bool{}
	for _, c := range set.Clips {
		pinned[c.ID] = true
		seconds, rate, err := workload.ClipOf(filepath.Join(dir, c.ID+".wav"))
		if err != nil {
			report(where, "clip %s: stored input not readable, its limits cannot be re-applied: %v", c.ID, err)
			continue
		}
		why := limits.Violation(row.Family, seconds, rate)
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

// pinnedLimits are the limits the row's clips must satisfy: its manifest's, read as the run read
// them (inventory.AdmissionOf, checkpoint's admit) from where the run read it (rowManifest: a
// reference profile's pinned manifest, a trtmc row's manifest in the TRTMC checkout), and the
// recorded ones must equal them; a row of another target with no pinned manifest: the recorded
// ones. A trtmc row whose manifest cannot be read (no QUAL_TRTMC_ROOT, say) is reported.
func pinnedLimits(p pins, where string, s evidence.Stage, r evidence.Result, report reporter) evidence.InputLimits {
	recorded := evidence.InputLimits{}
	if r.Limits != nil {
		recorded = *r.Limits
	}
	path, named, ok, err := p.rowManifest(s, r.Profile)
	if err != nil {
		report(where, "input limits: %v", err)
		return recorded
	}
	if !ok {
		return recorded
	}
	a, err := inventory.AdmissionOf(path)
	if err != nil {
		report(where, "input limits of the %s: %v", named, err)
		return recorded
	}
	want := evidence.InputLimits{MaxClipSeconds: a.MaxClipSeconds, MaxClipSource: a.MaxClipSource, SampleRate: a.SampleRate, SampleRateSource: a.SampleRateSource}
	// Values, not sources: a TRTMC-layout copy of the manifest (the contract double's) may name a
	// different sibling as the source of the same family limit.
	if r.Limits != nil && (recorded.MaxClipSeconds != want.MaxClipSeconds || recorded.SampleRate != want.SampleRate) {
		report(where, "recorded input limits %+v are not the %s's %+v", recorded, named, want)
	}
	return want
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
