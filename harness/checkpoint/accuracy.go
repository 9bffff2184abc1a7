package checkpoint

import (
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/figures"
	"github.com/trtmc-qual/trtmc-qual/native/family"
)

// gateAccuracy bootstraps the gate's corpus figures over the testcase's pinned dataset
// (figures.GateAccuracy).
func (c *Checkpoint) gateAccuracy(res *family.GateResult) ([]evidence.Accuracy, error) {
	path := ""
	if c.Testcase.Dataset != "" {
		path = filepath.Join(c.Env.Root, c.Testcase.Dataset)
	}
	return figures.GateAccuracy(res, path)
}
