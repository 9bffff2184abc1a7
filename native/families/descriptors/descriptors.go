// Package descriptors registers every family's cgo-free descriptor (family.Descriptor), apart
// from the runtime registry (native/registry), for code that must not link the families'
// runtimes: the offline verifier and the harness look a family up here instead of naming it.
// Adding a family is its folder plus one line in All.
package descriptors

import (
	"slices"

	procdiff "github.com/trtmc-qual/trtmc-qual/native/families/procdiff/descriptor"
	sphinx "github.com/trtmc-qual/trtmc-qual/native/families/sphinx/descriptor"
	sphinxqa "github.com/trtmc-qual/trtmc-qual/native/families/sphinxqa/descriptor"
	whisper "github.com/trtmc-qual/trtmc-qual/native/families/whisper/descriptor"
	"github.com/trtmc-qual/trtmc-qual/native/family"
)

// All is every family's descriptor.
func All() []family.Descriptor {
	return []family.Descriptor{
		sphinx.Descriptor(),
		procdiff.Descriptor(),
		sphinxqa.Descriptor(),
		whisper.Descriptor(),
	}
}

// Lookup is the descriptor of the family named name; false when no family has that name.
func Lookup(name string) (family.Descriptor, bool) {
	all := All()
	i := slices.IndexFunc(all, func(d family.Descriptor) bool { return d.Name == name })
	if i < 0 {
		return family.Descriptor{}, false
	}
	return all[i], true
}

// With are the names of the families for which has is true, sorted (for messages).
func With(has func(family.Descriptor) bool) []string {
	var out []string
	for _, d := range All() {
		if has(d) {
			out = append(out, d.Name)
		}
	}
	slices.Sort(out)
	return out
}

// TemplatedQAGate says the family's audio-QA gate is the templated reader's (With lists them).
func TemplatedQAGate(d family.Descriptor) bool { return d.QAGateIsTemplatedReader }

// HasImageDefaults says the family completes image requests with defaults a bundle holds.
func HasImageDefaults(d family.Descriptor) bool { return d.ImageDefaults != nil }
