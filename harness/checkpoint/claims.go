package checkpoint

import (
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/claim"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// derive stores the claims' records in the row, each derived (harness/claim) from the files the
// row has written so far, read back from the run directory: what the suite derives a claim from
// is exactly what `qual verify` reads. It returns the artifacts for the step's other uses.
func (c *Checkpoint) derive(claims ...claim.Claim) (*claim.Artifacts, error) {
	return c.deriveWith(c.given(), claims...)
}

// deriveWith is derive with what the claims are given.
func (c *Checkpoint) deriveWith(given claim.Given, claims ...claim.Claim) (*claim.Artifacts, error) {
	a := claim.Load(c.Env.RunDir, c.Result, given)
	for _, cl := range claims {
		if err := cl.Apply(a, &c.Result); err != nil {
			return a, err
		}
	}
	return a, nil
}

// given are the values the claims take from the stage and the pins: the stage (its route, clip
// lengths, reading of responses, meaning rule, input identities), the testcase's declared
// thresholds, the pinned dataset's groups, what the stored inputs are derived against, what the
// target kind's records carry.
func (c *Checkpoint) given() claim.Given {
	path := ""
	if c.Testcase.Dataset != "" {
		path = filepath.Join(c.Env.Root, c.Testcase.Dataset)
	}
	g := claim.StageGiven(c.W, workload.DeclaredThresholds(c.Manifest.Path, c.Testcase.Name), claim.DatasetGroups(path))
	g.InputPins, g.Target = c.inputPins, c.Env.Target.Traits()
	return g
}

// gateGiven is what the claims are given with what a reference gate is derived against, its pinned thresholds read from
// thresholdsPath (their pin checked by the gate step).
func (c *Checkpoint) gateGiven(thresholdsPath string) claim.Given {
	g := c.given()
	g.GatePins = func() (workload.GateInputs, error) {
		th, err := manifest.ReadThresholds(thresholdsPath)
		return workload.GateInputs{Root: c.Env.Root, Testcase: c.Testcase, Thresholds: th}, err
	}
	return g
}
