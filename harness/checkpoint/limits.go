package checkpoint

// Clip limits: a transcription family may declare a maximum clip duration and a sample
// rate in its manifests, testcases or thresholds. A pinned clip it cannot take is never sent —
// not to the native Task, not over HTTP, not by AIPerf — and the row records it as skipped with
// the limit it breaks and where that limit is declared, so nothing is dropped silently.

import (
	"fmt"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// admit keeps the inputs the row's family can take and records the others in the result. A row
// left with no input is an error: it never qualifies on zero inputs.
func (c *Checkpoint) admit(inputs []workload.Input) ([]workload.Input, error) {
	a, err := inventory.AdmissionOf(c.Row.Manifest)
	if err != nil {
		return nil, fmt.Errorf("input limits: %w", err)
	}
	lim := evidence.InputLimits{MaxClipSeconds: a.MaxClipSeconds, MaxClipSource: a.MaxClipSource,
		SampleRate: a.SampleRate, SampleRateSource: a.SampleRateSource}
	c.Result.Limits, c.Result.Skipped = nil, nil
	if lim != (evidence.InputLimits{}) {
		c.Result.Limits = &lim
	}
	kept := make([]workload.Input, 0, len(inputs))
	for _, in := range inputs {
		why := ""
		if in.SampleRate > 0 { // an audio clip (stage 9's pairs carry none: nothing declared for them)
			why = lim.Violation(a.Family, in.Seconds, in.SampleRate)
		}
		if why == "" {
			kept = append(kept, in)
			continue
		}
		c.Result.Skipped = append(c.Result.Skipped, evidence.SkippedInput{Clip: in.ID, Seconds: in.Seconds, SampleRate: in.SampleRate, Reason: why})
		c.logf("clip %s not sent: %s", in.ID, why)
	}
	if len(kept) == 0 && len(inputs) > 0 {
		return nil, fmt.Errorf("all %d pinned clips of %s are beyond family %s's declared limits (listed as skipped inputs): nothing can be sent, and a row never qualifies on zero inputs",
			len(inputs), c.Result.Dataset.Path, a.Family)
	}
	return kept, nil
}
