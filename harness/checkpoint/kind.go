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

// kindStepsOf is the registry of each kind's steps (target.Read refuses any other kind).
func kindStepsOf(k target.Kind) kindSteps {
	return map[target.Kind]kindSteps{target.Reference: referenceSteps{}, target.TRTMC: trtmcSteps{}}[k]
}

func (c *Checkpoint) kind() kindSteps { return kindStepsOf(c.Env.Target.Kind) }

// referenceSteps are the checkpoint steps of the embedded reference target: its commands from
// the target file, the native CLI of this repository, thresholds pinned in golden/.
type referenceSteps struct{}

func (referenceSteps) nativeArgs(_ *Checkpoint, tmpl []string, values map[string]string) ([]string, error) {
	return target.Expand(tmpl, values)
}

func (referenceSteps) nativeOutput(_ context.Context, c *Checkpoint, out string) (string, error) {
	return c.W.NativeOutput(out)
}
