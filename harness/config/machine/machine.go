// Package machine is the configuration of this machine rather than of a checkout: the cache
// `make deps` fills (keys, wheels, venvs), the signing key, and the parity venv the
// tests check this project against. It is a leaf under harness/config, so that `qual sign` and
// `qual verify` read it outside a repository, and the tests of leaf packages (metrics, stats,
// mediadigest) read it without importing the harness.
package machine

import (
	"fmt"
	"os"
	"path/filepath"
)

// Machine is what this machine holds for a run.
type Machine struct {
	Cache      string // $QUAL_CACHE, else ~/.cache/trtmc-qual
	SigningKey string // $QUAL_SIGNING_KEY: the PEM itself ("" = the local key)
	// ParityPython is the python of the parity venv `make deps` builds (jiwer, scikit-image,
	// scipy, securesystemslib, in-toto, junitparser, junit2html): $QUAL_PARITY_PYTHON, else
	// Cache/parity-venv/bin/python.
	ParityPython string
}

// FromEnv reads the machine's configuration; getenv is os.Getenv (tests pass their own).
func FromEnv(getenv func(string) string) (Machine, error) {
	m := Machine{Cache: getenv("QUAL_CACHE"), SigningKey: getenv("QUAL_SIGNING_KEY"), ParityPython: getenv("QUAL_PARITY_PYTHON")}
	if m.Cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return m, fmt.Errorf("no QUAL_CACHE and no home directory for the cache (signing key, wheels, venvs): %w", err)
		}
		m.Cache = filepath.Join(home, ".cache", "trtmc-qual")
	}
	if m.ParityPython == "" {
		m.ParityPython = filepath.Join(m.Cache, "parity-venv", "bin", "python")
	}
	return m, nil
}

// Parity is the parity venv's python, checked to exist. The tests that check this project
// against independent implementations call it; a missing venv is an error that says how to
// make it, never a skip.
func (m Machine) Parity() (string, error) {
	if _, err := os.Stat(m.ParityPython); err != nil {
		return "", fmt.Errorf("parity venv python %s is missing (run `make deps`, or set QUAL_PARITY_PYTHON): %w", m.ParityPython, err)
	}
	return m.ParityPython, nil
}

// ParityFromEnv is FromEnv(getenv).Parity(): what a parity test calls.
func ParityFromEnv(getenv func(string) string) (string, error) {
	m, err := FromEnv(getenv)
	if err != nil {
		return "", err
	}
	return m.Parity()
}
