// Package familytest builds a family's bundles for its own tests. The registry cannot serve
// here: it imports every family, so a family's tests importing it would be an import cycle.
package familytest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
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

// GateWithUpstream runs f's gate on b with upstream written as the testcase's expected outputs,
// in a scratch root holding a copy of golden/: how a family test proves its gate fails on a
// wrong upstream transcript.
func GateWithUpstream(tb testing.TB, f family.Family, b *bundle.Bundle, m manifest.Manifest, upstream any) family.GateResult {
	tb.Helper()
	root := tb.TempDir()
	data, err := json.Marshal(upstream)
	if err != nil {
		tb.Fatal(err)
	}
	tc := m.Testcases[0]
	tc.Expected = "upstream.json"
	if err := os.WriteFile(filepath.Join(root, tc.Expected), data, 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(root, "golden"), os.DirFS(filepath.Join(RepoRoot(), "golden"))); err != nil {
		tb.Fatal(err)
	}
	res, err := f.Gate(context.Background(), b, m, tc, family.GateEnv{Root: root, WorkDir: tb.TempDir()})
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// Clips materializes the first testcase's pinned clips and decodes them.
func Clips(tb testing.TB, m manifest.Manifest) ([]dataset.Materialized, []task.Audio) {
	tb.Helper()
	set, err := dataset.ReadASR(filepath.Join(RepoRoot(), m.Testcases[0].Dataset))
	if err != nil {
		tb.Fatal(err)
	}
	mat, err := set.Materialize(RepoRoot(), tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	out := make([]task.Audio, len(mat))
	for i, c := range mat {
		data, err := os.ReadFile(c.Path)
		if err != nil {
			tb.Fatal(err)
		}
		if out[i], err = audio.DecodeWAV(data); err != nil {
			tb.Fatal(err)
		}
	}
	return mat, out
}
