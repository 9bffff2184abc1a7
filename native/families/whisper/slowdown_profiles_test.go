package whisper

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/native/family/familytest"
)

// manifestProfiles lists every profile the family has a manifest for.
func manifestProfiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(familytest.RepoRoot(), "native", "families", Family{}.Name(), "manifests", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("manifests: %v, %v", files, err)
	}
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = strings.TrimSuffix(filepath.Base(f), ".json")
	}
	return out
}
