package pinned

import (
	"fmt"

	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
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
