package checkpoint

import (
	"fmt"
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/accuracy"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/family"
)

// gateAccuracy bootstraps the gate's corpus figures, resampling the speaker/recording groups the
// testcase's pinned dataset declares as clusters (issue #19).
func (c *Checkpoint) gateAccuracy(res *family.GateResult) ([]evidence.Accuracy, error) {
	var groups map[string]string
	if c.Testcase.Dataset != "" {
		var err error
		if groups, err = dataset.Groups(filepath.Join(c.Env.Root, c.Testcase.Dataset)); err != nil {
			return nil, fmt.Errorf("dataset groups: %w", err)
		}
	}
	return accuracy.Gate(res, groups)
}
