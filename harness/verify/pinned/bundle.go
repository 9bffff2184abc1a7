package pinned

import (
	"fmt"
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/families/procdiff"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// FileSHA256 is a stored file's sha256 (a bundle, a dataset), as the run computed it.
func FileSHA256(path string) (string, error) { return bundle.FileSHA256(path) }

// BundleHeader is what a stored bundle says it was built for.
func BundleHeader(path string) (bundle.Header, error) {
	b, err := bundle.Open(path)
	if err != nil {
		return bundle.Header{}, err
	}
	return b.Header, nil
}

// ImageDefaults loads, when the row's workload asks (workload.InputHasher), the request defaults
// of the family that served the row (imageDefaults).
func ImageDefaults(runDir string, r evidence.Result) workload.ImageDefaults {
	return func() (task.ImageSpec, error) { return imageDefaults(runDir, r) }
}

// imageDefaults are the request defaults of the family that served a row, read from its stored
// bundle (the served one: checkBundle ties it to the evidence), for a workload whose payloads
// leave settings to the family. Only procdiff, the reference target's image family, is known
// here; another family's records are reported, not passed.
func imageDefaults(runDir string, r evidence.Result) (task.ImageSpec, error) {
	path, err := workload.InsideDir(runDir, "bundle.path", r.Bundle.Path)
	if err != nil {
		return task.ImageSpec{}, err
	}
	b, err := bundle.Open(path)
	if err != nil {
		return task.ImageSpec{}, err
	}
	if b.Header.Family != procdiff.Name {
		return task.ImageSpec{}, fmt.Errorf("bundle %s is of family %q: verify knows the image defaults of %s only", filepath.Base(path), b.Header.Family, procdiff.Name)
	}
	mdl, err := procdiff.Family{}.Load(b, family.LoadOptions{Lanes: 1})
	if err != nil {
		return task.ImageSpec{}, err
	}
	defer mdl.Close()
	gen, err := task.Lookup[task.ImageGenerator](mdl, b.Header.Family, task.TextToImage)
	if err != nil {
		return task.ImageSpec{}, err
	}
	return gen.ImageSpec(), nil
}
