package registry

import (
	"slices"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/native/families/descriptors"
)

// TestEveryFamilyHasADescriptor: the runtime registry and the descriptors' registry name the same
// families, so a family registered in one is never unknown to the other (the verifier would
// otherwise skip its rules).
func TestEveryFamilyHasADescriptor(t *testing.T) {
	fams := Families()
	for name := range fams {
		if _, ok := descriptors.Lookup(name); !ok {
			t.Errorf("family %s has no descriptor in native/families/descriptors", name)
		}
	}
	for _, d := range descriptors.All() {
		if _, ok := fams[d.Name]; !ok {
			t.Errorf("descriptor %s has no runtime in native/registry", d.Name)
		}
	}
}

// TestDescriptorCapabilitiesAreTheRuntimes: an inventory read without the runtime (qual, the
// descriptors) counts a row for exactly the Tasks the runtime serves.
func TestDescriptorCapabilitiesAreTheRuntimes(t *testing.T) {
	for name, f := range Families() {
		d, ok := descriptors.Lookup(name)
		if !ok {
			continue // TestEveryFamilyHasADescriptor reports it
		}
		if got, want := d.Capabilities, f.Capabilities(); len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("family %s: descriptor capabilities %v, runtime %v", name, got, want)
		}
	}
}
