// Package target reads a target description: where its family manifests are, the commands that
// build a bundle, run its family gate and run one input natively, the serving image and command,
// and the AIPerf settings per stage. The harness speaks only this contract, so the embedded
// reference target exercises the same code path as TRTMC.
package target

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/trtmc-qual/trtmc-qual/harness/stage"
)

// Target is one YAML file under suites/targets/.
type Target struct {
	Name         string               `yaml:"name"`
	Kind         Kind                 `yaml:"kind"` // reference | trtmc (kind.go)
	Description  string               `yaml:"description"`
	Manifests    []string             `yaml:"manifests"`  // globs, relative to Root
	Thresholds   string               `yaml:"thresholds"` // how thresholds are found: "beside-manifests"
	Build        []string             `yaml:"build"`      // {manifest} {bundle} {native}
	Gate         []string             `yaml:"gate"`       // {manifest} {bundle} {testcase} {native}
	NativeRun    map[string][]string  `yaml:"native_run"` // by task string; {bundle} {input} {prompt} ...
	Server       Server               `yaml:"server"`
	AIPerf       map[stage.Name]Load  `yaml:"aiperf"`       // by stage
	Capacity     map[stage.Name]Sweep `yaml:"capacity"`     // by stage: `qual capacity`'s objective and sweep (capacity.go)
	Placeholders map[string]string    `yaml:"placeholders"` // defaults of target-specific placeholders; QUAL_TRTMC_<NAME> overrides

	// TRTMC's own tooling differs from the reference CLI in where results land; these say where.
	Layout       string            `yaml:"layout"`         // families | tests/e2e (TRTMC); empty for the reference target
	Env          map[string]string `yaml:"env"`            // environment of the build, inspect and gate commands
	BuildOutput  string            `yaml:"build_output"`   // "" (the bundle is written at {bundle}) | trtmc-bench-prepare | family-gate (the gate builds it: build is empty)
	BuildBundle  string            `yaml:"build_bundle"`   // where the build leaves the bundle when not at {bundle}
	Inspect      []string          `yaml:"inspect"`        // prints the built bundle's family and task
	InspectOut   string            `yaml:"inspect_output"` // json (default) | text (older TRTMC)
	GateJUnit    string            `yaml:"gate_junit"`     // JUnit XML the gate writes; "" = GateResult JSON on stdout
	GateCase     string            `yaml:"gate_case"`      // regexp whose (?P<case>) group names the testcase in a JUnit test name
	GateBundle   Globs             `yaml:"gate_bundle"`    // globs of the bundle the gate validated (exactly one match): that file is served
	UnsetEnv     []string          `yaml:"unset_env"`      // variables the build, inspect and gate commands must not inherit
	Timeouts     Timeouts          `yaml:"timeouts"`       // per step; TRTMC's own limits by default (timeouts.go)
	Preflight    []Preflight       `yaml:"preflight"`      // host vs serving image, before the first build (preflight.go)
	NativeOutput map[string]string `yaml:"native_output"`  // by task string: json (default) | text | saved
	ServingNote  string            `yaml:"serving_note"`   // why this target has no HTTP serving (older TRTMC)
	ReadFrom     []string          `yaml:"read_from"`      // the TRTMC commits its commands were read from (Checkout warns outside them)

	Root string `yaml:"-"` // directory manifests resolve against
	Path string `yaml:"-"`
	// Declared is AIPerf as the target file states it, before harness/config applies the
	// QUAL_<STAGE>_* overrides: the load a qualification of the target runs at.
	Declared map[stage.Name]Load `yaml:"-"`
	// Overrides replace Placeholders' defaults by name; harness/config fills them from
	// QUAL_TRTMC_<NAME> (QUAL_TRTMC_PYTHON for {python}).
	Overrides map[string]string `yaml:"-"`
}

// Server is the serving side.
type Server struct {
	Image          string            `yaml:"image"`   // "reference" = the image `qual images` builds
	Command        []string          `yaml:"command"` // empty = the reference server's own arguments
	GPU            string            `yaml:"gpu"`     // none | all | auto | ids
	Lanes          int               `yaml:"lanes"`
	Queue          int               `yaml:"queue"`
	StartupSeconds int               `yaml:"startup_seconds"`
	Env            map[string]string `yaml:"env"`
	Records        string            `yaml:"records"`     // the records JSONL inside the container
	Scratch        string            `yaml:"scratch"`     // the server's --scratch in the container: mounted from the row's directory and kept as evidence
	ImageBuild     *ImageBuild       `yaml:"image_build"` // build the image from the checkout's own Dockerfile
	// Requirements (relative to Root) are installed on the image built from ImageBuild, offline
	// from a pinned wheelhouse (containers/images ServingDeps): the serving app's packages.
	Requirements string `yaml:"requirements"`
}

// ImageBuild names a Dockerfile in the checkout, built on the runner when no image is named; the
// image is tagged by its own content (containers/images Checkout), never by a name that pretends
// to be a published image. Every value may name placeholders; an arg left empty is not passed.
type ImageBuild struct {
	Dockerfile string            `yaml:"dockerfile"` // relative to Root
	Context    string            `yaml:"context"`    // relative to Root; default "."
	Target     string            `yaml:"target"`     // build stage; default the Dockerfile's last
	Args       map[string]string `yaml:"args"`       // --build-arg NAME=VALUE
}

// Expanded is the image build with placeholders filled and paths made absolute under root.
func (b ImageBuild) Expanded(root string, values map[string]string) (ImageBuild, error) {
	one := func(s string) (string, error) {
		x, err := Expand([]string{s}, values)
		if err != nil {
			return "", fmt.Errorf("image_build: %w", err)
		}
		return x[0], nil
	}
	out := ImageBuild{Args: map[string]string{}}
	if b.Context == "" {
		b.Context = "."
	}
	var err error
	for _, f := range []struct {
		dst *string
		src string
	}{{&out.Dockerfile, b.Dockerfile}, {&out.Context, b.Context}, {&out.Target, b.Target}} {
		if *f.dst, err = one(f.src); err != nil {
			return out, err
		}
	}
	out.Dockerfile, out.Context = filepath.Join(root, out.Dockerfile), filepath.Join(root, out.Context)
	for k, v := range b.Args {
		if out.Args[k], err = one(v); err != nil {
			return out, err
		}
	}
	return out, nil
}

// Load is one stage's AIPerf settings.
type Load struct {
	Warmup         int     `yaml:"warmup"`
	Requests       int     `yaml:"requests"`
	Concurrency    int     `yaml:"concurrency"`
	TimeoutSeconds float64 `yaml:"timeout_seconds"`
	Seed           int     `yaml:"seed"`
	// Runs repeats the measured requests in that many AIPerf runs (statistics over runs: an interval needs more than one run);
	// 0 or 1 is one run.
	Runs int `yaml:"runs"`
	// Goodput is AIPerf's --goodput SLO ("request_latency:20000": ms); `qual capacity` sets it per level.
	Goodput string `yaml:"goodput"`
}

// Read parses a target file. root is where its manifest globs resolve (the repository for the
// reference target, a TRTMC checkout for trtmc.yaml).
func Read(path, root string) (*Target, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read target: %w", err)
	}
	var t Target
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("target %s: %w", path, err)
	}
	if t.Name == "" || len(t.Manifests) == 0 || (len(t.Build) == 0) != (t.BuildOutput == FamilyGate) || len(t.Gate) == 0 {
		return nil, fmt.Errorf("target %s: name, manifests, build (none with build_output: %s) and gate are required", path, FamilyGate)
	}
	if err := stagesKnown(t); err != nil {
		return nil, fmt.Errorf("target %s: %w", path, err)
	}
	t.Root, t.Path = root, path
	return &t, nil
}

// stagesKnown refuses a stage in aiperf or capacity that is not one: its settings would apply
// to nothing.
func stagesKnown(t Target) error {
	for _, names := range [][]stage.Name{slices.Collect(maps.Keys(t.AIPerf)), slices.Collect(maps.Keys(t.Capacity))} {
		for _, n := range names {
			if _, err := stage.Get(string(n)); err != nil {
				return fmt.Errorf("aiperf/capacity: %w", err)
			}
		}
	}
	return nil
}

// ManifestPaths expands the manifest globs, sorted and de-duplicated.
func (t *Target) ManifestPaths() ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, g := range t.Manifests {
		matches, err := filepath.Glob(filepath.Join(t.Root, g))
		if err != nil {
			return nil, fmt.Errorf("manifest glob %q: %w", g, err)
		}
		for _, m := range matches {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// Values are the target's own placeholders: the defaults in the file, each replaced by its
// override (QUAL_TRTMC_<NAME>, read by harness/config), plus {root}.
func (t *Target) Values() map[string]string {
	out := map[string]string{"root": t.Root}
	for k, v := range t.Placeholders {
		if o := t.Overrides[k]; o != "" {
			v = o
		}
		out[k] = strings.ReplaceAll(v, "{root}", t.Root) // defaults may name paths in the checkout
	}
	return out
}

// Environ is the target's env section with placeholders filled, as KEY=VALUE pairs to append to
// the harness's own environment.
func (t *Target) Environ(values map[string]string) ([]string, error) {
	keys := make([]string, 0, len(t.Env))
	for k := range t.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		v, err := Expand([]string{t.Env[k]}, values)
		if err != nil {
			return nil, fmt.Errorf("env %s: %w", k, err)
		}
		out = append(out, k+"="+v[0])
	}
	return append(out, t.UnsetEnv...), nil // bare names: unset (Environ)
}

// Expand substitutes {name} placeholders in a command template. An element "?--flag" is an
// optional flag: it and the element after it (its value) are left out when the value is empty or
// names a placeholder whose value is empty, so a setting a testcase does not declare is not passed.
// TRTMC's CLI refuses an empty value and a negative --cfg-scale (apps/cli/cli.cpp @022e18f7
// take_value), and its family tests pass such flags only when the testcase declares them
// (families/z_image/tests/test_e2e.py @d46edb11).
func Expand(template []string, values map[string]string) ([]string, error) {
	out := make([]string, 0, len(template))
	for i := 0; i < len(template); i++ {
		a := template[i]
		if flag, ok := strings.CutPrefix(a, "?"); ok {
			if i+1 >= len(template) {
				return nil, fmt.Errorf("command %q: optional flag %q has no value after it", template, a)
			}
			i++
			value := fill(template[i], values)
			if unfilled(value) {
				return nil, fmt.Errorf("command %q: placeholder left unfilled in %q", template, value)
			}
			if value == "" || namesEmpty(template[i], values) {
				continue
			}
			out = append(out, flag, value)
			continue
		}
		a = fill(a, values)
		if unfilled(a) {
			return nil, fmt.Errorf("command %q: placeholder left unfilled in %q", template, a)
		}
		out = append(out, a)
	}
	return out, nil
}

func fill(a string, values map[string]string) string {
	for k, v := range values {
		a = strings.ReplaceAll(a, "{"+k+"}", v)
	}
	return a
}

// namesEmpty says whether a template element names a placeholder whose value is empty: an
// optional "?--set", "max_new_tokens={max_tokens}" is then left out like a bare "{max_tokens}".
func namesEmpty(a string, values map[string]string) bool {
	for k, v := range values {
		if v == "" && strings.Contains(a, "{"+k+"}") {
			return true
		}
	}
	return false
}

func unfilled(a string) bool { return strings.Contains(a, "{") && strings.Contains(a, "}") }

// StageLoad returns a stage's AIPerf settings. The QUAL_<STAGE>_{REQUESTS,WARMUP,CONCURRENCY}
// overrides are parsed strictly and applied by harness/config when the target is read.
func (t *Target) StageLoad(s stage.Name) Load {
	l := t.AIPerf[s]
	if l.TimeoutSeconds == 0 {
		l.TimeoutSeconds = 300
	}
	return l
}

// ReducedLoad names each AIPerf count of stage s the run lowers below the target file's own
// ("runs 2 of 5"): its runs, measured requests or warmup requests. A raised count, or another
// concurrency, is a different load but not a smaller one.
func (t *Target) ReducedLoad(s stage.Name) []string {
	declared, ok := t.Declared[s]
	if !ok {
		return nil
	}
	return Reduction(t.StageLoad(s), declared)
}

// Reduction names each AIPerf count of used below declared ("runs 2 of 5"), in the order runs,
// requests, warmup: the one rule the suites record (ReducedLoad) and verify derives again from a
// run's rows.
func Reduction(used, declared Load) []string {
	var out []string
	for _, c := range []struct {
		name           string
		used, declared int
	}{{"runs", max(used.Runs, 1), max(declared.Runs, 1)}, {"requests", used.Requests, declared.Requests}, {"warmup", used.Warmup, declared.Warmup}} {
		if c.used < c.declared {
			out = append(out, fmt.Sprintf("%s %d of %d", c.name, c.used, c.declared))
		}
	}
	return out
}
