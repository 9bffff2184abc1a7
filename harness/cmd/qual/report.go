package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

func runReport(_ context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("usage: qual report reports/RUN")
	}
	e, err := evidence.Assemble(fs.Arg(0))
	if err != nil {
		return err
	}
	printSummary(stdout, fs.Arg(0), e)
	return nil
}

// printSummary is the one-screen summary at the end of `make qualify`.
func printSummary(w io.Writer, runDir string, e evidence.Evidence) {
	fmt.Fprintf(w, "\n=== qualification %s (target %s) ===\n", e.RunID, e.Target)
	for _, s := range e.Stages {
		fmt.Fprintf(w, "stage %d %-8s %-9s %s\n", s.Number, s.Stage, strings.ToUpper(string(s.Status)), s.Reason)
		for _, r := range s.Results {
			counted := "recorded"
			if r.Counted {
				counted = "counted"
			}
			fmt.Fprintf(w, "    %-22s %-8s %-9s %s\n", r.Profile, r.Kind, counted, r.Status)
		}
	}
	fmt.Fprintf(w, "report:   %s\nevidence: %s\n", filepath.Join(runDir, "qualification.md"), filepath.Join(runDir, "evidence.json"))
}

// runMerge combines shard runs: each shard's stage directories are copied into the output and
// the stage evidence is merged (results and inventory statuses), then assembled.
func runMerge(_ context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	out := fs.String("o", "", "output run directory")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() == 0 {
		return fmt.Errorf("usage: qual merge -o reports/RUN reports/SHARD1 reports/SHARD2 ...")
	}
	merged := evidence.NewMerge()
	for i, shard := range fs.Args() {
		paths, err := filepath.Glob(filepath.Join(shard, "*", "stage.json"))
		if err != nil {
			return err
		}
		if err := copyJUnit(shard, *out, i+1); err != nil {
			return err
		}
		for _, p := range paths {
			s, err := evidence.ReadStage(p)
			if err != nil {
				return err
			}
			if err := copyCheckpointDirs(filepath.Dir(p), filepath.Join(*out, s.Stage)); err != nil {
				return err
			}
			merged.Add(s)
		}
	}
	for name, s := range merged.Stages() {
		if err := evidence.WriteJSON(filepath.Join(*out, name, "stage.json"), s); err != nil {
			return err
		}
	}
	e, err := evidence.Assemble(*out)
	if err != nil {
		return err
	}
	printSummary(stdout, *out, e)
	return nil
}

// copyCheckpointDirs copies a shard's checkpoint directories; a directory that already exists in
// the output means two shards qualified the same profile, which sharding never does.
func copyCheckpointDirs(src, dst string) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue // stage.json is merged, not copied
		}
		target := filepath.Join(dst, e.Name())
		if _, err := os.Stat(target); err == nil {
			return fmt.Errorf("%s appears in two shards", e.Name())
		}
		if err := os.CopyFS(target, os.DirFS(filepath.Join(src, e.Name()))); err != nil {
			return fmt.Errorf("copy %s: %w", e.Name(), err)
		}
	}
	return nil
}

// copyJUnit keeps each shard's JUnit reports (qual verify checks them against the rows) as
// junit/shard<i>-<name>.
func copyJUnit(shard, out string, i int) error {
	files, err := filepath.Glob(filepath.Join(shard, "junit", "*.xml"))
	if err != nil || len(files) == 0 {
		return err
	}
	if err := os.MkdirAll(filepath.Join(out, "junit"), 0o755); err != nil {
		return err
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err == nil {
			err = os.WriteFile(filepath.Join(out, "junit", fmt.Sprintf("shard%d-%s", i, filepath.Base(f))), data, 0o644)
		}
		if err != nil {
			return fmt.Errorf("copy JUnit %s: %w", f, err)
		}
	}
	return nil
}
