package main

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"

	"github.com/trtmc-qual/trtmc-qual/harness/config"
	"github.com/trtmc-qual/trtmc-qual/harness/plan/setup"
)

func runImages(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("images", flag.ContinueOnError)
	root := fs.String("root", "", "repository root (default $QUAL_ROOT, else found from the working directory)")
	verbose := fs.Bool("v", false, "stream each build step's output (debootstrap, pip download, docker build)")
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	cfg, err := config.Load()
	if err != nil {
		return usageError{err}
	}
	if *root == "" {
		*root = cfg.Root
	}
	set, err := setup.Images(ctx, cfg, *root, *verbose, os.Stderr)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(set)
}
