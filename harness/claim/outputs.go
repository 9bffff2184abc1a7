package claim

import (
	"errors"
	"fmt"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
)

// Outputs is the native/HTTP identity of every stored output: its HTTP output re-derived by the
// stage (workload HTTPOutput) from the stored AIPerf response and server record of its joined
// request, and equal to the native run's output. Given, not derived: the native output (the
// native run's stored result is the artifact; `qual verify --rerun` runs it again), the input's
// id and gold text (tied to the upload and the pins by verify's own checks).
func Outputs() Claim {
	return of("identity", func(r *evidence.Result) *[]evidence.Output { return &r.Outputs }, served, deriveOutputs)
}

func deriveOutputs(a *Artifacts) ([]evidence.Output, error) {
	if _, err := deriveJoin(a); err != nil {
		return nil, err
	}
	if a.Given.Stage == nil {
		return nil, errors.New("the row's stage has no workload to read its responses")
	}
	byID := map[string]join.Pair{}
	for _, p := range a.Join.Pairs {
		byID[p.ID] = p
	}
	var out []evidence.Output
	var errs []error
	for _, o := range a.Row.Outputs {
		p, ok := byID[o.RequestID]
		if !ok {
			errs = append(errs, fmt.Errorf("stored output for %s has no joined request", o.RequestID))
			continue
		}
		again := o
		again.Phase = p.Client.Metadata.Phase
		got, err := a.Given.Stage.HTTPOutput(p)
		again.HTTPOutput = got
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("request %s: %w", o.RequestID, err))
		case got != o.Native:
			errs = append(errs, fmt.Errorf("request %s: native output %q != HTTP output %q", o.RequestID, o.Native, got))
		}
		out = append(out, again)
	}
	return out, errors.Join(errs...)
}

// Meaning is the stage's meaning rule (workload Meaning) over the stored outputs and the joined
// requests, within the thresholds the row's testcase declares.
func Meaning() Claim {
	claimed := func(r evidence.Result) bool { return served(r) && r.Meaning != nil }
	return of("meaning", func(r *evidence.Result) **evidence.Meaning { return &r.Meaning }, claimed, deriveMeaning)
}

func deriveMeaning(a *Artifacts) (*evidence.Meaning, error) {
	if _, err := deriveJoin(a); err != nil {
		return nil, err
	}
	if a.Given.Stage == nil || a.Given.Thresholds == nil {
		return nil, errors.New("the row's stage has no workload or no thresholds to apply its meaning rule")
	}
	th, err := a.Given.Thresholds()
	if err != nil {
		return nil, fmt.Errorf("declared thresholds: %w", err)
	}
	m, err := a.Given.Stage.Meaning(th, a.Row.Outputs, a.Join.Pairs)
	return &m, err
}
