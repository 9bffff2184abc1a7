// Package reference answers inventory's capability questions from the reference runtime's family
// registry. It is the only part of inventory that links the native families (cgo PocketSphinx),
// kept apart so that inventory — and evidence and verify, which read its rows — build without
// cgo.
package reference

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/registry"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// Capabilities asks the reference runtime's family registry what a family implements.
func Capabilities(familyName, _ string) ([]task.Name, []task.Control, error) {
	f, err := registry.Lookup(familyName)
	if err != nil {
		return nil, nil, err
	}
	return f.Capabilities(), nil, nil
}

// ControlsFromBundle builds a manifest's bundle into a scratch directory and reads the Task
// controls the loaded model declares.
func ControlsFromBundle(manifestPath string, want task.Name) ([]string, error) {
	m, err := manifest.Read(manifestPath)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "inventory-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	b, err := registry.Build(m, filepath.Join(dir, m.Name+".bundle"))
	if err != nil {
		return nil, err
	}
	l, err := registry.Load(b.Path, family.LoadOptions{Lanes: 1})
	if err != nil {
		return nil, err
	}
	defer l.Model.Close()
	for _, info := range l.Model.Tasks() {
		if info.Name == want {
			var names []string
			for _, c := range info.Controls {
				names = append(names, c.Name)
			}
			return names, nil
		}
	}
	return nil, fmt.Errorf("bundle of %s does not declare %s", m.Name, want)
}
