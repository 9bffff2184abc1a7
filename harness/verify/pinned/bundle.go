package pinned

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/families/descriptors"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// FileSHA256 is a stored file's sha256 (a bundle, a dataset), as the run computed it.
func FileSHA256(path string) (string, error) { return bundle.FileSHA256(path) }

// BundleHeader is what a stored bundle says it was built for.
func BundleHeader(path string) (bundle.Header, error) {
	f, err := runfile.Open(path, runfile.Bundle)
	if err != nil {
		return bundle.Header{}, err
	}
	defer f.Close()
	h, err := bundle.ReadHeader(f)
	if err != nil {
		return h, fmt.Errorf("bundle %s: %w", path, err)
	}
	return h, nil
}

// ImageDefaults loads, when the row's workload asks (its InputSHA), the request defaults
// of the family that served the row (imageDefaults).
func ImageDefaults(runDir string, r evidence.Result) workload.ImageDefaults {
	return func() (task.ImageSpec, error) { return imageDefaults(runDir, r) }
}

// imageDefaults are the request defaults of the family that served a row, read from its stored
// bundle (the served one: checkBundle ties it to the evidence), for a workload whose payloads
// leave settings to the family. Only procdiff, the reference target's image family, is known
// here (from its descriptor); another family's records are reported, not passed.
func imageDefaults(runDir string, r evidence.Result) (task.ImageSpec, error) {
	path, err := workload.InsideDir(runDir, "bundle.path", r.Bundle.Path)
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
