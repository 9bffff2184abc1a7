package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/attest"
	"github.com/trtmc-qual/trtmc-qual/harness/config"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/report"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
)

// runReport assembles a run and exits 1 when its verdict fails the --fail-on level, so that
// `make qualify-all` and CI follow the verdict rather than only the specs' exit status.
func runReport(_ context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	failOn := fs.String("fail-on", "", "not-qualified (default: exit 1 unless QUALIFIED) or failed (exit 1 only on a FAILED stage); default $QUAL_FAIL_ON")
	out := fs.String("o", "", "render evidence.json and the reports into this directory, leaving the run untouched (required for a signed run)")
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	cfg, err := config.Load()
	if err != nil {
		return usageError{err}
	}
	level := cfg.FailOn
	if *failOn != "" {
		if level, err = config.ParseFailOn(*failOn); err != nil {
			return usageError{err}
		}
	}
	if err := checkRunDir(fs.Arg(0), stageEvidence); err != nil {
		return err
	}
	if *out != "" {
		if *out, err = checkOutDir(*out); err != nil {
			return err
		}
	}
	// A file that is no run file (a link, a FIFO, a bomb) is named before anything else is said.
	if err := runfile.CheckTree(fs.Arg(0)); err != nil {
		return err
	}
	e, err := assembleOrCopy(fs.Arg(0), *out)
	if err != nil {
		return err
	}
	where := fs.Arg(0)
	if *out != "" {
		where = *out
	}
	printSummary(stdout, where, e)
	if !verdictPasses(e, level) {
		return fmt.Errorf("verdict %s fails --fail-on %s", evidence.Verdict(e), level)
	}
	return nil
}

// assembleOrCopy assembles the run in place, or renders it into out. A signed run is never
// rewritten in place: reports from another renderer would no longer match its signature, and
// verify would refuse the run with no word of why.
func assembleOrCopy(runDir, out string) (evidence.Evidence, error) {
	if out != "" {
		e, err := evidence.Collect(runDir)
		if err != nil {
			return e, err
		}
		return e, report.WriteCopy(runDir, out, e)
	}
	if _, err := os.Stat(filepath.Join(runDir, attest.EnvelopeFile)); err == nil {
		return evidence.Evidence{}, usageError{fmt.Errorf("%s is signed (%s): rewriting its reports in place would break the signature; "+
			"render a copy with `qual report -o DIR %s`, or to re-render the run itself: remove %s, run `qual report %s`, then re-sign with `qual sign %s`",
			runDir, attest.EnvelopeFile, runDir, filepath.Join(runDir, attest.EnvelopeFile), runDir, runDir)}
	}
	return report.Assemble(runDir)
}

// verdictPasses applies a --fail-on level to a run.
func verdictPasses(e evidence.Evidence, level config.FailOn) bool {
	if level == config.FailOnFailed {
		for _, s := range e.Stages {
			if s.Status == "failed" {
				return false
			}
		}
		return len(e.Stages) > 0
	}
	return evidence.Verdict(e) == "QUALIFIED"
}

// mustExist makes a path argument that does not exist a usage error (exit 2) with one plain
// message, instead of a failure deep inside the command.
func mustExist(path string) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return usageError{fmt.Errorf("%s does not exist", path)}
	} else if err != nil {
		return usageError{err}
	}
	return nil
}

// printSummary is the one-screen summary at the end of `make qualify`.
func printSummary(w io.Writer, runDir string, e evidence.Evidence) {
	// "run", not "qualification": a smoke or reduced-load run is none, and its stages' statuses
	// are their selected rows' at the load they ran, which each stage's scope line says.
	fmt.Fprintf(w, "\n=== run %s (target %s) ===\n", e.RunID, e.Target)
	run := evidence.ScopeOf(e) // every stage's and row's status word carries it, as the reports' do
	for _, s := range e.Stages {
		fmt.Fprintf(w, "stage %d %-8s %-9s %s\n", s.Number, s.Stage, evidence.StageWord(s.Status, run), s.Reason)
		if sc := evidence.StageScope(s); sc.Narrowed() {
			fmt.Fprintf(w, "    scope: %s\n", evidence.ScopeWords(sc))
		}
		for _, r := range s.Results {
			counted := "recorded"
			if r.Counted {
				counted = "counted"
			}
			fmt.Fprintf(w, "    %-22s %-8s %-9s %s\n", r.Profile, r.Kind, counted, evidence.RowWord(r.Status, run))
		}
	}
	for _, f := range report.FailingRows(e) {
		fmt.Fprintf(w, "FAILED %s/%s: %s\n    what to do: %s (%s)\n", f.Stage, f.Profile, f.First, f.Hint, filepath.Join(runDir, f.Folder))
	}
	if missing := missingStages(e); len(missing) > 0 {
		fmt.Fprintf(w, "WARNING: no evidence of stage(s) %s (their suite did not run or did not finish): the scope counts only the stages present\n", strings.Join(missing, ", "))
	}
	fmt.Fprintf(w, "report:   %s\nevidence: %s\nVerdict: %s\n", filepath.Join(runDir, "qualification.md"), filepath.Join(runDir, "evidence.json"), evidence.Verdict(e))
}

// missingStages are the registered stages the run holds no evidence of: every stage's suite writes
// its stage.json (a stage a selection left out is recorded not selected), so one missing means a
// suite that did not run, and the scope's denominators lack its rows.
func missingStages(e evidence.Evidence) []string {
	var out []string
	for _, n := range stage.Names() {
		if !slices.ContainsFunc(e.Stages, func(s evidence.Stage) bool { return s.Stage == string(n) }) {
			out = append(out, string(n))
		}
	}
	return out
}
