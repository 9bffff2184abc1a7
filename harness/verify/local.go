package verify

import (
	"fmt"
	"path/filepath"
)

// local joins a path taken from the evidence to the run directory, refusing anything that would
// leave it (absolute paths, "..", empty): the evidence is the forger's, the run dir is the bound.
// field names the evidence field in the error.
func local(runDir, field, rel string) (string, error) {
	if rel == "" || filepath.IsAbs(rel) || !filepath.IsLocal(filepath.FromSlash(rel)) {
		return "", fmt.Errorf("%s %q is not a path inside the run directory", field, rel)
	}
	return filepath.Join(runDir, filepath.FromSlash(rel)), nil
}
