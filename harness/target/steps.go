package target

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The steps below are what a TRTMC-kind target needs beyond running a command: where the built
// bundle is, what the gate's JUnit says, which bundle the gate validated. The checkpoint flow calls
// them with its own Runner (which records every command); the contract-double test calls them with
// ExecRunner. The reference target never needs them (its commands print the answers).

// Runner runs one command with extra environment in dir and returns its stdout. env holds
// "KEY=VALUE" to set and bare "KEY" to unset (Environ).
type Runner func(ctx context.Context, args, env []string, dir string) ([]byte, error)

// ExecRunner runs the command on this machine in its own process group (HostCommand), with the
// harness's environment changed by env.
func ExecRunner(ctx context.Context, args, env []string, dir string) ([]byte, error) {
	cmd := HostCommand(ctx, args)
	cmd.Env, cmd.Dir = hostEnviron(env), dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := RunHost(cmd)
	out := stdout.Bytes()
	if err != nil {
		return out, fmt.Errorf("%s: %w\n%s%s", strings.Join(args, " "), err, clip(out), clip(stderr.Bytes()))
	}
	return out, nil
}

// Step holds one checkpoint's placeholder values and the environment of its host commands.
type Step struct {
	T      *Target
	Values map[string]string
	Env    []string
	Dir    string
	Run    Runner

	gated *gateRun // the family gate's run when it built the bundle
}

// NewStep fills the target's own values (defaults, QUAL_TRTMC_* overrides) and the checkpoint's:
// profile, testcase, family_dir, bundle_name and work.
func (t *Target) NewStep(checkpoint map[string]string, run Runner) (*Step, error) {
	v := t.Values()
	for k, x := range checkpoint {
		v[k] = x
	}
	env, err := t.Environ(v)
	if err != nil {
		return nil, err
	}
	if run == nil {
		run = ExecRunner
	}
	return &Step{T: t, Values: v, Env: env, Dir: v["work"], Run: run}, nil
}

func (s *Step) exec(ctx context.Context, tmpl []string) ([]byte, error) {
	args, err := s.Render(tmpl)
	if err != nil {
		return nil, err
	}
	return s.Run(ctx, args, s.Env, s.Dir)
}

func (s *Step) path(tmpl string) (string, error) {
	p, err := Expand([]string{tmpl}, s.Values)
	if err != nil {
		return "", err
	}
	return p[0], nil
}

// NativeArgs renders a native_run template with a request's values (bundle, input or prompt, ...)
// over the step's own ({trtmc_binary}, {runtime_root}, {max_tokens}, ...): the run and `qual
// plan` both render it here. A request that names its clip's {sample_rate} gets that clip's
// {chunk_samples}, as TRTMC's worker chunks each request's own clip.
func (s *Step) NativeArgs(tmpl []string, request map[string]string) ([]string, error) {
	values := make(map[string]string, len(s.Values)+len(request))
	for k, v := range s.Values {
		values[k] = v
	}
	for k, v := range request {
		values[k] = v
	}
	requestChunk(values)
	return Expand(tmpl, values)
}

// Render fills a command template with the step's values, as the step runs it.
func (s *Step) Render(tmpl []string) ([]string, error) { return Expand(tmpl, s.Values) }

// Build runs the build command and returns where the bundle is: named by trtmc-bench's
// --prepare-only report, at build_bundle, or at {bundle}; with build_output: family-gate, the
// family gate itself builds it (the row's one engine build) and gate_bundle finds it. It becomes
// {bundle} for later steps. The second result is the contract double's self-label when the build
// tool printed one. The build is bounded by the target's build timeout.
func (s *Step) Build(ctx context.Context) (string, string, error) {
	ctx, cancel := context.WithTimeout(ctx, s.T.Limits("").Build)
	defer cancel()
	if s.T.BuildOutput == FamilyGate {
		return s.buildByGate(ctx)
	}
	out, err := s.exec(ctx, s.T.Build)
	if err != nil {
		return "", "", fmt.Errorf("build: %w", err)
	}
	var bundle, double string
	switch {
	case s.T.BuildOutput == "trtmc-bench-prepare":
		p, err := ParsePrepare(out, s.Values["profile"])
		if err != nil {
			return "", "", err
		}
		bundle, double = p.Bundle, p.Double
	case s.T.BuildBundle != "":
		if bundle, err = s.path(s.T.BuildBundle); err != nil {
			return "", "", err
		}
	default:
		bundle = s.Values["bundle"]
	}
	if _, err := os.Stat(bundle); err != nil {
		return "", "", fmt.Errorf("build reported success but left no bundle: %w", err)
	}
	s.Values["bundle"] = bundle
	return bundle, double, nil
}

// Inspect runs the target's inspect command on {bundle}.
func (s *Step) Inspect(ctx context.Context) (Inspected, error) {
	if len(s.T.Inspect) == 0 {
		return Inspected{}, fmt.Errorf("target %s has no inspect command", s.T.Name)
	}
	out, err := s.exec(ctx, s.T.Inspect)
	if err != nil {
		return Inspected{}, fmt.Errorf("inspect: %w", err)
	}
	return ParseInspect(s.T.InspectOut, out)
}

// gateRun is a family gate's run: its JUnit report and the command's own error.
type gateRun struct {
	junit  []byte
	runErr error
}

// buildByGate runs the family gate, which builds its bundle and validates it; the gate step then
// reads the same run's JUnit. A failed test that left its bundle is a built bundle whose gate failed.
func (s *Step) buildByGate(ctx context.Context) (string, string, error) {
	run, err := s.runGate(ctx)
	if err != nil {
		return "", "", fmt.Errorf("build (by the family gate): %w", err)
	}
	s.gated = run
	bundle, err := s.gateBundle()
	if err != nil {
		rep, _ := ParseJUnit(run.junit, s.T.GateCase, []string{s.Values["testcase"]})
		return "", "", fmt.Errorf("build (by the family gate, %v; its report: %s): %w", run.runErr, strings.Join(rep.Reasons, "; "), err)
	}
	s.Values["bundle"] = bundle
	return bundle, "", nil
}

// BuiltByGate says whether the family gate built the bundle of record (build_output: family-gate).
func (s *Step) BuiltByGate() bool { return s.gated != nil }

// runGate runs the gate command, bounded by the target's gate timeout, and reads its JUnit file.
func (s *Step) runGate(ctx context.Context) (*gateRun, error) {
	ctx, cancel := context.WithTimeout(ctx, s.T.Limits("").Gate)
	defer cancel()
	_, runErr := s.exec(ctx, s.T.Gate) // pytest exits 1 on a failed test: the JUnit says which
	junitPath, err := s.path(s.T.GateJUnit)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(junitPath)
	if err != nil {
		return nil, fmt.Errorf("gate wrote no JUnit report (%v): %w", runErr, err)
	}
	return &gateRun{junit: data, runErr: runErr}, nil
}

// gateBundle is the one file gate_bundle's globs find.
func (s *Step) gateBundle() (string, error) {
	globs := make([]string, len(s.T.GateBundle))
	for i, g := range s.T.GateBundle {
		var err error
		if globs[i], err = s.path(g); err != nil {
			return "", err
		}
	}
	return ValidatedBundle(globs...)
}

// Gate reads the family's own test's JUnit report for the requested cases, running the test
// unless it already ran as the build. When the target names gate_bundle, the bundle the test
// validated becomes {bundle}: that file, and no other, is served. A failing test is a failed
// report, not an error; an unreadable one is an error.
func (s *Step) Gate(ctx context.Context, cases []string) (GateReport, string, error) {
	run := s.gated
	if run == nil {
		var err error
		if run, err = s.runGate(ctx); err != nil {
			return GateReport{}, "", err
		}
	}
	rep, err := ParseJUnit(run.junit, s.T.GateCase, cases)
	if err != nil {
		return rep, "", err
	}
	if run.runErr != nil && rep.Passed {
		rep.Passed, rep.Reasons = false, append(rep.Reasons, "gate command failed although its JUnit passed: "+run.runErr.Error())
	}
	if len(s.T.GateBundle) == 0 || !rep.Passed {
		return rep, s.Values["bundle"], nil
	}
	validated, err := s.gateBundle()
	if err != nil {
		return rep, "", err
	}
	s.Values["bundle"] = validated
	return rep, validated, nil
}

// Missing says what this machine lacks to run a TRTMC-kind target ("" when nothing): the
// interpreter and native CLI its commands name, the serving worker, and a serving image (named, or a Dockerfile in
// the checkout, which the harness builds). A target without serving (older TRTMC) needs no image. The
// harness keeps every row planned with this reason: nothing is claimed from a machine that lacks them.
func (t *Target) Missing() string {
	v := t.Values()
	if py := v["python"]; py != "" {
		if _, err := exec.LookPath(py); err != nil {
			return fmt.Sprintf("planned: the target's Python %q is not on this machine (set QUAL_TRTMC_PYTHON)", py)
		}
	}
	if bin := v["trtmc_binary"]; bin != "" {
		if _, err := os.Stat(bin); err != nil {
			return fmt.Sprintf("planned: TRTMC's native CLI %s is not built (set QUAL_TRTMC_TRTMC_BINARY)", bin)
		}
	}
	if t.ServingNote != "" || len(t.Server.Command) == 0 {
		return ""
	}
	// The serving worker is built only with -DTRTMC_BUILD_EXAMPLES=ON (apps/perf_serving/README.md
	// @8bd797ae): without it every row would fail only after its build and gate.
	if w := v["worker"]; w != "" {
		if _, err := os.Stat(w); err != nil {
			return fmt.Sprintf("planned: TRTMC's serving worker %s is not built (-DTRTMC_BUILD_EXAMPLES=ON; set QUAL_TRTMC_WORKER)", w)
		}
	}
	if image := v["image"]; image != "" {
		return ""
	}
	name := dockerfile(t)
	if t.Server.ImageBuild != nil {
		// Only where the Dockerfile is: its build args may name values the plan fills in later
		// (make qualify-trtmc-double: QUAL_TRTMC_CUDA_IMAGE={reference_server_image}).
		where := ImageBuild{Dockerfile: t.Server.ImageBuild.Dockerfile, Context: t.Server.ImageBuild.Context}
		if b, err := where.Expanded(t.Root, v); err == nil {
			if _, err := os.Stat(b.Dockerfile); err == nil {
				return t.missingRequirements() // the harness builds it on this machine (harness/plan, containers/images Checkout)
			}
			name = filepath.Base(b.Dockerfile)
		}
	}
	return "planned: no serving image: name one with QUAL_TRTMC_IMAGE (the checkout has no " + name + " to build it from)"
}

func dockerfile(t *Target) string {
	if t.Server.ImageBuild != nil {
		return t.Server.ImageBuild.Dockerfile
	}
	return "Dockerfile"
}

// missingRequirements says why an image built from the checkout could not serve: the serving
// app's requirements file the target names is not in the checkout, so its packages cannot be
// installed on the image (TRTMC's Dockerfiles install none of them).
func (t *Target) missingRequirements() string {
	if t.Server.Requirements == "" {
		return ""
	}
	if _, err := os.Stat(filepath.Join(t.Root, t.Server.Requirements)); err != nil {
		return "planned: the checkout has no " + t.Server.Requirements + ": its serving app's packages (fastapi, uvicorn, " +
			"python-multipart), which its Dockerfile does not install, cannot be added; name an image with them (QUAL_TRTMC_IMAGE)"
	}
	return ""
}
