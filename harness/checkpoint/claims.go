package checkpoint

import (
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/claim"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
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

// given are the values the claims take from the stage and the pins: the route the join
// matches, the clip length where a record states none, the pinned dataset's groups.
func (c *Checkpoint) given() claim.Given {
	path := ""
	if c.Testcase.Dataset != "" {
		path = filepath.Join(c.Env.Root, c.Testcase.Dataset)
	}
	g := claim.Given{Route: c.W.Route(), Groups: claim.DatasetGroups(path)}
	if ct, ok := c.W.(workload.ClipTimed); ok {
		g.ClipSeconds = ct.ClipSeconds
	}
	return g
}
