package claim

import (
	"errors"
	"fmt"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// Admission is which pinned inputs the row sent and which it skipped: the limits of the row's
// manifest (given by the pins) applied, for a stage that admits inputs by clip limits
// (workload.Admitter), to each of its stored clips (its length and sample rate decoded again).
// The record is the limits and the clips that break one, each with its reason; a row that
// serves a skipped clip, or one left with no clip that is not failed, is named; a row that names
// no dataset admitted nothing. Given, not derived: the sources of a declared limit whose value is
// the pinned one, for a row whose manifest is in the TRTMC checkout (a TRTMC-layout copy of a
// manifest may name another sibling as the source of the same family limit).
func Admission() Claim {
	return Claim{
		Name:    "admission",
		Claimed: func(evidence.Result) bool { return true },
		derive:  func(a *Artifacts) (any, error) { return deriveAdmission(a) },
		stored:  func(r *evidence.Result) any { return Admitted{Limits: r.Limits, Skipped: r.Skipped} },
		store: func(r *evidence.Result, v any) {
			ad := v.(Admitted)
			r.Limits, r.Skipped = ad.Limits, ad.Skipped
		},
	}
}

// Admitted is what the admission claim derives (evidence's fields of the same names).
type Admitted struct {
	Limits  *evidence.InputLimits   `json:"input_limits,omitempty"`
	Skipped []evidence.SkippedInput `json:"skipped_inputs,omitempty"`
}

func deriveAdmission(a *Artifacts) (Admitted, error) {
	if a.Given.InputPins == nil {
		return Admitted{Limits: a.Row.Limits, Skipped: a.Row.Skipped}, nil // not derived here
	}
	if a.Row.Dataset.Path == "" {
		// The suite names the dataset before it admits anything: a row that names none (its
		// gate only, say) admitted nothing, so it records no limits and skipped no input.
		return Admitted{}, nil
	}
	in, ok, err := a.Given.InputPins()
	if !ok {
		return Admitted{}, err // the pins name nothing the inputs are admitted against (the inputs claim says why)
	}
	errs := each(err)
	var rec Admitted
	if in.Limits != (evidence.InputLimits{}) {
		lim := in.Limits
		rec.Limits = &lim
	}
	ad, admits := a.Given.Stage.(workload.Admitter)
	if !admits {
		return rec, errors.Join(errs...)
	}
	clips, err := ad.StoredClips(in)
	if err != nil {
		return Admitted{}, errors.Join(append(errs, err)...)
	}
	for _, c := range clips {
		seconds, rate, err := workload.ClipOf(c.Path)
		if err != nil {
			errs = append(errs, fmt.Errorf("clip %s: stored input not readable, its limits cannot be applied: %w", c.ID, err))
			continue
		}
		if why := in.Limits.Violation(in.Family, seconds, rate); why != "" {
			rec.Skipped = append(rec.Skipped, evidence.SkippedInput{Clip: c.ID, Seconds: seconds, SampleRate: rate, Reason: why})
		}
	}
	return rec, errors.Join(append(errs, admittedErrors(a.Row, in, len(clips), rec.Skipped)...)...)
}

// admittedErrors are what a row's outputs and status say against its admission: nothing served
// from a skipped clip, and a row left with no clip to send failed (it never qualifies on zero
// inputs).
func admittedErrors(r evidence.Result, in workload.Admission, clips int, skipped []evidence.SkippedInput) []error {
	var errs []error
	isSkipped := map[string]bool{}
	for _, sk := range skipped {
		isSkipped[sk.Clip] = true
	}
	for _, o := range r.Outputs {
		if isSkipped[o.InputID] {
			errs = append(errs, fmt.Errorf("request %s served clip %s, which breaks the limits it is admitted under", o.RequestID, o.InputID))
		}
	}
	if clips > 0 && len(skipped) == clips && r.Status != evidence.StatusFailed {
		errs = append(errs, fmt.Errorf("all %d pinned clips of %s are beyond family %s's declared limits (listed as skipped inputs): nothing can be sent, and a row never qualifies on zero inputs (the row is %s)",
			clips, r.Dataset.Path, in.Family, r.Status))
	}
	return errs
}
