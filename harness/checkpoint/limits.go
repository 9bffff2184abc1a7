package checkpoint

// Clip limits: a transcription family may declare a maximum clip duration and a sample
// rate in its manifests, testcases or thresholds. A pinned clip it cannot take is never sent —
// not to the native Task, not over HTTP, not by AIPerf — and the row records it as skipped with
// the limit it breaks and where that limit is declared, so nothing is dropped silently. Which
// clips those are is the admission claim (harness/claim), derived from the clips as stored in
// the run, as `qual verify` derives it again.

import (
	"fmt"
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/claim"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// admit keeps the inputs the row's family can take and records the others in the result (the
// admission claim). A row left with no input is an error: it never qualifies on zero inputs.
func (c *Checkpoint) admit(inputs []workload.Input) ([]workload.Input, error) {
	c.Result.Limits, c.Result.Skipped = nil, nil
	if _, err := c.derive(claim.Admission()); err != nil {
		return nil, fmt.Errorf("input limits: %w", err)
	}
	skipped := map[string]bool{}
	for _, sk := range c.Result.Skipped {
		skipped[sk.Clip] = true
		c.logf("clip %s not sent: %s", sk.Clip, sk.Reason)
	}
	kept := make([]workload.Input, 0, len(inputs))
	for _, in := range inputs {
		if !skipped[in.ID] {
			kept = append(kept, in)
		}
	}
	return kept, nil
}

// inputPins are what the row's stored inputs are derived against (the admission and inputs
// claims): the inputs of its testcase (its pinned dataset, or the clip or prompt it carries
// itself), as stored in the row's directory, and the limits its manifest and its family's
// declare.
func (c *Checkpoint) inputPins() (workload.Admission, bool, error) {
	a, err := inventory.AdmissionOf(c.Row.Manifest)
	if err != nil {
		return workload.Admission{}, false, err
	}
	src := workload.PinnedSource(c.Env.Root, c.Manifest, c.Testcase, c.Result.Dataset.SHA256)
	stored := workload.StoredInputs{RunDir: c.Env.RunDir, Root: c.Env.Root, Where: c.Result.Profile, Source: src, Result: c.Result}
	return workload.Admission{StoredInputs: stored, Dir: filepath.Join(c.Dir, "inputs"), Family: a.Family, Limits: a.Limits()}, true, nil
}
