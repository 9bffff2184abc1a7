package claim

import (
	"fmt"

	"github.com/trtmc-qual/trtmc-qual/harness/accuracy"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
)

// Accuracy are the gate's corpus figures with their bootstrap intervals (harness/accuracy),
// clustered by the given speaker/recording groups of the pinned dataset. A row whose status says
// its gate step went through (the suite derives this claim with the gate's, in that step) makes
// it whether or not it stores intervals: a row stripped of them, which would drop an inconclusive
// interval from the report, is one whose intervals are derived again and named missing.
func Accuracy() Claim {
	claimed := func(r evidence.Result) bool {
		return len(r.Accuracy) > 0 || (r.Gate != nil && (r.Status == evidence.StatusQualified || r.Status == evidence.StatusFamilyValidated))
	}
	return of("accuracy intervals", func(r *evidence.Result) *[]evidence.Accuracy { return &r.Accuracy }, claimed, deriveAccuracy)
}

func deriveAccuracy(a *Artifacts) ([]evidence.Accuracy, error) {
	var groups map[string]string
	if a.Given.Groups != nil {
		var err error
		if groups, err = a.Given.Groups(); err != nil {
			return nil, fmt.Errorf("dataset groups: %w", err)
		}
	}
	return accuracy.Gate(a.Row.Gate, groups)
}

// DatasetGroups reads the groups of the pinned dataset at path ("" for a testcase that names
// none: no groups), as Given.Groups.
func DatasetGroups(path string) func() (map[string]string, error) {
	return func() (map[string]string, error) {
		if path == "" {
			return nil, nil
		}
		return dataset.Groups(path)
	}
}
