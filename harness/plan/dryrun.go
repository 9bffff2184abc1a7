package plan

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/containers/spec"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// DryRunCommand is one command a run would execute, rendered by the code the run renders it with.
type DryRunCommand struct {
	Step  string   `json:"step"`  // build | inspect | gate | serve | native | aiperf
	Where string   `json:"where"` // host | server container | aiperf container
	Dir   string   `json:"dir,omitempty"`
	Env   []string `json:"env"`
	Args  []string `json:"args"`
	Note  string   `json:"note,omitempty"`
}

// DryRunRow is one row's commands, or why they could not be rendered.
type DryRunRow struct {
	Stage      stage.Name      `json:"stage"`
	Profile    string          `json:"profile"`
	Checkpoint string          `json:"checkpoint"`
	Kind       evidence.Kind   `json:"kind"`
	Commands   []DryRunCommand `json:"commands,omitempty"`
	Error      string          `json:"error,omitempty"`
}

// DryRun is what `qual plan` prints: every command a run of a TRTMC target would execute.
type DryRun struct {
	Target   string          `json:"target"`
	Root     string          `json:"trtmc_root"`
	Checkout target.Checkout `json:"checkout"`
	RunDir   string          `json:"run_dir"`
	Rows     []DryRunRow     `json:"rows"`
}

// Render renders every command a run of target t would execute for each counted, reduced or
// variant row of stages, by the code the run renders them with, without running any.
func Render(ctx context.Context, t *target.Target, stages []stage.Name, runDir string) (DryRun, error) {
	rep := DryRun{Target: t.Path, Root: t.Root, Checkout: t.Checkout(ctx), RunDir: runDir}
	paths, err := t.ManifestPaths()
	if err != nil {
		return rep, err
	}
	for _, s := range stages {
		rows, err := inventory.Discover(paths, s, inventory.Options{Capabilities: inventory.ByTaskString})
		if err != nil {
			return rep, err
		}
		w, err := workload.Of(s)
		if err != nil {
			return rep, err
		}
		for _, r := range rows {
			if r.Kind == evidence.KindExcluded || r.Kind == evidence.KindGap {
				continue
			}
			p := DryRunRow{Stage: s, Profile: r.Profile, Checkpoint: r.Checkpoint, Kind: r.Kind}
			if r.GPUs > 1 { // the run records it planned with this reason and executes nothing for it
				p.Commands = []DryRunCommand{{Step: "planned", Where: "none", Note: "distributed: " + r.Reason}}
				rep.Rows = append(rep.Rows, p)
				continue
			}
			if p.Commands, err = planRow(t, w, r, runDir); err != nil {
				p.Error = err.Error()
			}
			rep.Rows = append(rep.Rows, p)
		}
	}
	return rep, nil
}

// planRow renders one row's commands in the order the run executes them.
func planRow(t *target.Target, w workload.Workload, r evidence.InventoryRow, runDir string) ([]DryRunCommand, error) {
	m, err := manifest.Read(r.Manifest)
	if err != nil {
		return nil, err
	}
	if len(m.Testcases) == 0 {
		return nil, fmt.Errorf("manifest %s has no testcase", m.Name)
	}
	tc := m.Testcases[0]
	work := filepath.Join(w.Stage().Dir(runDir), m.Name, "work") // checkpoint: RunDir/<stage>/<profile>/work
	step, err := t.NewStep(t.CheckpointValues(&m, tc, work), nil)
	if err != nil {
		return nil, err
	}
	var out []DryRunCommand
	host := func(name string, tmpl []string, note string) error {
		if len(tmpl) == 0 {
			return nil
		}
		args, err := step.Render(tmpl)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, DryRunCommand{Step: name, Where: "host", Dir: step.Dir, Env: step.Env, Args: args, Note: note})
		return nil
	}
	step.Values["bundle"] = plannedBundle(t, step, m)
	if t.BuildOutput == target.FamilyGate {
		out = append(out, DryRunCommand{Step: "build", Where: "host", Note: "the family gate below builds the bundle: the row's one engine build, " +
			"inspected, served and run natively: " + step.Values["bundle"]})
		if err := host("gate", t.Gate, gateNote(t, step)); err != nil {
			return nil, err
		}
		if err := host("inspect", t.Inspect, "on the bundle the gate built and validated"); err != nil {
			return nil, err
		}
		return planServing(t, w, m, tc, step, out)
	}
	if err := host("build", t.Build, "the bundle of record: "+step.Values["bundle"]); err != nil {
		return nil, err
	}
	if err := host("inspect", t.Inspect, ""); err != nil {
		return nil, err
	}
	if err := host("gate", t.Gate, gateNote(t, step)); err != nil {
		return nil, err
	}
	return planServing(t, w, m, tc, step, out)
}

// gateNote says which file the gate leaves as the bundle of record.
func gateNote(t *target.Target, step *target.Step) string {
	if len(t.GateBundle) == 0 {
		return ""
	}
	var globs []string
	for _, g := range t.GateBundle {
		if x, err := step.Render([]string{g}); err == nil {
			globs = append(globs, x[0])
		}
	}
	return "then the one bundle it validated, at " + strings.Join(globs, " or ") + ", is the one served"
}

// planServing renders the served part of a row: server, native twin, AIPerf.
func planServing(t *target.Target, w workload.Workload, m manifest.Manifest, tc manifest.Testcase, step *target.Step, out []DryRunCommand) ([]DryRunCommand, error) {
	if len(t.Server.Command) == 0 || t.ServingNote != "" {
		out = append(out, DryRunCommand{Step: "serve", Where: "none", Note: "no serving: " + t.ServingNote})
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
	out = append(out, DryRunCommand{Step: "serve", Where: "server container", Env: serverEnv(t, serveValues), Args: serve,
		Note: fmt.Sprintf("GPU %s; the checkout mounted read-only at %s; startup within %d s", firstOf(target.Expand([]string{t.Server.GPU}, serveValues)), t.Root, t.Server.StartupSeconds)})
	inputs, load, err := plannedLoad(w, m, tc)
	var missing *fs.PathError
	if err != nil && errors.As(err, &missing) {
		// A manifest-only tree: show the path the run would read, marked, and render the rest.
		inputs = []workload.Input{{ID: "MISSING " + missing.Path}}
		load = workload.Load{}
		out = append(out, DryRunCommand{Step: "inputs", Where: "host", Note: "MISSING: the run would read " + missing.Path + " (" + missing.Err.Error() + ")"})
	} else if err != nil {
		return out, err
	}
	if len(t.NativeRun[m.TaskString()]) == 0 {
		out = append(out, DryRunCommand{Step: "native", Where: "none",
			Note: fmt.Sprintf("target %s has no native_run for task %q: the run's identity step fails on this row", t.Name, m.TaskString())})
	}
	if tmpl := t.NativeRun[m.TaskString()]; len(tmpl) > 0 && len(inputs) > 0 {
		request, err := plannedNative(w, inputs[0], load, missing)
		if err != nil {
			return out, err
		}
		request["bundle"] = path.Join(spec.BundleDir, m.Bundle)
		native, err := step.NativeArgs(tmpl, request)
		if err != nil {
			return out, fmt.Errorf("native: %w", err)
		}
		out = append(out, DryRunCommand{Step: "native", Where: "native container", Args: native,
			Note: fmt.Sprintf("in a container of the serving image after the server stopped (one model in GPU memory at a time); once per distinct request; shown for input %s", inputs[0].ID)})
	}
	profile := AIPerfProfile(t, w, m.Name, "http://trtmc-server:8000", load)
	aiperfArgs, err := profile.Args()
	if err != nil {
		return out, fmt.Errorf("aiperf: %w", err)
	}
	out = append(out, DryRunCommand{Step: "aiperf", Where: "aiperf container", Args: append([]string{"aiperf", "profile"}, aiperfArgs...),
		Note: evidence.CountOf(len(inputs), "input", "inputs")})
	return out, nil
}

// plannedNative is the native run's request values for the row's first input; with the input
// missing, {input} is the path the run would read (the workload's container path is not known).
func plannedNative(w workload.Workload, in workload.Input, load workload.Load, missing *fs.PathError) (map[string]string, error) {
	if missing == nil {
		return workload.PlannedNative(w, in, load)
	}
	return map[string]string{"input": missing.Path + " (MISSING)", "prompt": "", "negative_prompt": "", "width": "", "height": "",
		"steps": "", "guidance": "", "seed": "", "chunk_samples": "(sample rate of the MISSING clip × chunk_ms / 1000)"}, nil
}

// plannedBundle is where the build leaves the bundle, as Step.Build finds it: trtmc-bench names
// it (<bundle-cache>/<profile>/<manifest bundle>, bundles.py), or build_bundle says.
func plannedBundle(t *target.Target, step *target.Step, m manifest.Manifest) string {
	if t.BuildOutput == target.FamilyGate {
		return "(the one file the gate leaves at " + strings.TrimPrefix(gateNote(t, step), "then the one bundle it validated, at ") + ")"
	}
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

// AIPerfProfile is the AIPerf profile a checkpoint of profile sends to url: the stage's load
// and the workload's rows and extra inputs (qual plan renders it with Profile.Args, as serving's RunAIPerf does).
func AIPerfProfile(t *target.Target, w workload.Workload, profile, url string, l workload.Load) spec.Profile {
	load := t.StageLoad(w.Stage())
	p := spec.Profile{Model: profile, URL: url, RequestCount: load.Requests, WarmupCount: load.Warmup, Concurrency: load.Concurrency,
		Seed: load.Seed, TimeoutSeconds: load.TimeoutSeconds, Media: map[string]string{}, Runs: load.Runs,
		EndpointType: w.EndpointType(), Inputs: l.Rows, ExtraInputs: l.ExtraInputs, Goodput: load.Goodput}
	maps.Copy(p.Media, l.Media)
	return p
}
