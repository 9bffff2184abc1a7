// Package descriptor is what the harness knows of the procdiff family (family.Descriptor). The
// runtime is pure Go, so the descriptor takes its name and image defaults from it.
package descriptor

import (
	"github.com/trtmc-qual/trtmc-qual/native/families/procdiff"
	"github.com/trtmc-qual/trtmc-qual/native/family"
)

// Descriptor: an image request is completed with the bundle's defaults (procdiff.ImageDefaults).
func Descriptor() family.Descriptor {
	return family.Descriptor{Name: procdiff.Name, Capabilities: procdiff.Family{}.Capabilities(), ImageDefaults: procdiff.ImageDefaults}
}
