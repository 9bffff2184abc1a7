package workload

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/families/descriptors"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// StoredImageDefaults loads, when the row's workload asks (its InputSHA), the request defaults
// of the family that served the row, from the row's stored bundle in runDir.
func StoredImageDefaults(runDir string, r evidence.Result) ImageDefaults {
	return func() (task.ImageSpec, error) { return storedImageDefaults(runDir, r) }
}

// storedImageDefaults are the request defaults of the family that served a row, read from its
// stored bundle (the served one: verify ties it to the evidence), for a workload whose payloads
// leave settings to the family. Only a family whose descriptor states its image defaults is
// known (procdiff, the reference target's image family); another family's records are
// reported, not passed.
func storedImageDefaults(runDir string, r evidence.Result) (task.ImageSpec, error) {
	path, err := InsideDir(runDir, "bundle.path", r.Bundle.Path)
	if err != nil {
		return task.ImageSpec{}, err
	}
	data, err := runfile.Read(path, runfile.LoadedBundle)
	if err != nil {
		return task.ImageSpec{}, err
	}
	b, err := bundle.Parse(data)
	if err != nil {
		return task.ImageSpec{}, fmt.Errorf("bundle %s: %w", path, err)
	}
	d, known := descriptors.Lookup(b.Header.Family)
	if !known || d.ImageDefaults == nil {
		return task.ImageSpec{}, fmt.Errorf("bundle %s is of family %q: verify knows the image defaults of %s only", filepath.Base(path), b.Header.Family,
			strings.Join(descriptors.With(descriptors.HasImageDefaults), ", "))
	}
	return d.ImageDefaults(b)
}
