package asr_test

import (
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/suites/qualify"
)

// Stage 3: one complete recorded WAV clip per request → one final transcript, over
// POST /v1/audio/transcriptions (AIPerf endpoint type audio_transcription).
var suite = qualify.NewSuite(stage.ASR)

var _ = suite.Describe("Stage 3: recorded-clip transcription")

func init() { suite.Lifecycle() }

func TestStage3ASR(t *testing.T) {
	qualify.Run(t, suite, "Stage 3 (asr): recorded-clip transcription")
}
