// Package checkpoint is what one checkpoint's qualification does, step by step, in the order
// the suites' specs claim it: build the bundle and hash it, check its capability, run the
// family gate on that exact bundle, serve it, run AIPerf, join, compare native and HTTP
// outputs, check they are meaningful, derive timing, check the bundle is unchanged, and write
// the result row. Each step returns an error that names what failed; the suites turn each into
// one spec.
package checkpoint

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/claim"
	"github.com/trtmc-qual/trtmc-qual/harness/config"
	"github.com/trtmc-qual/trtmc-qual/harness/cost"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/serving"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// Env is what every checkpoint of a run shares.
type Env struct {
	Root      string // repository root (golden/, threshold pins)
	Target    *target.Target
	RunDir    string     // reports/<run-id>
	Stage     stage.Name // the suite's stage: the run directory's <stage>/
	Images    serving.Images
	NativeBin string // the reference target's trtmc-native on the host
	// Cache and Python are what `make deps` prepared on the host (harness/config): the cache
	// that fetched clips and venvs are in, and the families' worker interpreter ("" = their
	// default). The reference build and gate get them as flags; the workload reads clips from Cache.
	Cache  string
	Python string
	// Log takes each step's detail; Console the lines a user always sees (the row's first line,
	// progress, heartbeats, the [time] line). A Console of nil is Log.
	Log     io.Writer
	Console io.Writer
}

// console is where the lines a user always sees go.
func (e *Env) console() io.Writer {
	if e.Console != nil {
		return e.Console
	}
	return e.Log
}

// Checkpoint is one inventory row being qualified.
type Checkpoint struct {
	Env      *Env
	W        workload.Workload // the row's stage
	Row      evidence.InventoryRow
	Manifest manifest.Manifest
	Testcase manifest.Testcase
	Dir      string // RunDir/<stage>/<profile>
	Result   evidence.Result

	bundlePath string
	step       *target.Step // TRTMC-kind targets: the checkpoint's values for TRTMC's own tooling
	steps      map[string]bool
	serving    *served
	pairs      []join.Pair // the joined requests, as the join step derived them
	meter      *cost.Meter // the row's wall time by step (harness/cost)
}

// New prepares a checkpoint from its inventory row, in RunDir/<stage>/<profile>.
func New(env *Env, row evidence.InventoryRow) (*Checkpoint, error) {
	return NewIn(env, row, "")
}

// NewIn prepares a checkpoint whose files go to dir (default RunDir/<stage>/<profile>). The
// row's own stage decides its workload: a transcription row served for the refusal probe is
// still a transcription checkpoint.
func NewIn(env *Env, row evidence.InventoryRow, dir string) (*Checkpoint, error) {
	w, err := workload.Get(row.Stage)
	if err != nil {
		return nil, err
	}
	m, err := manifest.Read(row.Manifest)
	if err != nil {
		return nil, err
	}
	if len(m.Testcases) == 0 {
		return nil, fmt.Errorf("manifest %s has no testcase", m.Name)
	}
	c := &Checkpoint{Env: env, W: workload.WithCache(w, env.Cache), Row: row, Manifest: m, Testcase: m.Testcases[0], steps: map[string]bool{}, Dir: dir, meter: cost.Start()}
	if c.Dir == "" {
		c.Dir = filepath.Join(env.Stage.Dir(env.RunDir), m.Name)
	}
	c.Result = evidence.Result{Profile: m.Name, Checkpoint: row.Checkpoint, Revision: row.Revision, Kind: evidence.Kind(row.Kind),
		Counted: row.Counted, Status: evidence.StatusPlanned, Statement: row.Statement, Precision: m.Precision, GPU: "none",
		Reproduce: reproduce(env, m.Name)}
	return c, os.MkdirAll(c.Dir, 0o755)
}

// logf writes a line of the row's detail.
func (c *Checkpoint) logf(format string, args ...any) {
	c.linef(c.Env.Log, format, args...)
}

// sayf writes a line a user always sees: the row's first line, progress, a heartbeat.
func (c *Checkpoint) sayf(format string, args ...any) {
	c.linef(c.Env.console(), format, args...)
}

func (c *Checkpoint) linef(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "[%s/%s] %s\n", c.Env.Stage, c.Manifest.Name, fmt.Sprintf(format, args...))
}

// fail records a failure in the result row and returns it as an error.
func (c *Checkpoint) fail(step string, err error) error {
	c.Result.Failures = append(c.Result.Failures, step+": "+err.Error())
	return fmt.Errorf("%s: %w", step, err)
}

// done marks a step passed.
func (c *Checkpoint) done(step string) { c.steps[step] = true }

// run executes a command, records it, and returns its stdout.
func (c *Checkpoint) run(ctx context.Context, args []string) ([]byte, error) {
	return c.runKeeping(ctx, args, "")
}

// runKeeping is run that also keeps the command's whole stdout and stderr in the row's folder as
// <keep>.stdout.txt and <keep>.stderr.txt (keep "" keeps nothing): a failed gate's own output is
// then there to read, not only the tail its error carries.
func (c *Checkpoint) runKeeping(ctx context.Context, args []string, keep string) ([]byte, error) {
	c.Result.Commands = append(c.Result.Commands, args)
	cmd := target.HostCommand(ctx, args) // a timeout kills the command's whole process group
	cmd.Dir = c.Env.Root
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := target.RunHost(cmd)
	if keep != "" {
		for ext, out := range map[string][]byte{".stdout.txt": stdout.Bytes(), ".stderr.txt": stderr.Bytes()} {
			if werr := os.WriteFile(filepath.Join(c.Dir, keep+ext), out, 0o644); werr != nil {
				return stdout.Bytes(), fmt.Errorf("keep %s output: %w", keep, werr)
			}
		}
	}
	if err != nil {
		return stdout.Bytes(), fmt.Errorf("%s: %w\n%s%s", strings.Join(args, " "), err, workload.Tail(stdout.String()), workload.Tail(stderr.String()))
	}
	return stdout.Bytes(), nil
}

// placeholders are the values a target's command templates may use.
func (c *Checkpoint) placeholders() map[string]string {
	return map[string]string{"native": c.Env.NativeBin, "manifest": c.Manifest.Path, "bundle": c.bundlePath,
		"testcase": c.Testcase.Name, "root": c.Env.Root, "profile": c.Manifest.Name}
}

// nativeHostArgs expands a reference host command (build, gate) and appends what trtmc-native
// needs to find on this host: it reads no environment, so the cache and the worker interpreter
// harness/config resolved are flags. They are added here, not in the target file, because the
// file's commands are also re-expanded by qual verify --rerun from the evidence alone.
func (c *Checkpoint) nativeHostArgs(tmpl []string) ([]string, error) {
	args, err := target.Expand(tmpl, c.placeholders())
	if err != nil {
		return nil, err
	}
	return append(args, family.Host{Cache: c.Env.Cache, Python: c.Env.Python}.Args()...), nil
}

// Build builds the bundle the target's way (kindSteps) and hashes it.
func (c *Checkpoint) Build(ctx context.Context) error {
	defer c.timed("build")()
	defer c.beat(ctx, "build")()
	return c.kind().build(ctx, c)
}

// build runs the reference target's build command and hashes the bundle.
func (referenceSteps) build(ctx context.Context, c *Checkpoint) error {
	c.bundlePath = filepath.Join(c.Dir, filepath.Base(c.Manifest.Bundle))
	args, err := c.nativeHostArgs(c.Env.Target.Build)
	if err != nil {
		return c.fail("build", err)
	}
	start := time.Now()
	if _, err := c.run(ctx, args); err != nil {
		return c.fail("build", err)
	}
	b, err := bundle.Stat(c.bundlePath)
	if err != nil {
		return c.fail("build", err)
	}
	header, err := headerMap(b.Header)
	if err != nil {
		return c.fail("build", err)
	}
	c.Result.Bundle = evidence.Bundle{Path: evidence.RelPath(c.Env.RunDir, c.bundlePath), Bytes: b.Size, SHA256Built: b.SHA256, Header: header}
	c.logf("built bundle %s (%d bytes, sha256 %s) in %.1fs", filepath.Base(c.bundlePath), b.Size, b.SHA256, time.Since(start).Seconds())
	c.done("build")
	return nil
}

// Capability checks that the built bundle implements the stage's Task, the target's way
// (kindSteps).
func (c *Checkpoint) Capability(ctx context.Context) error {
	defer c.timed("capability")()
	return c.kind().capability(ctx, c, string(c.W.Stage().Capability()))
}

// capability loads the reference bundle (`trtmc-native inspect`) and reads its Tasks.
func (referenceSteps) capability(ctx context.Context, c *Checkpoint, want string) error {
	out, err := c.run(ctx, []string{c.Env.NativeBin, "inspect", c.bundlePath})
	if err != nil {
		return c.fail("capability", err)
	}
	var ins struct {
		Tasks []struct {
			Name     string `json:"name"`
			Controls []struct {
				Name string `json:"name"`
			} `json:"controls"`
		} `json:"tasks"`
	}
	if err := json.Unmarshal(out, &ins); err != nil {
		return c.fail("capability", err)
	}
	var names []string
	for _, t := range ins.Tasks {
		names = append(names, t.Name)
		if t.Name == want {
			c.Row.Controls = nil
			for _, ctl := range t.Controls {
				c.Row.Controls = append(c.Row.Controls, ctl.Name)
			}
			c.Result.Controls = c.Row.Controls
			c.Result.Status = evidence.StatusImplemented
			c.done("capability")
			return nil
		}
	}
	return c.fail("capability", fmt.Errorf("bundle declares tasks %v, not %s: capability gap", names, want))
}

// Gate runs the family's unchanged gate on the exact bundle, the target's way (kindSteps).
func (c *Checkpoint) Gate(ctx context.Context) error {
	defer c.timed("gate")()
	defer c.beat(ctx, "family gate")()
	return c.kind().gate(ctx, c)
}

// gate checks the threshold pin, then runs the target's gate command on the exact bundle.
func (referenceSteps) gate(ctx context.Context, c *Checkpoint) error {
	thresholds := manifest.ThresholdsPath(c.Manifest, c.Testcase.Name)
	pin, err := CheckThresholdPin(c.Env.Root, thresholds)
	if err != nil {
		return c.fail("gate", err)
	}
	c.Result.ThresholdPin = pin
	before, err := bundle.FileSHA256(c.bundlePath)
	if err != nil || before != c.Result.Bundle.SHA256Built {
		return c.fail("gate", fmt.Errorf("bundle changed between build and gate: %s vs %s (%v)", before, c.Result.Bundle.SHA256Built, err))
	}
	args, err := c.nativeHostArgs(c.Env.Target.Gate)
	if err != nil {
		return c.fail("gate", err)
	}
	out, runErr := c.runKeeping(ctx, args, "gate")
	var res evidence.GateResult
	if err := json.Unmarshal(out, &res); err != nil {
		if runErr != nil {
			return c.fail("gate", runErr)
		}
		return c.fail("gate", fmt.Errorf("gate printed no result JSON: %w", err))
	}
	c.Result.Gate = &res
	c.Result.Bundle.SHA256Gated = res.BundleSHA
	// The gate's figures stored are the ones derived from its stored outputs and the pins, as
	// verify derives them; then how sure the corpus figure is to be within its bound.
	if _, err := c.deriveWith(c.gateGiven(thresholds), claim.Gate(), claim.Accuracy()); err != nil {
		return c.fail("gate", err)
	}
	switch {
	case res.BundleSHA != c.Result.Bundle.SHA256Built:
		return c.fail("gate", fmt.Errorf("gate ran on bundle %s, built %s", res.BundleSHA, c.Result.Bundle.SHA256Built))
	case !res.Passed:
		return c.fail("gate", fmt.Errorf("family gate %s failed: %v", res.Testcase, res.Failures))
	case runErr != nil:
		return c.fail("gate", runErr)
	}
	c.Result.Status = evidence.StatusFamilyValidated
	c.logf("gate %s passed: %s", res.Testcase, figureList(res.Figures))
	c.done("gate")
	return nil
}

// CheckThresholdPin compares a threshold file with its pin in golden/thresholds.sha256. A
// changed threshold fails until the pin is deliberately updated.
func CheckThresholdPin(root, thresholdsPath string) (string, error) {
	rel := evidence.RelPath(root, thresholdsPath)
	pins, err := os.ReadFile(filepath.Join(root, "golden", "thresholds.sha256"))
	if err != nil {
		return "", fmt.Errorf("threshold pins: %w", err)
	}
	got, err := bundle.FileSHA256(thresholdsPath)
	if err != nil {
		return "", err
	}
	sc := bufio.NewScanner(bytes.NewReader(pins))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[1] == rel {
			if f[0] != got {
				return "", fmt.Errorf("threshold file %s changed: pinned sha256 %s, now %s; if the change is deliberate, update golden/thresholds.sha256 (sha256sum %s)", rel, f[0], got, rel)
			}
			return got, nil
		}
	}
	return "", fmt.Errorf("threshold file %s has no pin in golden/thresholds.sha256", rel)
}

// Unchanged checks the bundle's sha256 after serving equals the built one.
func (c *Checkpoint) Unchanged() error {
	defer c.timed("unchanged")()
	after, err := bundle.FileSHA256(c.bundlePath)
	if err != nil {
		return c.fail("bundle unchanged", err)
	}
	c.Result.Bundle.SHA256After = after
	if after != c.Result.Bundle.SHA256Built {
		return c.fail("bundle unchanged", fmt.Errorf("bundle sha256 %s after the run, %s when built", after, c.Result.Bundle.SHA256Built))
	}
	c.done("unchanged")
	return nil
}

// Finish settles the row's status by the one rule the verifier also reads
// (evidence.CheckpointStatus): aiperf-qualified only when every step of a full qualification
// passed; a reduced or variant row stops at family-validated by design.
func (c *Checkpoint) Finish(full bool) evidence.Result {
	all := []string{"build", "capability", "gate"}
	if full {
		all = append(all, "serve", "aiperf", "join", "identity", "meaning", "timing", "nocache", "unchanged")
	}
	missing := []string{}
	for _, s := range all {
		if !c.steps[s] {
			missing = append(missing, s)
		}
	}
	c.Result.Status = evidence.CheckpointStatus(full, len(missing) == 0)
	if len(missing) > 0 && len(c.Result.Failures) == 0 {
		c.Result.Failures = append(c.Result.Failures, "steps not completed: "+strings.Join(missing, ", "))
	}
	c.settleCost()
	return c.Result
}

// headerMap is the bundle header as evidence records it: every field but the section table.
func headerMap(h any) (map[string]any, error) {
	raw, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("bundle header: %w", err)
	}
	header := map[string]any{}
	if err := json.Unmarshal(raw, &header); err != nil {
		return nil, fmt.Errorf("bundle header: %w", err)
	}
	delete(header, "sections")
	return header, nil
}

// figureList is a gate's figures as a reader wants them on the console: name=value, by name.
func figureList(figures map[string]float64) string {
	parts := make([]string, 0, len(figures))
	for _, name := range slices.Sorted(maps.Keys(figures)) {
		parts = append(parts, fmt.Sprintf("%s=%.4g", name, figures[name]))
	}
	return strings.Join(parts, ", ")
}

// NotRun is the failed result of a selected row whose checkpoint left none (evidence.NotRunResult),
// with the command that runs it again.
func NotRun(env *Env, row evidence.InventoryRow, why string) evidence.Result {
	r := evidence.NotRunResult(row, why)
	r.Reproduce = reproduce(env, row.Profile)
	return r
}

// reproduce is the command that runs this row alone with this run's AIPerf settings (a reduced
// or smoke run's load included, so the command measures what this row measured).
func reproduce(env *Env, profile string) string {
	load := env.Target.AIPerf[env.Stage]
	vars := []string{}
	for _, v := range []struct {
		suffix string
		value  int
	}{{"WARMUP", load.Warmup}, {"REQUESTS", load.Requests}, {"CONCURRENCY", load.Concurrency}, {"RUNS", load.Runs}} {
		if v.value > 0 || v.suffix == "WARMUP" {
			vars = append(vars, fmt.Sprintf("%s=%d", config.LoadVar(env.Stage, v.suffix), v.value))
		}
	}
	return fmt.Sprintf("%s make qualify TARGET=%s STAGE=%s ROWS=%s", strings.Join(vars, " "), evidence.RelPath(env.Root, env.Target.Path), env.Stage, profile)
}
