package famgen

import (
	"slices"
	"strings"
	"testing"
)

const twoFamilies = `package descriptors

import (
	"github.com/trtmc-qual/trtmc-qual/native/family"
	beta "example.com/m/native/families/beta/descriptor"
	alpha "example.com/m/native/families/alpha/descriptor"
	unused "example.com/m/native/families/gamma/descriptor"
)

func All() []family.Descriptor { return []family.Descriptor{alpha.Descriptor(), beta.Descriptor()} }

func other() family.Descriptor { return unused.Descriptor() }
`

// The families are the descriptor packages All calls, in All's order; a descriptor imported
// but not in All is not registered.
func TestFamiliesAreAllsDescriptorsInOrder(t *testing.T) {
	got, err := Families([]byte(twoFamilies))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"example.com/m/native/families/alpha", "example.com/m/native/families/beta"}
	if !slices.Equal(got, want) {
		t.Fatalf("families %v, want %v", got, want)
	}
	out, err := Render(got)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{`alpha "example.com/m/native/families/alpha"`, "alpha.Family{},", "beta.Family{},"} {
		if !strings.Contains(string(out), line) {
			t.Errorf("rendered file lacks %q:\n%s", line, out)
		}
	}
	if strings.Contains(string(out), "gamma") {
		t.Errorf("a descriptor outside All was registered:\n%s", out)
	}
}

func TestAnEmptyRegistryIsRefused(t *testing.T) {
	if _, err := Families([]byte("package descriptors\nfunc All() {}\n")); err == nil {
		t.Fatal("a registry without descriptors gave no error")
	}
}
