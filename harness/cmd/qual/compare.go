package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/compare"
)

func runCompare(_ context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	out := fs.String("o", "", "also write comparison.md and comparison.json into this directory")
	noise := fs.String("noise-floor", "", "two runs of one build, A1,A2: their speedup per checkpoint is printed beside each light")
	allowMissing := fs.Bool("allow-missing", false, "list rows present in one run only without failing (e.g. a smoke run against a full one)")
	paired := fs.Bool("paired", false, "interleaved pairs (make compare-ab): DIR holding A1…Ak and B1…Bk, or A1,…,Ak B1,…,Bk; decides on ln(new/base) per pair")
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	if *out != "" {
		var err error
		if *out, err = checkOutDir(*out); err != nil {
			return err
		}
	}
	o := compare.Options{Out: *out, NoisePair: *noise, AllowMissing: *allowMissing}
	var err error
	if *paired {
		err = comparePaired(fs.Args(), o, stdout)
	} else {
		err = compareTwo(fs.Arg(0), fs.Arg(1), o, stdout)
	}
	switch {
	case errors.Is(err, compare.ErrNothingInCommon) || errors.Is(err, compare.ErrUsage):
		return usageError{err}
	case errors.Is(err, compare.ErrInconclusive):
		return undecidedError{err}
	}
	return err
}

func compareTwo(base, cand string, o compare.Options, stdout io.Writer) error {
	if cand == "" {
		return usageError{fmt.Errorf("missing argument: qual compare reports/BASE reports/NEW (one directory only with --paired)")}
	}
	for _, dir := range []string{base, cand} {
		if err := checkRunDir(dir, reportedRun); err != nil {
			return err
		}
	}
	return compare.Dirs(base, cand, o, stdout)
}

// comparePaired reads the pairs from one directory (make compare-ab's) or two comma lists.
func comparePaired(args []string, o compare.Options, stdout io.Writer) error {
	if o.NoisePair != "" {
		return fmt.Errorf("%w: --noise-floor has no meaning with --paired: the pairs are their own noise", compare.ErrUsage)
	}
	var base, cand []string
	switch len(args) {
	case 1:
		var err error
		if base, cand, err = compare.PairDirs(args[0]); err != nil {
			return err
		}
	case 2:
		base, cand = strings.Split(args[0], ","), strings.Split(args[1], ",")
	default:
		return fmt.Errorf("%w: --paired takes DIR (A1…Ak, B1…Bk inside) or A1,…,Ak B1,…,Bk", compare.ErrUsage)
	}
	for _, dir := range append(append([]string{}, base...), cand...) {
		if err := checkRunDir(dir, reportedRun); err != nil {
			return err
		}
	}
	return compare.Paired(base, cand, o, stdout)
}
