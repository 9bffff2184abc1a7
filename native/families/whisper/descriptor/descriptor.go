// Package descriptor is what cgo-free code knows of the whisper family (family.Descriptor).
package descriptor

import (
	"github.com/trtmc-qual/trtmc-qual/harness/metrics"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// Name is the family's wire identity.
const Name = "whisper"

// Descriptor: transcripts are compared with the upstream faster-whisper transcripts exactly.
func Descriptor() family.Descriptor {
	norm := metrics.Identity()
	return family.Descriptor{Name: Name, Capabilities: []task.Name{task.SpeechTranscription}, UpstreamNormalizer: &norm}
}
