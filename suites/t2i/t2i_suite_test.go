package t2i_test

import (
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/suites/qualify"
)

// Stage 6: one prompt → one image at one fixed size with explicit steps, guidance and seed,
// over POST /v1/images/generations (AIPerf endpoint type image_generation).
var suite = qualify.NewSuite(stage.T2I)

var _ = suite.Describe("Stage 6: text-to-image")

func init() { suite.Lifecycle() }

func TestStage6T2I(t *testing.T) {
	qualify.Run(t, suite, "Stage 6 (t2i): text-to-image")
}
