// Package report renders a run's evidence (harness/evidence) for people: qualification.md and
// report.html. It reads the schema and the plot files already written into the run directory;
// it draws nothing itself, so it links no plotting or statistics library and the offline
// verifier can re-render a report to compare it with the one on disk.
package report

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// Write writes qualification.md and report.html for e into runDir.
func Write(runDir string, e evidence.Evidence) error {
	if err := os.WriteFile(filepath.Join(runDir, "qualification.md"), []byte(Markdown(e)), 0o644); err != nil {
		return fmt.Errorf("write qualification.md: %w", err)
	}
	if err := WriteSummary(runDir, e); err != nil {
		return err
	}
	return WriteHTML(runDir, e)
}

// WriteCopy renders the run in runDir into outDir instead (evidence.json, qualification.md and
// report.html, the plots inlined from runDir), leaving the run itself untouched: how a signed
// run is re-rendered without breaking its signature.
func WriteCopy(runDir, outDir string, e evidence.Evidence) error {
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return fmt.Errorf("report copy: %w", err)
	}
	if err := evidence.WriteJSON(filepath.Join(outDir, "evidence.json"), e); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(outDir, "qualification.md"), []byte(Markdown(e)), 0o644); err != nil {
		return fmt.Errorf("write qualification.md: %w", err)
	}
	if err := WriteSummary(outDir, e); err != nil {
		return err
	}
	return writeHTMLTo(runDir, outDir, e)
}

// Assemble merges every <stage>/stage.json under runDir into evidence.json (evidence.Assemble)
// and renders it: what `qual report` and `qual merge` leave in a run directory.
func Assemble(runDir string) (evidence.Evidence, error) {
	if err := runfile.CheckTree(runDir); err != nil {
		return evidence.Evidence{}, err
	}
	e, err := evidence.Assemble(runDir)
	if err != nil {
		return e, err
	}
	return e, Write(runDir, e)
}
