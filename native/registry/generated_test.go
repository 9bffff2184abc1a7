package registry

import (
	"bytes"
	"os"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/native/registry/internal/famgen"
)

// TestFamiliesFileIsUpToDate: families_gen.go is what famgen writes from the descriptors'
// registry, so a family added there (its one registration line) has its runtime here too.
func TestFamiliesFileIsUpToDate(t *testing.T) {
	src, err := os.ReadFile("../families/descriptors/descriptors.go")
	if err != nil {
		t.Fatal(err)
	}
	folders, err := famgen.Families(src)
	if err != nil {
		t.Fatal(err)
	}
	want, err := famgen.Render(folders)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("families_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("native/registry/families_gen.go is stale: run `go generate ./native/registry`")
	}
}
