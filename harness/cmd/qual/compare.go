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
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	err := compare.Dirs(fs.Arg(0), fs.Arg(1), *out, stdout)
	if errors.Is(err, compare.ErrNothingInCommon) {
		return usageError{err}
	}
	return err
}
