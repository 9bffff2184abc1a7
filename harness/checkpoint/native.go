package checkpoint

import (
	"context"
	"fmt"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/serving"
)

// StartNative starts the container the native twins run in: the server's image, files, mounts
// (the served bundle read-only at the same path) and GPU, serving nothing. Call it after the server
// stopped: a serving worker and a native run of the same model would hold it in GPU memory twice.
func (c *Checkpoint) StartNative(ctx context.Context) (Cleanup, error) {
	if c.serving == nil || c.serving.spec.Image == "" {
		return nil, c.fail("identity", fmt.Errorf("no server was started: the native container starts as it did"))
	}
	defer c.timed(containers)()
	start := time.Now()
	ctr, err := serving.StartNative(ctx, c.serving.spec)
	cleanup := func(ctx context.Context) error { defer c.timed(containers)(); return ctr.Discard() }
	if err != nil {
		return cleanup, c.fail("identity", fmt.Errorf("native container: %w", err))
	}
	c.serving.native = ctr
	c.logf("native container of %s ready in %.1fs (the server stopped)", c.serving.spec.Image, time.Since(start).Seconds())
	return cleanup, nil
}
