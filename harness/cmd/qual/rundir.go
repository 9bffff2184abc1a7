package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/attest"
)

// runHolds is what a command needs a run directory to hold.
type runHolds int

const (
	stageEvidence runHolds = iota // the suites' <stage>/stage.json (report, merge)
	reportedRun                   // evidence.json, which qual report writes (sign, verify, compare)
)

// checkRunDir is the one check every command makes of a run directory argument: a path that
// is not one, or a signed run that lost its evidence, is a usage error (exit 2) with the same
// message whichever command was given it, saying what is missing.
func checkRunDir(dir string, holds runHolds) error {
	why := ""
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		why = "it does not exist"
	case err != nil:
		why = err.Error()
	case !info.IsDir():
		why = "it is a file"
	case present(filepath.Join(dir, attest.EnvelopeFile)) && !present(filepath.Join(dir, "evidence.json")):
		// A signed run lost a file its signature covers: telling the reader to write it with
		// qual report would break the signature the run exists to carry.
		return usageError{fmt.Errorf("%s is a signed run without its evidence.json, a file its signature (%s) covers: copy the run again from where it was published", dir, attest.EnvelopeFile)}
	case holds == reportedRun && !present(filepath.Join(dir, "evidence.json")):
		why = "it holds no evidence.json (qual report writes it)"
	case holds == stageEvidence && !hasStageEvidence(dir):
		why = "it holds no stage evidence (<stage>/stage.json, which the suites write)"
	}
	if why == "" {
		return nil
	}
	return usageError{fmt.Errorf("%s is not a run directory: %s", dir, why)}
}

// present says the entry exists, whatever it is: an evidence.json that is a link or a FIFO makes
// a run directory with a bad file, which the run-file check (harness/runfile) names (exit 1).
func present(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func hasStageEvidence(dir string) bool {
	paths, err := filepath.Glob(filepath.Join(dir, "*", "stage.json"))
	return err == nil && len(paths) > 0
}
