package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/compare"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/report"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// runMerge combines shard runs: each shard's stage directories are copied into the output and
// the stage evidence is merged (results and inventory statuses), then assembled.
func runMerge(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	out := fs.String("o", "", "output run directory (new or empty)")
	key := fs.String("key", "", "the shards' signer's public key (PEM): every shard is verified with it before merging; without it only shards this machine's local key signed are merged")
	withoutBundles := fs.Bool("without-bundles", false, "accept shards published without their .bundle files (the CI upload), as qual verify --without-bundles does")
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usageError{fmt.Errorf("-o is required: qual merge -o reports/RUN reports/SHARD...")}
	}
	if entries, err := os.ReadDir(*out); err == nil && len(entries) > 0 {
		return usageError{fmt.Errorf("%s already holds a run (a previous merge?): remove it or choose another -o", *out)}
	}
	dest, err := checkOutDir(*out) // a new directory inside a run would add files to that run
	if err != nil {
		return err
	}
	*out = dest
	shards, err := readShards(fs.Args())
	if err != nil {
		return err
	}
	if err := verifyShards(ctx, fs.Args(), *key, *withoutBundles); err != nil {
		return err
	}
	merged := evidence.NewMerge()
	for i, sh := range shards {
		if err := copyJUnit(sh.dir, *out, i+1); err != nil {
			return err
		}
		for j, s := range sh.stages {
			if err := copyCheckpointDirs(filepath.Dir(sh.paths[j]), filepath.Join(*out, s.Stage)); err != nil {
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
	e, err := report.Assemble(*out)
	if err != nil {
		return err
	}
	printSummary(stdout, *out, e)
	// The shards' signatures cover the shards, not this new run: say what makes it verifiable.
	fmt.Fprintf(stdout, "the merged run is not signed yet: qual sign [--key-file KEY] %s, then qual verify --key PUB %s\n", *out, *out)
	return nil
}

// shard is one shard run's stage evidence.
type shard struct {
	dir    string
	paths  []string
	stages []evidence.Stage
}

// readShards reads every shard's stage.json files and refuses shards that are not parts of one
// run: another target, other AIPerf or server settings, or another code version. Merged, they
// would verify as one run of the first shard's target.
func readShards(dirs []string) ([]shard, error) {
	var shards []shard
	var first *evidence.Stage
	var firstPath string
	rowShard := map[string]string{} // stage/profile -> the shard that has it
	for _, dir := range dirs {
		if err := checkRunDir(dir, stageEvidence); err != nil {
			return nil, err
		}
		if err := runfile.CheckTree(dir); err != nil {
			return nil, err
		}
		paths, err := filepath.Glob(filepath.Join(dir, "*", "stage.json"))
		if err != nil {
			return nil, err
		}
		sh := shard{dir: dir, paths: paths}
		for _, p := range paths {
			s, err := evidence.ReadStage(p)
			if err != nil {
				return nil, err
			}
			if first == nil {
				first, firstPath = &s, p
			} else if diff := shardDifference(*first, s); diff != "" {
				return nil, usageError{fmt.Errorf("%s and %s are not parts of one run: %s", firstPath, p, diff)}
			}
			for _, r := range s.Results {
				key := s.Stage + "/" + r.Profile
				if prev, ok := rowShard[key]; ok {
					return nil, usageError{fmt.Errorf("row %s is in %s and in %s: each row belongs to one shard (the same shard given twice?)", key, prev, dir)}
				}
				rowShard[key] = dir
			}
			sh.stages = append(sh.stages, s)
		}
		shards = append(shards, sh)
	}
	return shards, nil
}

// shardDifference names the first way stage b cannot belong to the same run as stage a ("" when
// none). Settings are compared within a stage only: each stage has its own load.
func shardDifference(a, b evidence.Stage) string {
	switch {
	case a.Target != b.Target || a.TargetKind != b.TargetKind:
		return fmt.Sprintf("target %s (%s) vs %s (%s)", a.Target, a.TargetKind, b.Target, b.TargetKind)
	case a.SchemaVersion != b.SchemaVersion:
		return fmt.Sprintf("evidence schema %d vs %d", a.SchemaVersion, b.SchemaVersion)
	case a.Stage == b.Stage && compare.Difference(a.Settings, b.Settings) != "":
		return fmt.Sprintf("stage %s settings differ (%s)", a.Stage, compare.Difference(a.Settings, b.Settings))
	}
	// The code and the client are one per run; the Docker engine or the PocketSphinx package may
	// differ between runners and are kept per stage.
	for _, k := range []string{"trtmc-qual", evidence.BuildTagsKey, "aiperf"} {
		if a.Versions[k] != b.Versions[k] {
			return fmt.Sprintf("%s %q vs %q", k, a.Versions[k], b.Versions[k])
		}
	}
	return ""
}

// copyCheckpointDirs puts a shard's checkpoint directories into the output, hard-linked where
// the filesystem allows (linkTree); a directory that already exists in
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
		if err := linkTree(filepath.Join(src, e.Name()), target, os.Link); err != nil {
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
