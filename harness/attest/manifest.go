package attest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"sort"

	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// File is one manifest entry: a path relative to the run directory (slash-separated) and the
// hex sha256 of its content.
type File struct {
	Path   string
	SHA256 string
}

// Manifest lists every regular file under runDir with its sha256, sorted by path, leaving out
// the envelope and the recorded public key (they cannot be their own subjects). A symlink or
// other non-regular file is refused: what a link points to can change without the run changing.
func Manifest(runDir string) ([]File, error) {
	var files []File
	runDir = resolved(runDir)
	err := filepath.WalkDir(runDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(runDir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			return nil
		case rel == EnvelopeFile || rel == PublicKeyFile:
			return nil
		case !d.Type().IsRegular():
			return fmt.Errorf("%s: not a regular file (%s); a published run holds only files", rel, d.Type())
		}
		sum, err := fileSHA256(path, runfile.KindOf(rel))
		if err != nil {
			return err
		}
		files = append(files, File{Path: rel, SHA256: sum})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("manifest of %s: %w", runDir, err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// resolved is runDir with symbolic links resolved: a run named through a link (reports/latest)
// is the directory the link points to; links inside the run stay refused by Manifest.
func resolved(runDir string) string {
	if dir, err := filepath.EvalSymlinks(runDir); err == nil {
		return dir
	}
	return runDir
}

func fileSHA256(path string, k runfile.Kind) (string, error) {
	f, err := runfile.Open(path, k)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
