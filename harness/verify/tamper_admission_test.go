package verify

import (
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
)

// admissionForgeries edit what a row records of its admission (its clip limits and the inputs it
// skipped) on every stage, re-assembled and re-signed: the admission claim derives both from the
// manifest's limits and the stored clips on every row that names a dataset, not only on a stage
// that admits by clip limits.
func admissionForgeries() []tamper {
	q := evidence.StatusQualified
	return []tamper{
		{name: "AD a T2I row records clip limits it was never admitted under", forged: true,
			want: []string{"t2i/", "admission recomputed differently", ".input_limits: evidence has"},
			edit: func(t *testing.T, f *forger) {
				i, _ := f.result(string(stage.T2I), q, evidence.KindFull)
				f.stage(string(stage.T2I), func(s *evidence.Stage) {
					s.Results[i].Limits = &evidence.InputLimits{MaxClipSeconds: 5, MaxClipSource: "max_seconds in procdiff build"}
				})
			}},
		{name: "AD an audio-QA row lists a pinned pair as skipped", forged: true,
			want: []string{"audioqa/", "admission recomputed differently", ".skipped_inputs: evidence has"},
			edit: func(t *testing.T, f *forger) {
				i, r := f.result(string(stage.AudioQA), q, evidence.KindFull)
				f.stage(string(stage.AudioQA), func(s *evidence.Stage) {
					s.Results[i].Skipped = []evidence.SkippedInput{{Clip: r.Outputs[0].InputID, Seconds: 31, SampleRate: 16000,
						Reason: "clip of 31.00 s exceeds family sphinxqa's maximum clip duration 30 s"}}
				})
			}},
		{name: "AD an ASR row's clip limit recorded laxer than its manifest's", forged: true,
			want: []string{"asr/", "admission recomputed differently", ".input_limits.max_clip_seconds: recomputed"},
			edit: func(t *testing.T, f *forger) {
				i, _ := f.result(string(stage.ASR), q, evidence.KindFull)
				f.stage(string(stage.ASR), func(s *evidence.Stage) {
					if s.Results[i].Limits == nil {
						t.Fatal("the row records no limits to make laxer")
					}
					s.Results[i].Limits.MaxClipSeconds *= 2
				})
			}},
	}
}
