// Package reference answers inventory's capability questions for the embedded reference target
// from its families' cgo-free descriptors (native/families/descriptors, which state the Tasks each
// runtime implements). It links no family runtime, so qual's inventory builds without cgo.
package reference

import (
	"fmt"

	"github.com/trtmc-qual/trtmc-qual/native/families/descriptors"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// Capabilities says what a reference family implements, as its descriptor states it (a test in
// native/registry holds every descriptor to its runtime).
func Capabilities(familyName, _ string) ([]task.Name, []task.Control, error) {
	d, ok := descriptors.Lookup(familyName)
	if !ok {
		all := descriptors.With(func(family.Descriptor) bool { return true })
		return nil, nil, fmt.Errorf("unknown family %q (this runtime has %v)", familyName, all)
	}
	return d.Capabilities, nil, nil
}
