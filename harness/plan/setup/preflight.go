package setup

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/containers/trtmcserver"
	"github.com/trtmc-qual/trtmc-qual/harness/plan"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
)

// preflight compares this machine with the serving image (the target's preflight facts: TensorRT's
// version, the worker's libraries) before the first build; a difference stops the run at once,
// naming both sides. The image side runs in one idle container of the image with the checkout
// mounted read-only at its own path and the server's environment, as serving will run.
func preflight(ctx context.Context, p *plan.Plan, image string, log io.Writer) error {
	t := p.Target
	if len(t.Preflight) == 0 || p.PlannedReason != "" || image == "" {
		return nil
	}
	values := t.Values()
	env := map[string]string{}
	for k, v := range t.Server.Env {
		if x, err := target.Expand([]string{v}, values); err == nil {
			v = x[0]
		}
		env[k] = v
	}
	ctr, err := trtmcserver.RunIdle(ctx, image, trtmcserver.WithReadOnlyDir(t.Root), trtmcserver.WithEnv(env))
	if ctr != nil && ctr.DockerContainer != nil {
		defer ctr.Terminate(context.WithoutCancel(ctx))
	}
	if err != nil {
		return fmt.Errorf("preflight: a container of %s: %w", image, err)
	}
	inImage := func(ctx context.Context, args, _ []string, _ string) ([]byte, error) {
		code, out, err := ctr.ExecOutput(ctx, args...)
		if err == nil && code != 0 {
			err = fmt.Errorf("%s: exit %d: %s", strings.Join(args, " "), code, strings.TrimSpace(out))
		}
		return []byte(out), err
	}
	results, err := t.CheckPreflight(ctx, target.ExecRunner, inImage)
	for _, r := range results {
		fmt.Fprintf(log, "preflight %s: host %s, image %s\n", r.Name, r.Host, r.Image)
	}
	return err
}
