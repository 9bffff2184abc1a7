// Package descriptor is what cgo-free code knows of the sphinxqa family (family.Descriptor): the
// runtime beside it links the sphinx decoder (cgo).
package descriptor

import (
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// Name is the family's wire identity.
const Name = "sphinxqa"

// Descriptor: the audio-QA gate answers with the templated reader (sphinxqa/reader), on the
// upstream transcript of each clip.
func Descriptor() family.Descriptor {
	return family.Descriptor{Name: Name, Capabilities: []task.Name{task.AudioTextToText}, QAGateIsTemplatedReader: true}
}
