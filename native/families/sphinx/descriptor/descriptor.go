// Package descriptor is what cgo-free code knows of the sphinx family (family.Descriptor): the
// runtime beside it links the pocketsphinx decoder (cgo).
package descriptor

import (
	"github.com/trtmc-qual/trtmc-qual/harness/metrics"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// Name is the family's wire identity.
const Name = "sphinx"

// Descriptor: transcripts are compared with pocketsphinx_batch's after TRTMC's family normalizer.
func Descriptor() family.Descriptor {
	norm := metrics.TRTMCFamily()
	return family.Descriptor{Name: Name, Capabilities: []task.Name{task.SpeechTranscription}, UpstreamNormalizer: &norm}
}
