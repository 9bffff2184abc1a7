package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/containers/trtmcserver"
	"github.com/trtmc-qual/trtmc-qual/harness/checkpoint"
	"github.com/trtmc-qual/trtmc-qual/harness/config"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// plannedCommand is one command a run would execute, rendered by the code the run renders it with.
type plannedCommand struct {
	Step  string   `json:"step"`  // build | inspect | gate | serve | native | aiperf
	Where string   `json:"where"` // host | server container | aiperf container
	Dir   string   `json:"dir,omitempty"`
	Env   []string `json:"env"`
	Args  []string `json:"args"`
	Note  string   `json:"note,omitempty"`
}

type plannedRow struct {
	Stage      string           `json:"stage"`
	Profile    string           `json:"profile"`
	Checkpoint string           `json:"checkpoint"`
	Kind       string           `json:"kind"`
	Commands   []plannedCommand `json:"commands,omitempty"`
	Error      string           `json:"error,omitempty"`
}

type planReport struct {
	Target   string          `json:"target"`
	Root     string          `json:"trtmc_root"`
	Checkout target.Checkout `json:"checkout"`
	RunDir   string          `json:"run_dir"`
	Rows     []plannedRow    `json:"rows"`
}

// runPlan prints every command a run of a TRTMC target would execute per row (build, inspect,
// gate, serve, native, AIPerf) with its working directory and environment, without running any.
// The run renders each with the same functions (target.Step, checkpoint.AIPerfProfile,
// workload.PlannedNative); a native run's request values are those of the row's first input.
func runPlan(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	tpath := fs.String("target", "", "a target description (default $QUAL_TARGET; a TRTMC checkout names the file of its layout)")
	trtmcRoot := fs.String("trtmc-root", "", "the TRTMC checkout (default $QUAL_TRTMC_ROOT; required)")
	stageFlag := fs.String("stage", "", stageChoices())
	runDir := fs.String("run-dir", "reports/RUN", "the run directory the commands would use")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	cfg, err := config.Load()
	if err != nil {
		return usageError{err}
	}
	if *tpath == "" {
		*tpath = cfg.TargetPath
	}
	if *trtmcRoot == "" {
		*trtmcRoot = cfg.TRTMCRoot
	}
	if *trtmcRoot == "" {
		return usageError{fmt.Errorf("--trtmc-root (or QUAL_TRTMC_ROOT) is required")}
	}
	if err := mustExist(*trtmcRoot); err != nil {
		return err
	}
	var stages []string
	for _, n := range stage.Names() {
		stages = append(stages, string(n))
	}
	if *stageFlag != "" {
		name, err := stageName(*stageFlag)
		if err != nil {
			return usageError{err}
		}
		stages = []string{name}
	}
	root, err := filepath.Abs(*trtmcRoot)
	if err != nil {
		return err
	}
	t, err := target.Read(*tpath, root)
	if err != nil {
		return usageError{err}
	}
	if !t.Kind.InCheckout() {
		return usageError{fmt.Errorf("target %s is of kind %q: qual plan renders TRTMC-kind targets (--target suites/targets/trtmc.yaml, or QUAL_TARGET)", t.Name, t.Kind)}
	}
	if err := t.CheckLayout(); err != nil {
		return usageError{err}
	}
	rep, err := planTarget(ctx, t, stages, *runDir)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printPlan(stdout, rep)
	return nil
}

func planTarget(ctx context.Context, t *target.Target, stages []string, runDir string) (planReport, error) {
	rep := planReport{Target: t.Path, Root: t.Root, Checkout: t.Checkout(ctx), RunDir: runDir}
	paths, err := t.ManifestPaths()
	if err != nil {
		return rep, err
	}
	for _, s := range stages {
		rows, err := inventory.Discover(paths, s, inventory.Options{Capabilities: inventory.ByTaskString})
		if err != nil {
			return rep, err
		}
		w, err := workload.Get(s)
		if err != nil {
			return rep, err
		}
		for _, r := range rows {
			if r.Kind == inventory.KindExcluded || r.Kind == inventory.KindGap {
				continue
			}
			p := plannedRow{Stage: s, Profile: r.Profile, Checkpoint: r.Checkpoint, Kind: r.Kind}
			if p.Commands, err = planRow(t, w, r, runDir); err != nil {
				p.Error = err.Error()
			}
			rep.Rows = append(rep.Rows, p)
		}
	}
	return rep, nil
}

// planRow renders one row's commands in the order the run executes them.
func planRow(t *target.Target, w workload.Workload, r inventory.Row, runDir string) ([]plannedCommand, error) {
	m, err := manifest.Read(r.Manifest)
	if err != nil {
		return nil, err
	}
	if len(m.Testcases) == 0 {
		return nil, fmt.Errorf("manifest %s has no testcase", m.Name)
	}
	tc := m.Testcases[0]
	work := filepath.Join(runDir, string(w.Stage()), m.Name, "work") // checkpoint: RunDir/<stage>/<profile>/work
	step, err := t.NewStep(os.Getenv, t.CheckpointValues(&m, tc, work), nil)
	if err != nil {
		return nil, err
	}
	var out []plannedCommand
	host := func(name string, tmpl []string, note string) error {
		if len(tmpl) == 0 {
			return nil
		}
		args, err := step.Render(tmpl)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, plannedCommand{Step: name, Where: "host", Dir: step.Dir, Env: step.Env, Args: args, Note: note})
		return nil
	}
	step.Values["bundle"] = plannedBundle(t, step, m)
	if err := host("build", t.Build, "the bundle of record: "+step.Values["bundle"]); err != nil {
		return nil, err
	}
	if err := host("inspect", t.Inspect, ""); err != nil {
		return nil, err
	}
	gateNote := ""
	if t.GateBundle != "" {
		glob, _ := step.Render([]string{t.GateBundle})
		gateNote = "then the bundle it validated, " + glob[0] + ", is the one served"
	}
	if err := host("gate", t.Gate, gateNote); err != nil {
		return nil, err
	}
	if len(t.Server.Command) == 0 || t.ServingNote != "" {
		out = append(out, plannedCommand{Step: "serve", Where: "none", Note: "no serving: " + t.ServingNote})
		return out, nil
	}
	serveValues := map[string]string{"bundle_name": m.Bundle} // as checkpoint.StartServer renders it
	for k, v := range step.Values {
		serveValues[k] = v
	}
	serveValues["bundle_name"] = m.Bundle
	serve, err := target.Expand(t.Server.Command, serveValues)
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	out = append(out, plannedCommand{Step: "serve", Where: "server container", Env: serverEnv(t, serveValues), Args: serve,
		Note: fmt.Sprintf("GPU %s; the checkout mounted read-only at %s; startup within %d s", firstOf(target.Expand([]string{t.Server.GPU}, serveValues)), t.Root, t.Server.StartupSeconds)})
	inputs, load, err := plannedLoad(w, m, tc)
	if err != nil {
		return out, err
	}
	if len(t.NativeRun[m.TaskString()]) == 0 {
		out = append(out, plannedCommand{Step: "native", Where: "none",
			Note: fmt.Sprintf("target %s has no native_run for task %q: the run's identity step fails on this row", t.Name, m.TaskString())})
	}
	if tmpl := t.NativeRun[m.TaskString()]; len(tmpl) > 0 && len(inputs) > 0 {
		request, err := workload.PlannedNative(w, inputs[0], load)
		if err != nil {
			return out, err
		}
		request["bundle"] = path.Join(trtmcserver.BundleDir, m.Bundle)
		native, err := step.NativeArgs(tmpl, request)
		if err != nil {
			return out, fmt.Errorf("native: %w", err)
		}
		out = append(out, plannedCommand{Step: "native", Where: "server container", Args: native,
			Note: fmt.Sprintf("once per distinct request; shown for input %s", inputs[0].ID)})
	}
	profile := checkpoint.AIPerfProfile(t, w, m.Name, "http://trtmc-server:8000", load)
	aiperfArgs, err := profile.Args()
	if err != nil {
		return out, fmt.Errorf("aiperf: %w", err)
	}
	out = append(out, plannedCommand{Step: "aiperf", Where: "aiperf container", Args: append([]string{"aiperf", "profile"}, aiperfArgs...),
		Note: fmt.Sprintf("%d inputs", len(inputs))})
	return out, nil
}

// plannedBundle is where the build leaves the bundle, as Step.Build finds it: trtmc-bench names
// it (<bundle-cache>/<profile>/<manifest bundle>, bundles.py), or build_bundle says.
func plannedBundle(t *target.Target, step *target.Step, m manifest.Manifest) string {
	if t.BuildBundle != "" {
		if p, err := step.Render([]string{t.BuildBundle}); err == nil {
			return p[0]
		}
	}
	return "(as trtmc-bench reports it: " + filepath.Join(step.Dir, "bundle-cache", m.Name, m.Bundle) + ")"
}

// plannedLoad reads the row's inputs (into a scratch directory, removed after) and the AIPerf
// load the run would send.
func plannedLoad(w workload.Workload, m manifest.Manifest, tc manifest.Testcase) ([]workload.Input, workload.Load, error) {
	dir, err := os.MkdirTemp("", "qual-plan-")
	if err != nil {
		return nil, workload.Load{}, err
	}
	defer os.RemoveAll(dir)
	root, err := os.Getwd()
	if err != nil {
		return nil, workload.Load{}, err
	}
	inputs, err := w.Inputs(root, m, tc, dir)
	if err != nil {
		return nil, workload.Load{}, fmt.Errorf("inputs: %w", err)
	}
	load, err := w.AIPerf(inputs, m, tc)
	if err != nil {
		return inputs, load, fmt.Errorf("aiperf load: %w", err)
	}
	return inputs, load, nil
}

func serverEnv(t *target.Target, values map[string]string) []string {
	var env []string
	for k, v := range t.Server.Env {
		if x, err := target.Expand([]string{v}, values); err == nil {
			v = x[0]
		}
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return env
}

func firstOf(args []string, err error) string {
	if err != nil || len(args) == 0 {
		return "?"
	}
	return args[0]
}

func printPlan(w io.Writer, rep planReport) {
	fmt.Fprintf(w, "target %s on TRTMC checkout %s (commit %s)\n", rep.Target, rep.Root, rep.Checkout.Commit)
	if rep.Checkout.Warning != "" {
		fmt.Fprintf(w, "WARNING: %s\n", rep.Checkout.Warning)
	}
	fmt.Fprintf(w, "nothing was run; paths are under the run directory %s\n", rep.RunDir)
	for _, r := range rep.Rows {
		fmt.Fprintf(w, "\n== %s: %s (%s, %s)\n", r.Stage, r.Profile, r.Checkpoint, r.Kind)
		for _, c := range r.Commands {
			fmt.Fprintf(w, "-- %s [%s]", c.Step, c.Where)
			if c.Dir != "" {
				fmt.Fprintf(w, " in %s", c.Dir)
			}
			fmt.Fprintln(w)
			if len(c.Env) > 0 {
				fmt.Fprintf(w, "   env %s\n", shellJoin(c.Env))
			}
			if len(c.Args) > 0 {
				fmt.Fprintf(w, "   %s\n", shellJoin(c.Args))
			}
			if c.Note != "" {
				fmt.Fprintf(w, "   (%s)\n", c.Note)
			}
		}
		if r.Error != "" {
			fmt.Fprintf(w, "-- cannot render the rest: %s\n", r.Error)
		}
	}
}

// shellJoin quotes each argument for a POSIX shell when it needs it (no library in the module
// does this, and it is a few lines), so a line can be pasted to run one command by hand.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
