package checkpoint

import (
	"context"
	"sync"
	"time"
)

// heartbeatEvery is how often a long step says it is still running: no step of a row is silent
// for longer.
const heartbeatEvery = 10 * time.Second

// Announce is the row's first console line: its place among the stage's rows, then the row.
func (c *Checkpoint) Announce(i, n int) {
	counted := "recorded, not counted"
	if c.Row.Counted {
		counted = "counted"
	}
	c.sayf("row %d/%d · %s · %s (%s, %s)", i, n, c.Env.Stage, c.Manifest.Name, c.Row.Kind, counted)
}

// beat starts the heartbeat of one step; the returned function stops it.
func (c *Checkpoint) beat(ctx context.Context, step string) func() {
	return heartbeat(ctx, heartbeatEvery, step, c.sayf)
}

// Heartbeat is a step's heartbeat outside a row (the suite's image setup): "<step>: still
// running (<elapsed>)" through logf every 10 s until the returned function is called.
func Heartbeat(ctx context.Context, step string, logf func(string, ...any)) (stop func()) {
	return heartbeat(ctx, heartbeatEvery, step, logf)
}

// heartbeat logs "<step>: still running (<elapsed>)" every interval until stop is called (or ctx
// ends); no line is printed after stop returns.
func heartbeat(ctx context.Context, every time.Duration, step string, logf func(string, ...any)) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		start := time.Now()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if ctx.Err() == nil {
					logf("%s: still running (%s)", step, time.Since(start).Round(time.Second))
				}
			}
		}
	}()
	return func() { cancel(); wg.Wait() }
}
