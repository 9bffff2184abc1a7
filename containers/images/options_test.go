package images

import (
	"path/filepath"
	"testing"
)

// Image tags are a hash of their inputs: the parts are length-prefixed, so moving a byte from
// one part to the next changes the tag.
func TestHashOfSeparatesItsParts(t *testing.T) {
	if hashOf("ab", "c") == hashOf("a", "bc") || hashOf("a") != hashOf("a") || len(hashOf("x")) != 12 {
		t.Errorf("hashOf: %s %s %s", hashOf("ab", "c"), hashOf("a", "bc"), hashOf("x"))
	}
}

// An explicit CacheDir wins over QUAL_CACHE, which wins over ~/.cache/trtmc-qual.
func TestCacheDirPrecedence(t *testing.T) {
	explicit, env, home := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("QUAL_CACHE", env)
	t.Setenv("HOME", home)
	if got := (&Builder{CacheDir: explicit}).CacheDirPath(); got != explicit {
		t.Errorf("explicit: %s", got)
	}
	if got := (&Builder{}).CacheDirPath(); got != env {
		t.Errorf("QUAL_CACHE: %s", got)
	}
	t.Setenv("QUAL_CACHE", "")
	if got := (&Builder{}).CacheDirPath(); got != filepath.Join(home, ".cache", "trtmc-qual") {
		t.Errorf("default: %s", got)
	}
}
