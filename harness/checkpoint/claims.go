package checkpoint

import (
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/claim"
)

// derive stores the claims' records in the row, each derived (harness/claim) from the files the
// row has written so far, read back from the run directory: what the suite derives a claim from
// is exactly what `qual verify` reads. It returns the artifacts for the step's other uses.
func (c *Checkpoint) derive(claims ...claim.Claim) (*claim.Artifacts, error) {
	a := claim.Load(c.Env.RunDir, c.Result, c.given())
	for _, cl := range claims {
		if err := cl.Apply(a, &c.Result); err != nil {
			return a, err
		}
	}
	return a, nil
}

// given are the values the claims take from the stage and the pins: the stage (its route, clip
// lengths, reading of responses, meaning rule), the testcase's declared thresholds, the pinned
// dataset's groups.
func (c *Checkpoint) given() claim.Given {
	path := ""
	if c.Testcase.Dataset != "" {
		path = filepath.Join(c.Env.Root, c.Testcase.Dataset)
	}
	return claim.StageGiven(c.W, claim.DeclaredThresholds(c.Manifest.Path, c.Testcase.Name), claim.DatasetGroups(path))
}
