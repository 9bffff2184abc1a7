package verify

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// PinSource says where the pinned inputs a run is checked against come from: the repository
// root, how it was found, and the checkout's `git describe` (as versions.trtmc-qual records it).
type PinSource struct {
	Root   string
	How    string // "QUAL_ROOT" or "the working directory"
	Commit string // "unknown" outside a git checkout
}

func (p PinSource) String() string {
	return fmt.Sprintf("pins from %s (%s), commit %s", p.Root, p.How, p.Commit)
}

// Options are what the caller's configuration (harness/config) says about where to look: the
// repository root whose pins a run is checked against and how it was found, and the TRTMC
// checkout a trtmc run used. Zero values: the nearest repository above the working directory,
// and no TRTMC checkout.
type Options struct {
	Root, RootFrom string
	TRTMCRoot      string
	// WithoutBundles accepts a run published without its bundle files (the CI upload): a row
	// whose bundle is absent has its sha256 and header taken as recorded, and says so.
	WithoutBundles bool
	// Cache and Python are the machine's cache and worker interpreter (harness/config), passed
	// to the gates --rerun runs as trtmc-native's flags (it reads no environment).
	Cache, Python string
}

// findPins locates the repository whose pinned inputs the run is checked against: the caller's
// root, or the nearest directory above the working directory holding golden/thresholds.sha256.
// A root inside the run directory is refused: pins shipped with a run would check the run
// against itself (thresholds loosened beside the edited evidence).
func findPins(runDir string, opts Options) (pins, PinSource, error) {
	src, err := pinRoot(opts)
	if err != nil {
		return pins{}, src, err
	}
	if inside(src.Root, runDir) {
		return pins{}, src, fmt.Errorf("the pins root %s (%s) is inside the run directory %s: a run cannot carry the pins it is checked against; run from the checkout or set QUAL_ROOT to it", src.Root, src.How, runDir)
	}
	src.Commit = gitDescribe(src.Root)
	return pins{Root: src.Root, TRTMCRoot: opts.TRTMCRoot}, src, nil
}

func pinRoot(opts Options) (PinSource, error) {
	if opts.Root != "" {
		abs, err := filepath.Abs(opts.Root)
		return PinSource{Root: abs, How: opts.RootFrom}, err
	}
	dir, err := os.Getwd()
	if err != nil {
		return PinSource{}, err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "golden", "thresholds.sha256")); err == nil {
			return PinSource{Root: dir, How: "the working directory"}, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return PinSource{}, fmt.Errorf("no repository with golden/thresholds.sha256 above the working directory: run from the checkout or set QUAL_ROOT")
		}
		dir = parent
	}
}

// inside reports whether dir is runDir or below it, after resolving links on both.
func inside(dir, runDir string) bool {
	real := func(p string) string {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		return p
	}
	rel, err := filepath.Rel(real(runDir), real(dir))
	return err == nil && filepath.IsLocal(rel)
}

// gitDescribe is the checkout's `git describe --always --dirty`, the form versions.trtmc-qual
// records (harness/sysinfo), or "unknown".
func gitDescribe(root string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "-C", root, "describe", "--always", "--dirty").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// pinNotes are said, never failed: the run was made from another commit than the pins (its
// thresholds or manifests may differ), or the run's id is not its directory's name (a copy).
func pinNotes(src PinSource, recordedCommit, runID, runDir string) []string {
	var notes []string
	if recordedCommit != src.Commit {
		notes = append(notes, fmt.Sprintf("WARNING: the run was made at trtmc-qual %s, the pins are from %s: pinned files may differ between the two", orUnknown(recordedCommit), src.Commit))
	}
	if name := filepath.Base(resolvedDir(runDir)); name != runID {
		notes = append(notes, fmt.Sprintf("NOTE: run_id %q is not the directory's name %q (a copied or renamed run)", runID, name))
	}
	return notes
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func resolvedDir(dir string) string {
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return r
	}
	return dir
}
