// Package plan is what a stage's suite knows before any checkpoint runs: the configured
// target, the stage's inventory rows of this shard (from manifests only), the evidence it
// starts with, and every command a run would execute (DryRun). It starts nothing and links no
// container client or family runtime (harness/plan/setup builds the images), so qual builds
// without cgo.
package plan

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/containers/spec"
	"github.com/trtmc-qual/trtmc-qual/harness/config"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory/reference"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// Plan is what a suite knows when it builds its spec tree: the target and the stage's
// inventory, read from manifests only (nothing is built or started yet).
type Plan struct {
	Root   string
	Stage  stage.Name
	W      workload.Workload
	Target *target.Target
	Rows   []evidence.InventoryRow
	// TargetRows are the stage's rows in the whole target, before sharding: the denominators of
	// the run's scope (evidence.Selection).
	TargetRows []evidence.InventoryRow
	Paths      []string // every manifest of the target
	Caps       inventory.Capabilities
	// Shard i of Shards ($QUAL_SHARD or the engine's index, see harness/shard); stage-level specs (the audit) run in shard 1 only.
	Shard, Shards int
	// PlannedReason is set when this machine cannot run the target (no GPU stack, no target
	// CLI): every row is then recorded as planned with the reason, and nothing claims a result.
	PlannedReason string

	// Selection is what the run selects of the stage's rows (QUAL_STAGE, QUAL_ROWS, QUAL_RERUN).
	Selection Selection

	// Config is the configuration the plan was read with (the run directory, image and cache
	// settings harness/plan/setup uses).
	Config config.Config
}

// New reads the configured target and the stage's inventory: the rows of this shard, from
// manifests only (nothing is built or started yet). A TRTMC target resolves its manifests in
// the configured TRTMC checkout.
func New(cfg config.Config, s stage.Name) (*Plan, error) {
	w, err := workload.Of(s)
	if err != nil {
		return nil, err
	}
	t, err := cfg.Target()
	if err != nil {
		return nil, err
	}
	p := &Plan{Root: cfg.Root, Stage: s, W: w, Target: t, Caps: Capabilities(t), Config: cfg}
	opts := inventory.Options{Capabilities: p.Caps}
	if p.Paths, err = t.ManifestPaths(); err != nil {
		return nil, err
	}
	if p.Rows, err = inventory.Discover(p.Paths, s, opts); err != nil {
		return nil, err
	}
	p.Shard, p.Shards = cfg.Shard.Index, cfg.Shard.Total
	p.TargetRows = p.Rows
	p.Rows = inventory.Shard(p.Rows, cfg.Shard.Index, cfg.Shard.Total)
	failed, err := FailedRowsOf(cfg.Select.Rerun)
	if err != nil {
		return nil, err
	}
	p.Selection = Select(cfg.Select, s, p.Rows, failed)
	p.PlannedReason = PlannedReason(t)
	return p, nil
}

// PlannedReason says why this machine cannot run the target ("" when it can): the embedded
// reference target always runs; another needs its stack here.
func PlannedReason(t *target.Target) string {
	if t.Traits().Embedded() {
		return ""
	}
	return missingStack(t)
}

// missingStack says why this machine cannot run a non-reference target ("" when it can).
func missingStack(t *target.Target) string {
	gpuMode := t.Server.GPU
	if t.Traits().InCheckout() { // its commands name placeholders: ask the target what is missing (trtmc hook)
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
func FromEnv(s stage.Name) (*Plan, error) {
	cfg, err := config.Load()
	if err != nil {
		return nil, err
	}
	return New(cfg, s)
}

// ScopeLabel is the word for how this run narrows the target's rows, should it: QUAL_SCOPE
// (make smoke), else the selection's ("rerun", "focused"), else "focused" when the suites were
// focused, else the shard.
func (p *Plan) ScopeLabel(focused bool) string {
	switch {
	case p.Config.Scope != "":
		return p.Config.Scope
	case p.Selection.Active:
		return p.Selection.Label
	case focused:
		return "focused"
	case p.Shards > 1:
		return fmt.Sprintf("shard %d/%d", p.Shard, p.Shards)
	}
	return ""
}

// NewStageRun starts the stage's evidence: its inventory (paths relative to the target's
// root), the target's rows and how the run selects them (label: ScopeLabel) and the AIPerf
// counts it lowered below the target's, and the AIPerf and server settings.
func (p *Plan) NewStageRun(label string) *evidence.StageRun {
	rows := append([]evidence.InventoryRow(nil), p.Rows...)
	inventory.Relative(rows, p.Target.Root)
	sel := evidence.SelectionOf(p.TargetRows, label)
	sel.ReducedLoad = p.Target.ReducedLoad(p.Stage)
	return evidence.NewStageRun(evidence.Stage{SchemaVersion: evidence.SchemaVersion, Stage: string(p.Stage),
		Number: p.W.Stage().Number(), Inventory: rows, Target: evidence.RelPath(p.Root, p.Target.Path), TargetKind: string(p.Target.Kind),
		Settings:  map[string]any{"aiperf": p.Target.StageLoad(p.Stage), "server": p.Target.Server},
		Selection: sel})
}

// Capabilities is how a target's profiles declare what they implement: the embedded target's
// families by their descriptors, another target's by their task strings.
func Capabilities(t *target.Target) inventory.Capabilities {
	if t.Traits().Embedded() {
		return reference.Capabilities
	}
	return inventory.ByTaskString
}

// NativeBin is the trtmc-native `qual images` builds from the checkout at root.
func NativeBin(root string) string { return HostBin(root, "trtmc-native") }

// HostBin is the host binary name of the checkout at root, in its build/bin (`qual images` builds
// trtmc-native and trtmc-server there, make builds qual and qual-run).
func HostBin(root, name string) string { return filepath.Join(spec.HostBinDir(root), name) }

// Runs are the rows this run gives a checkpoint, in the stage's order: the selected rows with a
// result (full, reduced, variant) that this machine can run (no planned reason, one GPU at most).
// A gap, an excluded, a planned or an unselected row is declared but never run.
func (p *Plan) Runs() []evidence.InventoryRow {
	if p.PlannedReason != "" {
		return nil
	}
	var out []evidence.InventoryRow
	for _, r := range p.Rows {
		if r.GPUs <= 1 && evidence.Resulting(r) && slices.Contains(p.Selection.Rows, r.Profile) {
			out = append(out, r)
		}
	}
	return out
}
