// Package registry maps family names to their implementations and opens bundles through them.
package registry

import (
	"fmt"
	"sort"

	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

//go:generate go run ./internal/famgen/cmd ../..

// Families returns every family the reference runtime ships, by name: one runtime per
// descriptor registered in native/families/descriptors (families_gen.go is generated from it).
func Families() map[string]family.Family {
	fams := runtimes()
	out := make(map[string]family.Family, len(fams))
	for _, f := range fams {
		out[f.Name()] = f
	}
	return out
}

// Lookup finds a family by name.
func Lookup(name string) (family.Family, error) {
	fams := Families()
	f, ok := fams[name]
	if !ok {
		names := make([]string, 0, len(fams))
		for n := range fams {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("unknown family %q (this runtime has %v)", name, names)
	}
	return f, nil
}

// Build builds the bundle a manifest describes and writes it to out, with the families' tools
// where they are by default.
func Build(m manifest.Manifest, out string) (*bundle.Bundle, error) {
	return BuildOn(m, out, family.Host{})
}

// BuildOn is Build with the family bound to host's tools (family.OnHost).
func BuildOn(m manifest.Manifest, out string, host family.Host) (*bundle.Bundle, error) {
	f, err := Lookup(m.Family)
	if err != nil {
		return nil, fmt.Errorf("build %s: %w", m.Name, err)
	}
	f = family.OnHost(f, host)
	h, sections, err := f.Build(m)
	if err != nil {
		return nil, fmt.Errorf("build %s: %w", m.Name, err)
	}
	if err := bundle.WriteFile(out, h, sections); err != nil {
		return nil, fmt.Errorf("build %s: %w", m.Name, err)
	}
	return bundle.Open(out)
}

// Loaded is an opened bundle and the model its family loaded from it.
type Loaded struct {
	Bundle *bundle.Bundle
	Family family.Family
	Model  task.Model
}

// Load opens a bundle file and loads it through its family, bound to opts.Host.
func Load(path string, opts family.LoadOptions) (*Loaded, error) {
	b, err := bundle.Open(path)
	if err != nil {
		return nil, err
	}
	f, err := Lookup(b.Header.Family)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", path, err)
	}
	f = family.OnHost(f, opts.Host)
	m, err := f.Load(b, opts)
	if err != nil {
		return nil, err
	}
	return &Loaded{Bundle: b, Family: f, Model: m}, nil
}
