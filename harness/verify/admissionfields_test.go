package verify

import (
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/claim"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// admissionEdits are the ways a forger can change what a row records of its admission, each
// field alone: a limit's value or source (added where the row records none), the limits
// removed, an input listed as skipped.
func admissionEdits() map[string]func(r *evidence.Result) {
	limits := func(r *evidence.Result) *evidence.InputLimits {
		if r.Limits == nil {
			r.Limits = &evidence.InputLimits{}
		} else {
			l := *r.Limits
			r.Limits = &l
		}
		return r.Limits
	}
	return map[string]func(r *evidence.Result){
		"max_clip_seconds":   func(r *evidence.Result) { l := limits(r); l.MaxClipSeconds = 2*l.MaxClipSeconds + 1 },
		"max_clip_source":    func(r *evidence.Result) { limits(r).MaxClipSource += " (forged)" },
		"sample_rate":        func(r *evidence.Result) { l := limits(r); l.SampleRate = 2*l.SampleRate + 1 },
		"sample_rate_source": func(r *evidence.Result) { limits(r).SampleRateSource += " (forged)" },
		"limits removed": func(r *evidence.Result) {
			if r.Limits == nil {
				r.Limits = &evidence.InputLimits{MaxClipSeconds: 30, MaxClipSource: "forged"} // nothing to remove: add instead
				return
			}
			r.Limits = nil
		},
		"an input listed as skipped": func(r *evidence.Result) {
			r.Skipped = append(append([]evidence.SkippedInput(nil), r.Skipped...),
				evidence.SkippedInput{Clip: "forged-clip", Seconds: 31, SampleRate: 16000, Reason: "clip of 31.00 s exceeds the maximum clip duration 30 s"})
		},
	}
}

// TestEveryAdmissionFieldForgedIsNamed changes each field of every row's admission record of a
// real run alone, on every row (one that names no dataset too), and derives the admission claim
// with verify's own pins (the manifest's limits as pinnedLimits reads them): each change must be
// named, and the honest row must derive its stored record.
func TestEveryAdmissionFieldForgedIsNamed(t *testing.T) {
	run := realRun(t)
	e, err := evidence.Read(run.dir)
	if err != nil {
		t.Fatal(err)
	}
	p := pins{Root: repoRootForTest(t), TRTMCRoot: envOptions().TRTMCRoot}
	check := func(s evidence.Stage, r evidence.Result) []string {
		return claim.Admission().Check(loadArtifacts(run.dir, p, "reference", s, r, false))
	}
	rows := 0
	for _, s := range e.Stages {
		for _, r := range s.Results {
			where := s.Stage + "/" + r.Profile
			if problems := check(s, r); len(problems) > 0 {
				t.Errorf("%s: the honest row's admission: %v", where, problems)
				continue
			}
			rows++
			for field, edit := range admissionEdits() {
				forged := r
				edit(&forged)
				if len(check(s, forged)) == 0 {
					t.Errorf("%s (dataset %q): %s forged, nothing named", where, r.Dataset.Path, field)
				}
			}
		}
	}
	if rows == 0 {
		t.Fatal("the run has no row to forge")
	}
}
