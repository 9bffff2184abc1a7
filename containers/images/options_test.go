package images

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/containers/spec"
)

// Image tags are a hash of their inputs: the parts are length-prefixed, so moving a byte from
// one part to the next changes the tag.
func TestHashOfSeparatesItsParts(t *testing.T) {
	if hashOf("ab", "c") == hashOf("a", "bc") || hashOf("a") != hashOf("a") || len(hashOf("x")) != 12 {
		t.Errorf("hashOf: %s %s %s", hashOf("ab", "c"), hashOf("a", "bc"), hashOf("x"))
	}
}

// The cache is the Builder's CacheDir (harness/config reads QUAL_CACHE and passes it), else
// ~/.cache/trtmc-qual; the builder itself reads no environment variable.
func TestCacheDirPrecedence(t *testing.T) {
	explicit, env, home := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("QUAL_CACHE", env)
	t.Setenv("HOME", home)
	if got := (&Builder{CacheDir: explicit}).CacheDirPath(); got != explicit {
		t.Errorf("explicit: %s", got)
	}
	if got := (&Builder{}).CacheDirPath(); got != filepath.Join(home, ".cache", "trtmc-qual") {
		t.Errorf("default (QUAL_CACHE is config's to read): %s", got)
	}
}

// A wheelhouse marker names a constraints file by content, so two checkouts of the same pins
// share one wheelhouse (and the images built from it) instead of downloading and rebuilding.
func TestWheelhouseMarkerIgnoresTheCheckoutPath(t *testing.T) {
	write := func(dir, content string) string {
		p := filepath.Join(dir, "constraints.txt")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := write(t.TempDir(), "x==1\n"), write(t.TempDir(), "x==1\n")
	if ka, kb := markerKey([]string{"-c", a, "pkg"}), markerKey([]string{"-c", b, "pkg"}); ka != kb || strings.Contains(ka, a) {
		t.Errorf("same pins in two checkouts: %q vs %q", ka, kb)
	}
	if markerKey([]string{"-c", a}) == markerKey([]string{"-c", write(t.TempDir(), "x==2\n")}) {
		t.Error("different pins share a marker")
	}
	// `qual images` names the pins relative to the repository root, the suites absolutely.
	t.Chdir(filepath.Dir(a))
	if rel, abs := markerKey([]string{"-c", "constraints.txt", "pkg"}), markerKey([]string{"-c", a, "pkg"}); rel != abs {
		t.Errorf("a relative and an absolute path to the same pins: %q vs %q", rel, abs)
	}
}

// Host binaries are built inside their checkout, not in the shared cache: two checkouts
// qualifying at once (a clone's `make test` beside `make qualify`) never run or package each
// other's trtmc-native, while the cache stays shared.
func TestHostBinariesStayInTheirCheckout(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	da, db := spec.HostBinDir(a), spec.HostBinDir(b)
	if da == db || !strings.HasPrefix(da, a+string(filepath.Separator)) || !strings.HasPrefix(db, b+string(filepath.Separator)) {
		t.Errorf("host binaries of %s and %s go to %s and %s", a, b, da, db)
	}
}
