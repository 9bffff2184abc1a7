package sweep

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/capacity"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"

	"github.com/trtmc-qual/trtmc-qual/harness/checkpoint"
	stagevocab "github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
)

// A level's load is the sweep's, with AIPerf's goodput at the objective; the run's target, which
// every other level and row shares, is left as it was.
func TestAtLevelReplacesTheStageLoadOnACopy(t *testing.T) {
	const st = "stage-under-test"
	shared := &target.Target{AIPerf: map[stagevocab.Name]target.Load{st: {Warmup: 9, Requests: 9, Concurrency: 9, Runs: 9, Seed: 3, TimeoutSeconds: 60}}}
	env := &checkpoint.Env{Target: shared, Stage: stagevocab.Name(st)}
	s := target.Sweep{Objective: target.Objective{ClientP95MS: 2500}, Concurrency: []int{1, 4}, Warmup: 2, Requests: 5, Runs: 3}
	got := atLevel(env, 4, s).Target.StageLoad(st)
	want := target.Load{Warmup: 2, Requests: 5, Concurrency: 4, Runs: 3, Seed: 3, TimeoutSeconds: 60, Goodput: "request_latency:2500"}
	if got != want {
		t.Fatalf("level load %+v, want %+v", got, want)
	}
	if l := shared.AIPerf[st]; l.Concurrency != 9 || l.Goodput != "" {
		t.Fatalf("the shared target changed: %+v", l)
	}
	if l := atLevel(&checkpoint.Env{Target: &target.Target{}, Stage: stagevocab.Name(st)}, 1, s).Target.StageLoad(st); l.Concurrency != 1 {
		t.Fatalf("a target without loads: %+v", l)
	}
}

func TestNarrowKeepsWhatTheCommandLineDoesNotSet(t *testing.T) {
	s := target.Sweep{Concurrency: []int{1, 2, 4}, Requests: 6, Runs: 3, Warmup: 2}
	if got := narrow(s, Options{}); got.Requests != 6 || got.Runs != 3 || len(got.Concurrency) != 3 {
		t.Fatalf("no options: %+v", got)
	}
	if got := narrow(s, Options{Levels: []int{2}, Runs: 2, Requests: 4}); got.Requests != 4 || got.Runs != 2 || len(got.Concurrency) != 1 || got.Warmup != 2 {
		t.Fatalf("options: %+v", got)
	}
}

// An interrupted sweep says so: the row it was in, whose levels failed only because they were
// stopped, prints no table and no "none within the objective", and no later row is measured. The
// same row uninterrupted is reported on its figures.
func TestAnInterruptedSweepSaysInterrupted(t *testing.T) {
	rows := []evidence.InventoryRow{{Profile: "first"}, {Profile: "second"}}
	for _, interrupt := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		var measured []string
		measure := func(row evidence.InventoryRow) (*capacity.Result, error) {
			measured = append(measured, row.Profile)
			if interrupt {
				cancel()
			}
			return &capacity.Result{Profile: row.Profile}, errors.New("identity: request failed")
		}
		var out bytes.Buffer
		failed, err := sweepRows(ctx, "asr", rows, measure, &out)
		cancel()
		switch {
		case interrupt && (err == nil || !strings.Contains(err.Error(), "interrupted (context canceled) while measuring asr/first") ||
			len(measured) != 1 || strings.Contains(out.String(), "none within") || len(failed) != 0):
			t.Errorf("interrupted: err %v, measured %v, failed %v, printed %q", err, measured, failed, out.String())
		case !interrupt && (err != nil || len(measured) != 2 || len(failed) != 2 || !strings.Contains(out.String(), "none within the objective")):
			t.Errorf("uninterrupted: err %v, measured %v, failed %v, printed %q", err, measured, failed, out.String())
		}
	}
}
