package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/capacity/sweep"
	"github.com/trtmc-qual/trtmc-qual/harness/config"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
)

func runCapacity(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("capacity", flag.ContinueOnError)
	var o sweep.Options
	fs.Func("stage", "one stage (default: every stage the target declares a capacity sweep for)", func(v string) error {
		s, err := stage.Get(v)
		o.Stage = s.Name
		return err
	})
	fs.StringVar(&o.Profile, "profile", "", "only this profile")
	levels := fs.String("levels", "", "concurrency levels, comma-separated, ascending (default: the target's)")
	fs.IntVar(&o.Runs, "runs", 0, "AIPerf runs per level (default: the target's)")
	fs.IntVar(&o.Requests, "requests", 0, "measured requests per run (default: the target's)")
	fs.BoolVar(&o.Ceiling, "ceiling", false, "measure the harness's own ceiling instead: the same sweep against server/peerbench/peer.py, which answers at once")
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	for _, f := range strings.Split(*levels, ",") {
		if f = strings.TrimSpace(f); f != "" {
			n, err := strconv.Atoi(f)
			if err != nil {
				return usageError{fmt.Errorf("--levels %q: %w", *levels, err)}
			}
			o.Levels = append(o.Levels, n)
		}
	}
	cfg, err := config.Load()
	if err != nil {
		return usageError{err}
	}
	err = sweep.Run(ctx, cfg, o, stdout, os.Stderr)
	if errors.Is(err, sweep.ErrUsage) {
		return usageError{err}
	}
	return err
}
