package checkpoint

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/cost"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// The no-caching check reads the native Task time on its input from the native run identity
// already made on the same bundle and input: with the output kept there is no server to run it
// in, and the time is read from what identity's run printed.
func TestNoCachingReusesIdentitysNativeRun(t *testing.T) {
	c := &Checkpoint{serving: &served{nativeOut: map[string]string{"clip-1": `{"text":"one","public_task_call_wall_ms":12.5}`}}}
	ms, err := c.nativeTaskMS(context.Background(), workload.Request{Key: "clip-1"})
	if err != nil || ms == nil || *ms != 12.5 {
		t.Fatalf("native Task ms %v, err %v; want identity's 12.5 without a second run", ms, err)
	}
}

// A row's cost subtracts the Task time each served step needed: the AIPerf requests' Task calls
// over the concurrency, the no-caching requests' over theirs, identity's native Task calls; the
// line goes to the log and the account into the result.
func TestSettleCostCountsTheTaskTimeOfEachServedStep(t *testing.T) {
	var log bytes.Buffer
	tg := &target.Target{}
	c := &Checkpoint{Env: &Env{Target: tg, Stage: "asr", Log: &log}, meter: cost.Start(), W: mustWorkload(t, "asr")}
	c.Manifest.Name = "row"
	pair := func(ms float64) join.Pair {
		var p join.Pair
		p.Server = contract.Record{Timing: contract.Timing{ModelCallMS: ms}}
		return p
	}
	c.Result.Join, c.pairs = &evidence.Join{}, []join.Pair{pair(300), pair(500)}
	c.Result.NoCache = &evidence.NoCache{Concurrency: 2, Repeats: []evidence.NoCacheRequest{{TaskMS: 100}}, Fresh: []evidence.NoCacheRequest{{TaskMS: 300}}}
	c.serving = &served{nativeOut: map[string]string{"a": `{"public_task_call_wall_ms":250}`, "b": `{"no":"time"}`}}
	c.settleCost()
	task := map[string]float64{}
	for _, s := range c.Result.Cost.Steps {
		task[s.Step] = s.TaskS
	}
	lanes := float64(max(1, tg.StageLoad("asr").Concurrency))
	if task[aiperfStep] != 0.8/lanes || task["no caching"] != 0.2 || task["identity"] != 0.25 {
		t.Fatalf("Task seconds by step %v; want AIPerf %.3f, no caching 0.2, identity 0.25", task, 0.8/lanes)
	}
	if !strings.HasPrefix(log.String(), "[time] row asr/row: wall ") {
		t.Fatalf("log %q", log.String())
	}
}

func mustWorkload(t *testing.T, stage string) workload.Workload {
	t.Helper()
	w, err := workload.Get(stage)
	if err != nil {
		t.Fatal(err)
	}
	return w
}
