package main

import (
	"context"
	"io"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/checkpoint"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/plan"
	"github.com/trtmc-qual/trtmc-qual/harness/plan/setup"
	"github.com/trtmc-qual/trtmc-qual/harness/verify"
)

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// TestShardsMergeIntoOneVerifiedRun runs the TRTMC fixture inventory in two shards (on this
// machine every row is planned), merges them, and requires each row exactly once in a run that
// qual verify accepts.
func TestShardsMergeIntoOneVerifiedRun(t *testing.T) {
	root := repoRoot()
	t.Setenv("QUAL_ROOT", root)
	t.Setenv("QUAL_TARGET", filepath.Join(root, "suites", "targets", "trtmc.yaml"))
	t.Setenv("QUAL_TRTMC_ROOT", filepath.Join(root, "suites", "targets", "testdata", "trtmc-newer"))
	whole, err := plan.FromEnv("t2i")
	if err != nil {
		t.Fatal(err)
	}
	var shardDirs []string
	total := 0
	key := teamKey(t)
	for _, shard := range []string{"1/2", "2/2"} {
		t.Setenv("QUAL_SHARD", shard)
		p, err := plan.FromEnv("t2i")
		if err != nil {
			t.Fatal(err)
		}
		reason := p.PlannedReason
		if reason == "" { // a runner with the TRTMC stack: the merge mechanics are the same
			reason = "planned: recorded by the merge test"
		}
		dir := t.TempDir()
		stage := p.NewStageRun("")
		for _, row := range p.Rows {
			stage.Planned(row, reason)
		}
		total += len(p.Rows)
		if err := setup.WriteStage(context.Background(), &checkpoint.Env{Root: root, RunDir: dir}, stage); err != nil {
			t.Fatal(err)
		}
		publishShard(t, dir, key)
		shardDirs = append(shardDirs, dir)
	}
	out := t.TempDir()
	if err := runMerge(context.Background(), append([]string{"--key", key + ".pub", "-o", out}, shardDirs...), io.Discard); err != nil {
		t.Fatal(err)
	}
	e, err := evidence.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range e.Stages[0].Results {
		seen[r.Profile]++
	}
	if len(e.Stages) != 1 || len(seen) != total || total != len(whole.Rows) || total == 0 {
		t.Fatalf("merged %d stages, %d distinct rows of %d", len(e.Stages), len(seen), total)
	}
	for p, n := range seen {
		if n != 1 {
			t.Errorf("%s appears %d times", p, n)
		}
	}
	if e.Stages[0].Status != "failed" && e.Stages[0].Status != "planned" {
		t.Errorf("merged planned stage has status %s", e.Stages[0].Status)
	}
	problems, err := verify.Problems(out, verify.Options{Root: root, RootFrom: "QUAL_ROOT"})
	if err != nil || len(problems) != 0 {
		t.Fatalf("verify on the merged run: %v %v", problems, err)
	}
}
