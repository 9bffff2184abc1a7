// Package parity locates the independent implementations this project is checked against: the
// parity venv that `make deps` builds (jiwer, scikit-image, scipy, securesystemslib, in-toto,
// junitparser, junit2html). A leaf package, so that the tests of the leaf packages can use it.
package parity

import (
	"fmt"
	"os"
	"path/filepath"
)

// Python is the python of the parity venv that `make deps` builds (jiwer, scikit-image,
// scipy, securesystemslib, junitparser ...): $QUAL_PARITY_PYTHON, else
// $QUAL_CACHE/parity-venv/bin/python, else ~/.cache/trtmc-qual/parity-venv/bin/python. The tests
// that check this project against independent implementations call it; a missing venv is an
// error that says how to make it, never a skip.
func Python(getenv func(string) string) (string, error) {
	py := getenv("QUAL_PARITY_PYTHON")
	if py == "" {
		cache := getenv("QUAL_CACHE")
		if cache == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return "", fmt.Errorf("parity venv: no QUAL_PARITY_PYTHON, no QUAL_CACHE and no home directory: %w", err)
			}
			cache = filepath.Join(home, ".cache", "trtmc-qual")
		}
		py = filepath.Join(cache, "parity-venv", "bin", "python")
	}
	if _, err := os.Stat(py); err != nil {
		return "", fmt.Errorf("parity venv python %s is missing (run `make deps`, or set QUAL_PARITY_PYTHON): %w", py, err)
	}
	return py, nil
}
