// Package plan is what a stage's suite knows before any checkpoint runs: the configured
// target and the stage's inventory rows of this shard (from manifests only), the images and
// run directory it sets up once, and the stage's evidence it writes at the end.
package plan

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/trtmc-qual/trtmc-qual/containers/engine"
	"github.com/trtmc-qual/trtmc-qual/containers/images"
	"github.com/trtmc-qual/trtmc-qual/harness/checkpoint"
	"github.com/trtmc-qual/trtmc-qual/harness/config"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory/reference"
	"github.com/trtmc-qual/trtmc-qual/harness/serving"
	"github.com/trtmc-qual/trtmc-qual/harness/sysinfo"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// Plan is what a suite knows when it builds its spec tree: the target and the stage's
// inventory, read from manifests only (nothing is built or started yet).
type Plan struct {
	Root   string
	Stage  string
	W      workload.Workload
	Target *target.Target
	Rows   []inventory.Row
	// TargetRows are the stage's rows in the whole target, before sharding: the denominators of
	// the run's scope (evidence.Selection).
	TargetRows []inventory.Row
	Paths      []string // every manifest of the target
	Caps       inventory.Capabilities
	// Shard i of Shards ($QUAL_SHARD or the engine's index, see harness/shard); stage-level specs (the audit) run in shard 1 only.
	Shard, Shards int
	// PlannedReason is set when this machine cannot run the target (no GPU stack, no target
	// CLI): every row is then recorded as planned with the reason, and nothing claims a result.
	PlannedReason string

	cfg config.Config
}

// New reads the configured target and the stage's inventory: the rows of this shard, from
// manifests only (nothing is built or started yet). A TRTMC target resolves its manifests in
// the configured TRTMC checkout.
func New(cfg config.Config, stage string) (*Plan, error) {
	w, err := workload.Get(stage)
	if err != nil {
		return nil, err
	}
	t, err := cfg.Target()
	if err != nil {
		return nil, err
	}
	p := &Plan{Root: cfg.Root, Stage: stage, W: w, Target: t, Caps: Capabilities(t), cfg: cfg}
	opts := inventory.Options{Capabilities: p.Caps}
	if p.Paths, err = t.ManifestPaths(); err != nil {
		return nil, err
	}
	if p.Rows, err = inventory.Discover(p.Paths, stage, opts); err != nil {
		return nil, err
	}
	p.Shard, p.Shards = cfg.Shard.Index, cfg.Shard.Total
	p.TargetRows = p.Rows
	p.Rows = inventory.Shard(p.Rows, cfg.Shard.Index, cfg.Shard.Total)
	if !t.Kind.Embedded() {
		p.PlannedReason = missingStack(t)
	}
	return p, nil
}

// Setup builds or finds the images and prepares the run directory.
func (p *Plan) Setup(ctx context.Context, log io.Writer) (*checkpoint.Env, error) {
	runDir := p.cfg.RunDir
	if runDir == "" {
		runDir = filepath.Join(p.Root, "reports", "dev-"+time.Now().UTC().Format("20060102-150405"))
	}
	engine.ApplyTestcontainersDefaults()
	env := &checkpoint.Env{Root: p.Root, Target: p.Target, RunDir: runDir, Stage: p.W.Stage(), Log: log}
	// Verbose: a suite's log is GinkgoWriter, live with -v and shown with a failure otherwise.
	b := &images.Builder{Log: log, BaseImage: p.cfg.BaseImage, CacheDir: p.cfg.Cache, Verbose: true}
	set, err := b.Ensure(ctx, p.Root)
	if err != nil {
		return nil, err
	}
	env.Images = serving.Images{Server: set.Server, AIPerf: set.AIPerf}
	image := p.Target.Server.Image
	if p.Target.Kind.InCheckout() { // "{image}": named by QUAL_TRTMC_IMAGE ("reference" = the image built here)
		if x, err := target.Expand([]string{image}, p.Target.Values()); err == nil {
			image = x[0]
		}
		if image == "" && p.Target.Server.ImageBuild != nil && len(p.Target.Server.Command) > 0 {
			if image, err = p.buildServing(ctx, b, set.Server); err != nil {
				return nil, err
			}
		}
	}
	if image != "" && image != "reference" {
		env.Images.Server = image
	}
	env.Cache, env.Python = b.CacheDirPath(), p.cfg.WhisperPython
	env.NativeBin = NativeBin(p.Root)
	return env, os.MkdirAll(filepath.Join(runDir, p.Stage), 0o755)
}

// NativeBin is the trtmc-native `qual images` builds from the checkout at root.
func NativeBin(root string) string { return filepath.Join(images.HostBinDir(root), "trtmc-native") }

// buildServing builds the serving image from the checkout's own Dockerfile, as the target file
// names it. A value may say {reference_server_image}, the reference server image built here (the
// contract double's Dockerfile is based on it, as TRTMC's is on its CUDA image).
func (p *Plan) buildServing(ctx context.Context, b *images.Builder, referenceServer string) (string, error) {
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
	if t := env.Target; t != nil && t.Kind.InCheckout() { // the TRTMC checkout's commit (trtmc hook)
		c := t.Checkout(ctx)
		versions["trtmc_checkout"] = c.Commit
		if c.Warning != "" {
			versions["trtmc_checkout_warning"] = c.Warning
		}
	}
	return versions, sysinfo.Hardware(gpu)
}

// missingStack says why this machine cannot run a non-reference target ("" when it can).
func missingStack(t *target.Target) string {
	gpuMode := t.Server.GPU
	if t.Kind.InCheckout() { // its commands name placeholders: ask the target what is missing (trtmc hook)
		if why := t.Missing(); why != "" {
			return why
		}
		if g, err := target.Expand([]string{gpuMode}, t.Values()); err == nil {
			gpuMode = g[0]
		}
	} else if _, err := exec.LookPath(t.Build[0]); err != nil {
		return fmt.Sprintf("planned: the target's build command %q is not installed on this machine", t.Build[0])
	}
	if gpuMode != "" && gpuMode != "none" && gpuMode != "auto" {
		out, err := exec.Command("docker", "info", "--format", "{{json .Runtimes}}").Output()
		if err != nil || !strings.Contains(string(out), "nvidia") {
			return "planned: the target needs GPU passthrough and the Docker engine here has no nvidia runtime"
		}
	}
	return ""
}

// FromEnv reads the configuration from the environment, then the stage's plan.
func FromEnv(stage string) (*Plan, error) {
	cfg, err := config.Load()
	if err != nil {
		return nil, err
	}
	return New(cfg, stage)
}

// ScopeLabel is the word for how this run narrows the target's rows, should it: QUAL_SCOPE
// (make smoke), else "focused" when the suites were focused, else the shard.
func (p *Plan) ScopeLabel(focused bool) string {
	switch {
	case p.cfg.Scope != "":
		return p.cfg.Scope
	case focused:
		return "focused"
	case p.Shards > 1:
		return fmt.Sprintf("shard %d/%d", p.Shard, p.Shards)
	}
	return ""
}

// NewStageRun starts the stage's evidence: its inventory (paths relative to the target's
// root), the target's rows and how the run selects them (label: ScopeLabel), and the AIPerf and
// server settings.
func (p *Plan) NewStageRun(label string) *evidence.StageRun {
	rows := append([]inventory.Row(nil), p.Rows...)
	inventory.Relative(rows, p.Target.Root)
	return evidence.NewStageRun(evidence.Stage{SchemaVersion: evidence.SchemaVersion, Stage: p.Stage,
		Number: p.W.Stage().Number(), Inventory: rows, Target: evidence.RelPath(p.Root, p.Target.Path), TargetKind: string(p.Target.Kind),
		Settings:  map[string]any{"aiperf": p.Target.StageLoad(p.Stage), "server": p.Target.Server},
		Selection: evidence.SelectionOf(p.TargetRows, label)})
}

// WriteStage writes the stage's evidence with this machine's versions and hardware.
func WriteStage(ctx context.Context, env *checkpoint.Env, run *evidence.StageRun) error {
	versions, hw := versionsAndHardware(ctx, env, run.Snapshot().Results)
	return run.Write(env.RunDir, versions, hw)
}

// Capabilities is how a target's profiles declare what they implement: the embedded target's
// families by its registry, another target's by their task strings.
func Capabilities(t *target.Target) inventory.Capabilities {
	if t.Kind.Embedded() {
		return reference.Capabilities
	}
	return inventory.ByTaskString
}

// ListControls fills each buildable row's Task controls by building its bundle (the embedded
// target's families only; a row whose bundle does not build keeps none).
func ListControls(t *target.Target, rows []inventory.Row, stage workload.Stage) {
	if !t.Kind.Embedded() {
		return
	}
	for i := range rows {
		if rows[i].Kind != inventory.KindExcluded && rows[i].Kind != inventory.KindGap {
			rows[i].Controls, _ = reference.ControlsFromBundle(rows[i].Manifest, stage.Capability())
		}
	}
}

// Images builds or finds the images a run uses under root (`qual images`), streaming each build
// step's output to log when verbose.
func Images(ctx context.Context, cfg config.Config, root string, verbose bool, log io.Writer) (images.Set, error) {
	b := &images.Builder{Log: log, BaseImage: cfg.BaseImage, CacheDir: cfg.Cache, Verbose: verbose}
	return b.Ensure(ctx, root)
}
