package main

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"

	"github.com/trtmc-qual/trtmc-qual/containers/images"
	"github.com/trtmc-qual/trtmc-qual/harness/config"
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
	b := &images.Builder{Log: os.Stderr, BaseImage: cfg.BaseImage, CacheDir: cfg.Cache, Verbose: *verbose}
	set, err := b.Ensure(ctx, *root)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(set)
}
