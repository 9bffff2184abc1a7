package checkpoint

import (
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/accuracy"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/native/family"
)

// gateAccuracy bootstraps the gate's corpus figures, resampling the speaker/recording groups the
// testcase's pinned dataset declares as clusters (a clip of one speaker is not independent of
// the speaker's other clips).
func (c *Checkpoint) gateAccuracy(res *family.GateResult) ([]evidence.Accuracy, error) {
	path := ""
	if c.Testcase.Dataset != "" {
		path = filepath.Join(c.Env.Root, c.Testcase.Dataset)
	}
	return accuracy.GateOnDataset(res, path)
}
