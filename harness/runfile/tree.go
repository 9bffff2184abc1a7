package runfile

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// MaxFiles bounds the entries of a run: a reference run holds a few hundred files.
const MaxFiles = 100_000

// maxReported is how many refused files an error names before it counts the rest.
const maxReported = 10

// CheckTree admits a run directory before anything reads it: every entry is a directory or a
// regular file under its kind's byte cap (nothing is opened to find out: a link, FIFO or device
// is refused from its directory entry), a line-counted file is within its line cap, every PNG
// declares a size DecodePNG accepts, and there are at most MaxFiles entries. The run itself may
// be named through a link (reports/latest); links inside it are refused.
func CheckTree(runDir string) error {
	root, err := filepath.EvalSymlinks(runDir)
	if err != nil {
		return fmt.Errorf("run directory %s: %w", runDir, err)
	}
	var refused []error
	entries := 0
	walkErr := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if entries++; entries > MaxFiles {
			return fmt.Errorf("more than %d entries; a run holds a few hundred files", MaxFiles)
		}
		if path == root || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if err := checkEntry(path, d, KindOf(rel)); err != nil {
			var e *Error
			if errors.As(err, &e) {
				e.Path = filepath.ToSlash(rel)
			}
			refused = append(refused, err)
		}
		return nil
	})
	if walkErr != nil {
		refused = append(refused, walkErr)
	}
	return refusal(runDir, refused)
}

// checkEntry admits one entry of the tree.
func checkEntry(path string, d fs.DirEntry, k Kind) error {
	if !d.Type().IsRegular() {
		return &Error{path, fmt.Sprintf("not a regular file (%s)", typeName(d.Type()))}
	}
	fi, err := d.Info()
	if err != nil {
		return err
	}
	if err := admit(path, fi, k); err != nil {
		return err
	}
	switch {
	case k.MaxLines() > 0 || k.MaxValues() > 0:
		return checkShapeFile(path, k)
	case k == PNG:
		return checkPNGFile(path)
	}
	return nil
}

// checkShapeFile counts a file's lines and JSON values as a stream (checkShape).
func checkShapeFile(path string, k Kind) error {
	f, err := Open(path, k)
	if err != nil {
		return err
	}
	defer f.Close()
	return checkShape(path, f, k)
}

// checkPNGFile reads only a PNG's header and refuses a declared size DecodePNG would refuse.
func checkPNGFile(path string) error {
	f, err := Open(path, PNG)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := pngConfig(f); err != nil {
		return &Error{path, err.Error()}
	}
	return nil
}

// refusal is nil, or one error naming the run and up to maxReported refused files.
func refusal(runDir string, refused []error) error {
	if len(refused) == 0 {
		return nil
	}
	shown := refused
	if len(shown) > maxReported {
		shown = append(shown[:maxReported:maxReported], fmt.Errorf("and %d more", len(refused)-maxReported))
	}
	return &TreeError{Dir: runDir, Refused: shown}
}

// TreeError is a run directory refused before it was read, with the files that made it so.
type TreeError struct {
	Dir     string
	Refused []error
}

func (e *TreeError) Error() string {
	parts := make([]string, len(e.Refused))
	for i, err := range e.Refused {
		parts[i] = err.Error()
	}
	return fmt.Sprintf("%s refused before reading (a run holds only directories and regular files within their size caps): %s", e.Dir, strings.Join(parts, "; "))
}

// Unwrap lets errors.As find each refused file's *Error.
func (e *TreeError) Unwrap() []error { return e.Refused }
