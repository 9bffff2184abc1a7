package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

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

// checkOutDir is the one check of an -o destination: a directory that is a run, or lies inside
// one (the run being rendered, or any other), is refused (exit 2) before anything is written,
// wherever the path leads through links, "..", or the working directory. Writing there would
// overwrite a run's files (and break its signature) or add files its signature does not list.
// It returns the destination resolved, which the command writes to: the path checked is the
// path written (filepath.Join would clean a link's ".." away again).
func checkOutDir(out string) (string, error) {
	resolved, err := resolvePath(out)
	if err != nil {
		return "", usageError{fmt.Errorf("%s cannot be an output directory: %w", out, err)}
	}
	// Found only when writing, a file there would fail the command after its verdict was
	// printed, with the exit status of a failed verdict.
	if info, err := os.Stat(resolved); err == nil && !info.IsDir() {
		return "", usageError{fmt.Errorf("%s cannot be an output directory: %s is a file; render into a directory", out, resolved)}
	}
	for d := resolved; ; d = filepath.Dir(d) {
		if isRun(d) {
			where := "it is the run " + d
			if d != resolved {
				where = "it is inside the run " + d
			}
			return "", usageError{fmt.Errorf("%s cannot be an output directory: %s, whose files it would overwrite; render into a directory outside every run", out, where)}
		}
		if filepath.Dir(d) == d {
			return resolved, nil
		}
	}
}

// resolvePath is p as the system walks it: from the working directory, each component in turn,
// a link replaced by where it leads before the next ".." applies (link/.. is the link target's
// parent, not the link's); components that do not exist yet are joined on as they will be made.
func resolvePath(p string) (string, error) { return resolveFrom(p, 0) }

// maxLinks bounds the dangling links followed, as the system's own limit on a path's links does.
const maxLinks = 40

func resolveFrom(p string, depth int) (string, error) {
	cur := string(filepath.Separator)
	if !filepath.IsAbs(p) {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		if cur, err = filepath.EvalSymlinks(wd); err != nil {
			return "", err
		}
	}
	for _, c := range strings.Split(p, string(filepath.Separator)) {
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		real, err := filepath.EvalSymlinks(next)
		switch {
		case err == nil:
			cur = real
		case errors.Is(err, fs.ErrNotExist):
			// Not there yet, or a link to where nothing is yet: writing through the link creates
			// its target, so the target is where the output goes.
			if target, linkErr := os.Readlink(next); linkErr == nil && depth < maxLinks {
				if !filepath.IsAbs(target) {
					target = cur + string(filepath.Separator) + target // unclean: its ".." are walked
				}
				if cur, err = resolveFrom(target, depth+1); err != nil {
					return "", err
				}
				continue
			}
			cur = next
		default:
			return "", err
		}
	}
	return cur, nil
}

// isRun says a directory holds a run: its evidence, its signature or a stage's evidence.
func isRun(dir string) bool {
	return present(filepath.Join(dir, "evidence.json")) || present(filepath.Join(dir, attest.EnvelopeFile)) || hasStageEvidence(dir)
}
