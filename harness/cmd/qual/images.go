package main

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"

	"github.com/trtmc-qual/trtmc-qual/containers/images"
)

func runImages(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("images", flag.ContinueOnError)
	root := fs.String("root", ".", "repository root")
	verbose := fs.Bool("v", false, "stream each build step's output (debootstrap, pip download, docker build)")
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	b := &images.Builder{Log: os.Stderr, BaseImage: os.Getenv("QUAL_BASE_IMAGE"), Verbose: *verbose}
	set, err := b.Ensure(ctx, *root)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(set)
}
