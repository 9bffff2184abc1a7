// Package familytest builds a family's bundles for its own tests. The registry cannot serve
// here: it imports every family, so a family's tests importing it would be an import cycle.
package familytest

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// RepoRoot is the checkout root.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// Build builds a profile of family f from its manifest into a temp dir and opens the bundle.
func Build(tb testing.TB, f family.Family, profile string) (*bundle.Bundle, manifest.Manifest) {
	tb.Helper()
	m, err := manifest.Read(filepath.Join(RepoRoot(), "native", "families", f.Name(), "manifests", profile+".json"))
	if err != nil {
		tb.Fatal(err)
	}
	h, sections, err := f.Build(m)
	if err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(tb.TempDir(), profile+".bundle")
	if err := bundle.WriteFile(path, h, sections); err != nil {
		tb.Fatal(err)
	}
	b, err := bundle.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b, m
}
