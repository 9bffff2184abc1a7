package verify

import (
	"bytes"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"

	"github.com/trtmc-qual/trtmc-qual/harness/report"
	"github.com/trtmc-qual/trtmc-qual/harness/report/doc"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// markdownCheck: qualification.md is the run's document (report.Build, from evidence.json and
// the rows' data) rendered as Markdown, byte for byte, and the figures it shows are its
// pictures drawn again from the rows' exports and records: the figures directory holds each
// of them, byte for byte, and nothing else.
func markdownCheck(r *Run) []Problem {
	d := report.Build(r.Evidence, r.Pictures)
	return problemsFrom(func(say reporter) {
		compareRendering(r.Dir, "qualification.md", []byte(doc.Markdown(d)), say)
		checkFigures(r.Dir, report.FigureFiles(d), say)
	})
}

// checkFigures requires the run's figures directory to hold exactly the pictures drawn again.
func checkFigures(runDir string, want map[string][]byte, say reporter) {
	paths := make([]string, 0, len(want))
	for p := range want {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		stored, err := runfile.ReadIn(runDir, p)
		if err != nil {
			say(p, "a picture qualification.md shows is missing: %v", err)
			continue
		}
		if !bytes.Equal(stored, want[p]) {
			say(p, "is not the picture drawn from the row's stored exports and records (redrawn or edited: %s)", differingLine(stored, want[p]))
		}
	}
	dir := filepath.Join(runDir, report.FigureDir)
	if _, err := os.Lstat(dir); err != nil {
		return
	}
	_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(runDir, p)
		if _, ok := want[filepath.ToSlash(rel)]; !ok {
			say(path.Clean(filepath.ToSlash(rel)), "is in the figures directory but is no picture the report draws from the run's data")
		}
		return nil
	})
}
