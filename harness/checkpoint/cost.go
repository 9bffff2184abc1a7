package checkpoint

import (
	"fmt"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/cost"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// Step names of the cost account that more than one method times.
const (
	containers = "containers (network, server and native container start and stop)"
	aiperfStep = "AIPerf"
)

// timed starts timing step in the row's cost account and returns the function that stops it.
func (c *Checkpoint) timed(step string) func() {
	if c.meter == nil { // a Checkpoint not made by NewIn keeps no account
		return func() {}
	}
	return c.meter.Time(step)
}

// settleCost adds the Task time each served step needed and records the row's cost in its
// result and as a `[time]` line: the AIPerf requests' and the no-caching requests' Task calls
// over the row's concurrency (the wall time its lanes need at best), and the public Task calls
// of identity's native runs. What a row spends beyond that is the harness's.
func (c *Checkpoint) settleCost() {
	if c.meter == nil {
		return
	}
	lanes := float64(max(1, c.Env.Target.StageLoad(c.W.Stage()).Concurrency))
	if c.Result.Join != nil {
		var ms float64
		for _, p := range c.pairs {
			ms += p.Server.Timing.ModelCallMS
		}
		c.meter.Task(aiperfStep, cost.Millis(ms/lanes))
	}
	if n := c.Result.NoCache; n != nil {
		var ms float64
		for _, side := range [][]evidence.NoCacheRequest{n.Repeats, n.Fresh} {
			for _, r := range side {
				ms += r.TaskMS
			}
		}
		c.meter.Task("no caching", cost.Millis(ms/float64(max(1, n.Concurrency))))
	}
	if c.serving != nil {
		var native time.Duration
		for _, out := range c.serving.nativeOut {
			if ms := workload.NativeTaskMS(out); ms != nil {
				native += cost.Millis(*ms)
			}
		}
		c.meter.Task("identity", native)
	}
	account := c.meter.Cost()
	c.Result.Cost = &account
	fmt.Fprintln(c.Env.console(), cost.Line(fmt.Sprintf("%s/%s", c.Env.Stage, c.Manifest.Name), account))
}
