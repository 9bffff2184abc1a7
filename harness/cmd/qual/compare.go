package main

import (
	"context"
	"errors"
	"flag"
	"io"

	"github.com/trtmc-qual/trtmc-qual/harness/compare"
)

func runCompare(_ context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	out := fs.String("o", "", "also write comparison.md and comparison.json into this directory")
	noise := fs.String("noise-floor", "", "two runs of one build, A1,A2: their speedup per checkpoint is printed beside each light")
	allowMissing := fs.Bool("allow-missing", false, "list rows present in one run only without failing (e.g. a smoke run against a full one)")
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	for _, dir := range fs.Args() {
		if err := checkRunDir(dir, reportedRun); err != nil {
			return err
		}
	}
	err := compare.Dirs(fs.Arg(0), fs.Arg(1), compare.Options{Out: *out, NoisePair: *noise, AllowMissing: *allowMissing}, stdout)
	switch {
	case errors.Is(err, compare.ErrNothingInCommon) || errors.Is(err, compare.ErrUsage):
		return usageError{err}
	case errors.Is(err, compare.ErrInconclusive):
		return undecidedError{err}
	}
	return err
}
