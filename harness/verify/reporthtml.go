package verify

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// checkHTML re-renders report.html from evidence.json and the run's plots, as `qual report`
// wrote it, and requires the stored page to be that page: its verdict and lights are the
// evidence's, not an edit.
func checkHTML(runDir string, e evidence.Evidence, report reporter) {
	stored, err := os.ReadFile(filepath.Join(runDir, "report.html"))
	if err != nil {
		report("report.html", "%v", err)
		return
	}
	want, err := evidence.HTML(runDir, e)
	if err != nil {
		report("report.html", "not re-renderable from evidence.json: %v", err)
		return
	}
	if !bytes.Equal(stored, want) {
		report("report.html", "does not match evidence.json (re-rendered page differs: %s)", differingLine(stored, want))
	}
}
