package figures

import (
	"github.com/trtmc-qual/trtmc-qual/harness/accuracy"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/native/family"
)

// GateAccuracy bootstraps the gate's corpus figures, resampling the speaker/recording groups the
// testcase's pinned dataset (datasetPath, "" for none) declares as clusters: a clip of one
// speaker is not independent of the speaker's other clips.
func GateAccuracy(res *family.GateResult, datasetPath string) ([]evidence.Accuracy, error) {
	return accuracy.GateOnDataset(res, datasetPath)
}
