package claim

import (
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// Gate is the family gate's figures and verdict derived by the stage (workload GateFigures) from
// the gate's stored outputs, the row's served outputs and the pins, its thresholds the pinned
// ones. Given, not derived: the gate's outputs (the family's native run on the gate inputs, its
// stored result), its family, testcase, bundle, settings and failure messages. A recorded pass is
// derived as one only when the derived figures fail no pinned bound (a recorded failure stays
// one: a gate input the row did not serve is not derived here).
func Gate() Claim {
	claimed := func(r evidence.Result) bool { return r.Gate != nil }
	return of("gate", func(r *evidence.Result) **evidence.GateResult { return &r.Gate }, claimed, deriveGate)
}

func deriveGate(a *Artifacts) (*evidence.GateResult, error) {
	g := a.Row.Gate
	if g == nil || a.Given.GatePins == nil {
		return g, nil // a gate not derived here (a TRTMC family's own test, re-read from its JUnit)
	}
	pins, err := a.Given.GatePins()
	if err != nil {
		return nil, err
	}
	again := *g
	again.Thresholds = maps.Clone(pins.Thresholds.Overrides)
	again.Figures = maps.Clone(g.Figures)
	if a.Given.Stage == nil {
		return nil, errors.New("the row's stage has no workload to derive its gate")
	}
	where := a.Row.Profile
	in := pins
	in.Where, in.Result, in.Pairs = where, a.Row, a.Join.Pairs
	figures, fails, found := a.Given.Stage.GateFigures(in)
	again.Figures, again.Passed = figures, g.Passed && len(fails) == 0
	var errs []error
	if g.Passed && len(fails) > 0 {
		errs = append(errs, fmt.Errorf("gate recorded as passed=true; derived figures against the pinned thresholds say fail: %s", strings.Join(fails, "; ")))
	}
	for _, f := range found {
		if f.Where == where {
			errs = append(errs, errors.New(f.What))
		} else {
			errs = append(errs, fmt.Errorf("%s: %s", f.Where, f.What))
		}
	}
	return &again, errors.Join(errs...)
}
