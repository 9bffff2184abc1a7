package verify

import (
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
)

// admissionReviewForgeries edit a row's admission where the claim took the recorded value as
// given: on a row that names no dataset (the claim was not made), in a limit's source (values
// alone were compared), and in the source of a limit its manifest does not declare.
func admissionReviewForgeries() []tamper {
	return []tamper{
		{name: "RV43 a family-validated row (no dataset) lists a skipped clip and the limits it broke", forged: true,
			want: []string{"sphinx-an4-l0", "admission recomputed differently", ".input_limits: evidence has"},
			edit: func(t *testing.T, f *forger) {
				i, r := f.result(string(stage.ASR), evidence.StatusFamilyValidated, evidence.KindReduced)
				if r.Dataset.Path != "" {
					t.Fatalf("row %s names dataset %s: not a row that admitted nothing", r.Profile, r.Dataset.Path)
				}
				f.stage(string(stage.ASR), func(s *evidence.Stage) {
					s.Results[i].Limits = &evidence.InputLimits{MaxClipSeconds: 30, MaxClipSource: "max_seconds in sphinx-en-us build"}
					s.Results[i].Skipped = []evidence.SkippedInput{{Clip: "cen1-fash-b", Seconds: 41.5, SampleRate: 16000,
						Reason: "clip of 41.50 s exceeds family sphinx's maximum clip duration 30 s (max_seconds in sphinx-en-us build)"}}
				})
			}},
		{name: "RV43 a T2I row records the sources of clip limits it does not declare", forged: true,
			want: []string{"t2i/", "admission recomputed differently", ".input_limits: evidence has"},
			edit: func(t *testing.T, f *forger) {
				i, _ := f.result(string(stage.T2I), evidence.StatusQualified, evidence.KindFull)
				f.stage(string(stage.T2I), func(s *evidence.Stage) {
					s.Results[i].Limits = &evidence.InputLimits{MaxClipSource: "max_seconds in procdiff build", SampleRateSource: "sample_rate in procdiff build"}
				})
			}},
		{name: "RV43 a reference ASR row's clip-limit source rewritten, its value kept", forged: true,
			want: []string{"asr/", "admission recomputed differently", ".input_limits.max_clip_source: recomputed"},
			edit: func(t *testing.T, f *forger) {
				i, _ := f.result(string(stage.ASR), evidence.StatusQualified, evidence.KindFull)
				f.stage(string(stage.ASR), func(s *evidence.Stage) {
					if s.Results[i].Limits == nil || s.Results[i].Limits.MaxClipSeconds == 0 {
						t.Fatal("the row records no clip limit to re-source")
					}
					s.Results[i].Limits.MaxClipSource = "max_seconds in the upstream model card"
				})
			}},
	}
}
