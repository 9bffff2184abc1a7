// Package setup prepares what a stage's run needs on this machine, once per suite: the images
// (built or found), the run directory and the checkpoint environment, and at the end writes the
// stage's evidence with this machine's versions and hardware. It is the part of a plan that
// starts Docker builds, kept apart from harness/plan so that reading a plan (qual plan, qual
// inventory) links no container client.
package setup

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/trtmc-qual/trtmc-qual/containers/engine"
	"github.com/trtmc-qual/trtmc-qual/containers/images"
	"github.com/trtmc-qual/trtmc-qual/harness/checkpoint"
	"github.com/trtmc-qual/trtmc-qual/harness/config"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/plan"
	"github.com/trtmc-qual/trtmc-qual/harness/serving"
	"github.com/trtmc-qual/trtmc-qual/harness/sysinfo"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
)

// Prepare builds or finds the images and prepares the run directory.
func Prepare(ctx context.Context, p *plan.Plan, log io.Writer) (*checkpoint.Env, error) {
	runDir := p.Config.RunDir
	if runDir == "" {
		runDir = filepath.Join(p.Root, "reports", "dev-"+time.Now().UTC().Format("20060102-150405"))
	}
	engine.ApplyTestcontainersDefaults()
	env := &checkpoint.Env{Root: p.Root, Target: p.Target, RunDir: runDir, Stage: p.W.Stage(), Log: log}
	// Verbose: a suite's log is GinkgoWriter, live with -v and shown with a failure otherwise.
	b := &images.Builder{Log: log, BaseImage: p.Config.BaseImage, CacheDir: p.Config.Cache, Verbose: true}
	set, err := b.Ensure(ctx, p.Root)
	if err != nil {
		return nil, err
	}
	env.Images = serving.Images{Server: set.Server, AIPerf: set.AIPerf}
	image := p.Target.Server.Image
	if p.Target.Traits().InCheckout() { // "{image}": named by QUAL_TRTMC_IMAGE ("reference" = the image built here)
		if x, err := target.Expand([]string{image}, p.Target.Values()); err == nil {
			image = x[0]
		}
		if image == "" && p.Target.Server.ImageBuild != nil && len(p.Target.Server.Command) > 0 {
			if image, err = buildServing(ctx, p, b, set.Server); err != nil {
				return nil, err
			}
		}
	}
	if image != "" && image != "reference" {
		env.Images.Server = image
	}
	if err := preflight(ctx, p, env.Images.Server, log); err != nil {
		return nil, err
	}
	env.Cache, env.Python = b.CacheDirPath(), p.Config.WhisperPython
	env.NativeBin = plan.NativeBin(p.Root)
	return env, os.MkdirAll(p.Stage.Dir(runDir), 0o755)
}

// buildServing builds the serving image from the checkout's own Dockerfile, as the target file
// names it. A value may say {reference_server_image}, the reference server image built here (the
// contract double's Dockerfile is based on it, as TRTMC's is on its CUDA image).
func buildServing(ctx context.Context, p *plan.Plan, b *images.Builder, referenceServer string) (string, error) {
	values := p.Target.Values()
	for k, v := range values {
		values[k] = strings.ReplaceAll(v, "{reference_server_image}", referenceServer)
	}
	values["reference_server_image"] = referenceServer
	ib, err := p.Target.Server.ImageBuild.Expanded(p.Target.Root, values)
	if err != nil {
		return "", err
	}
	tag, err := b.Checkout(ctx, images.CheckoutBuild{Dockerfile: ib.Dockerfile, Context: ib.Context, Target: ib.Target, Args: ib.Args})
	if err != nil || p.Target.Server.Requirements == "" { // the serving app's packages, which the checkout's image lacks
		return tag, err
	}
	return b.ServingDeps(ctx, tag, filepath.Join(p.Target.Root, p.Target.Server.Requirements), values["serve_python"])
}

// versions and hardware of the run: the AIPerf version a checkpoint reported, and the GPU a
// server was given.
func versionsAndHardware(ctx context.Context, env *checkpoint.Env, results []evidence.Result) (map[string]string, evidence.Hardware) {
	aiperfRan, gpu := "", ""
	for _, r := range results {
		if r.AIPerf != nil && r.AIPerf.Version != "" {
			aiperfRan = r.AIPerf.Version
		}
		if r.GPU != "" && r.GPU != "none" {
			gpu = r.GPU
		}
	}
	// The build tags of the binaries the run used (trtmc-native, and the trtmc-server built beside
	// it into the server image): a -tags qual_slowdown test build must show in the evidence.
	bins := []string{env.NativeBin, filepath.Join(filepath.Dir(env.NativeBin), "trtmc-server")}
	versions := sysinfo.Versions(ctx, env.Root, aiperfRan, images.AIPerfVersion, bins...)
	// The images by their input-hash tags: a build with other binaries (a test build) serves
	// from another server image, and the evidence names which.
	for k, image := range map[string]string{"server_image": env.Images.Server, "aiperf_image": env.Images.AIPerf} {
		if image != "" {
			versions[k] = image
		}
	}
	if t := env.Target; t != nil && t.Traits().InCheckout() { // the TRTMC checkout's commit (trtmc hook)
		c := t.Checkout(ctx)
		versions["trtmc_checkout"] = c.Commit
		if c.Warning != "" {
			versions["trtmc_checkout_warning"] = c.Warning
		}
	}
	return versions, sysinfo.Hardware(gpu)
}

// WriteStage writes the stage's evidence with this machine's versions and hardware.
func WriteStage(ctx context.Context, env *checkpoint.Env, run *evidence.StageRun) error {
	versions, hw := versionsAndHardware(ctx, env, run.Snapshot().Results)
	return run.Write(env.RunDir, versions, hw)
}

// WriteNotSelected writes the evidence of a stage the run selected none of the rows of: its
// inventory, each row not selected, and the target's rows under label. It ran on no machine,
// so it records no versions or hardware.
func WriteNotSelected(p *plan.Plan, label string) error {
	if p.Config.RunDir == "" {
		return nil // a run without a run directory (go test of one suite) publishes nothing
	}
	return p.NewStageRun(label).Write(p.Config.RunDir, nil, evidence.Hardware{})
}

// Images builds or finds the images a run uses under root (`qual images`), streaming each build
// step's output to log when verbose.
func Images(ctx context.Context, cfg config.Config, root string, verbose bool, log io.Writer) (images.Set, error) {
	b := &images.Builder{Log: log, BaseImage: cfg.BaseImage, CacheDir: cfg.Cache, Verbose: verbose}
	return b.Ensure(ctx, root)
}
