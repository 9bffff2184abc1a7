// Package report renders a run's evidence (harness/evidence) for people: qualification.md,
// its figures and report.html. It draws every picture itself from the rows' stored exports and
// records (harness/claim's picture data, harness/report/chart's SVG), linking no plotting
// library, so the offline verifier re-renders every file, pictures included, and compares.
package report

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/report/doc"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// Write writes qualification.md, its figures, summary.json and report.html for e into runDir,
// the pictures drawn from runDir's files.
func Write(runDir string, e evidence.Evidence) error { return writeTo(runDir, runDir, e) }

// WriteCopy renders the run in runDir into outDir instead (evidence.json, qualification.md
// and its figures, summary.json and report.html, the pictures drawn from runDir's files),
// leaving the run itself untouched: how a signed run is re-rendered without breaking its
// signature.
func WriteCopy(runDir, outDir string, e evidence.Evidence) error {
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return fmt.Errorf("report copy: %w", err)
	}
	if err := evidence.WriteJSON(filepath.Join(outDir, "evidence.json"), e); err != nil {
		return err
	}
	return writeTo(runDir, outDir, e)
}

func writeTo(runDir, outDir string, e evidence.Evidence) error {
	d := Build(e, LoadPictures(runDir, e))
	if base, err := runFrom(runDir, outDir); err != nil {
		return err
	} else if base != "" {
		doc.Rebase(d, base)
	}
	if err := writeFigures(outDir, d); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(outDir, "qualification.md"), []byte(doc.Markdown(d)), 0o644); err != nil {
		return fmt.Errorf("write qualification.md: %w", err)
	}
	if err := WriteSummary(outDir, e); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(outDir, "report.html"), doc.HTML(d), 0o644); err != nil {
		return fmt.Errorf("write report.html: %w", err)
	}
	return nil
}

// runFrom is runDir as a link from a file in outDir: "" when they are the same directory, else
// the relative path (an absolute one where there is none), ending in "/".
func runFrom(runDir, outDir string) (string, error) {
	run, err := filepath.Abs(runDir)
	if err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	out, err := filepath.Abs(outDir)
	if err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	if run == out {
		return "", nil
	}
	if rel, err := filepath.Rel(out, run); err == nil {
		run = rel
	}
	return filepath.ToSlash(run) + "/", nil
}

// writeFigures replaces outDir's figures directory with d's pictures (FigureFiles), so that
// it holds no picture of an earlier rendering.
func writeFigures(outDir string, d doc.Document) error {
	dir := filepath.Join(outDir, FigureDir)
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("figures: %w", err)
	}
	files := FigureFiles(d)
	if len(files) == 0 {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("figures: %w", err)
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if err := os.WriteFile(filepath.Join(outDir, filepath.FromSlash(p)), files[p], 0o644); err != nil {
			return fmt.Errorf("write figure: %w", err)
		}
	}
	return nil
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
