package checkpoint

import (
	"context"

	"github.com/trtmc-qual/trtmc-qual/harness/target"
)

// kindSteps are the checkpoint steps that differ by target kind: how the bundle is built, how
// its capability is checked, how its family gate runs, and how a native run is invoked and read.
type kindSteps interface {
	build(ctx context.Context, c *Checkpoint) error
	capability(ctx context.Context, c *Checkpoint, want string) error
	gate(ctx context.Context, c *Checkpoint) error
	nativeArgs(c *Checkpoint, tmpl []string, values map[string]string) ([]string, error)
	nativeOutput(ctx context.Context, c *Checkpoint, out string) (string, error)
	// served checks what the running server says it serves against the row (serve.go,
	// trtmcserve.go).
	served(ctx context.Context, c *Checkpoint) error
}

// kind are the steps of the checkpoint's target: a target in a TRTMC checkout is built, gated
// and run through TRTMC's own tooling; any other is this repository's, built and judged by its
// own CLI. The target's traits say which; the kind's name is never read here.
func (c *Checkpoint) kind() kindSteps {
	if c.Env.Target.Traits().InCheckout() {
		return trtmcSteps{}
	}
	return referenceSteps{}
}

// referenceSteps are the checkpoint steps of the embedded reference target: its commands from
// the target file, the native CLI of this repository, thresholds pinned in golden/.
type referenceSteps struct{}

func (referenceSteps) nativeArgs(_ *Checkpoint, tmpl []string, values map[string]string) ([]string, error) {
	return target.Expand(tmpl, values)
}

func (referenceSteps) nativeOutput(_ context.Context, c *Checkpoint, out string) (string, error) {
	return c.W.NativeOutput(out)
}
