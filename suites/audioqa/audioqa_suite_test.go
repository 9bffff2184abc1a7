package audioqa_test

import (
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/suites/qualify"
)

// Stage 9: one recorded clip + a question → an answer, over POST /v1/chat/completions with
// input_audio parts (AIPerf endpoint type chat). The fixed QA pairs are in golden/audioqa/.
var suite = qualify.NewSuite(stage.AudioQA)

var _ = suite.Describe("Stage 9: audio question answering")

func init() { suite.Lifecycle() }

func TestStage9AudioQA(t *testing.T) {
	qualify.Run(t, suite, "Stage 9 (audioqa): audio question answering")
}
