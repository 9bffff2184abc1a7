// Package config is the run's configuration, read once from the environment in the style of
// the Kubernetes e2e framework's TestContext: every QUAL_* variable is declared here, parsed
// strictly and validated, and an error names the variable and what it holds. The suites and
// `qual config` (the Makefile's preflight) read it the same way, so a wrong value stops a run
// with one line before any spec or container starts.
package config

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/config/machine"
	"github.com/trtmc-qual/trtmc-qual/harness/shard"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
)

// Var is one QUAL_* variable: its name and what it means.
type Var struct {
	Name, Meaning string
}

// Vars lists every QUAL_* variable the project reads, with what it means. A QUAL_* variable in
// the environment that is not listed here is an error (a typo such as QUAL_ASR_REQUEST would
// otherwise be ignored and the run would silently use the target file's count).
func Vars() []Var {
	vars := []Var{
		{"QUAL_ROOT", "repository root (default: found from the working directory)"},
		{"QUAL_TARGET", "target file (default suites/targets/reference.yaml; make TARGET=)"},
		{"QUAL_TRTMC_ROOT", "TRTMC checkout the trtmc target's manifests resolve in (make TRTMC_ROOT=); required for that target"},
		{"QUAL_RUN_DIR", "run directory for the evidence (default reports/dev-<time>; make RUN_ID=)"},
		{shard.EnvShard, "shard i/n of the checkpoints (make SHARD=i/n)"},
		{shard.EnvTotal, "shard count when the engine gives only an index (Kubernetes Indexed Job)"},
		{"QUAL_BASE_IMAGE", "base image to build the server and AIPerf images on (default: debootstrap)"},
		{"QUAL_CACHE", "cache of wheels, venvs, fetched clips and image inputs (default ~/.cache/trtmc-qual); host binaries are built into the checkout's build/bin"},
		{"QUAL_AIPERF_VERSION", "set inside the AIPerf container: the version it must find installed"},
		{"QUAL_AIPERF_RUNS", "set inside the AIPerf container: how many profile runs run-profile.sh makes"},
		{"QUAL_PEER_PYTHON", "make bench: python of the FastAPI peer server for the overhead comparison"},
		{"QUAL_PARITY_PYTHON", "tests: python with jiwer and scikit-image for the parity tests"},
		{"QUAL_WHISPER_PYTHON", "python of the whisper family's workers on this host, passed to trtmc-native as --python (default: /opt/whisper/bin/python, which the server image's command line names, else $QUAL_CACHE/whisper-venv from make deps)"},
		{"QUAL_LOAD_CONCURRENCY", "tests: concurrency of the server load test (make load)"},
		{"QUAL_LOAD_SECONDS", "tests: duration of the server load test (make load)"},
		{"QUAL_PLOT_OUT", "tests: directory to keep rendered plots and reports in, to look at them"},
		{"QUAL_SIGNING_KEY", "qual sign: the signing key (PKCS#8 PEM)"},
		{"QUAL_SCOPE", "the word a run that selects only some of the target's rows gives its verdict (make smoke: smoke; default: focused or shard i/n)"},
		{"QUAL_STAGE", "the stages a run selects, comma-separated (make STAGE=asr); the others are recorded not selected"},
		{"QUAL_ROWS", "the rows (profiles) a run selects, comma-separated (make ROWS=sphinx-en-us,whisper-tiny-en)"},
		{"QUAL_RERUN", "a run directory (relative: under the repository root) whose failed rows this run selects again (make RERUN=reports/<run>)"},
		{"QUAL_VERBOSE", "the suites' console (make V=1): 1 prints every spec's detail (Ginkgo -v: report entries, each step's log); empty or 0 prints per row its first line, progress, one line per claim and the [time] line, and failures in full"},
		{"QUAL_FAIL_ON", "qual report and make qualify-all: not-qualified (default: exit 1 unless QUALIFIED) or failed (exit 1 only on a FAILED stage)"},
		{"QUAL_TEST_RUN", "tests: a published reduced run of the reference target (make test makes one first) that the tests needing a real run copy instead of running the suites themselves"},
		{"QUAL_DOCKER_WAIT", "containers/engine/ensure-docker.sh: seconds to wait for DOCKER_HOST to answer"},
		{TargetValuePrefix + "<NAME>", "overrides the target file's value NAME (QUAL_TRTMC_PYTHON for {python}, ...)"},
	}
	for _, s := range stage.Names() {
		for _, f := range loadFields() {
			vars = append(vars, Var{LoadVar(s, f.suffix), fmt.Sprintf("stage %s: AIPerf %s (overrides the target file; %s)", s, f.meaning, f.rule)})
		}
	}
	return vars
}

type loadField struct {
	suffix, meaning, rule string
	min                   int
}

// TargetValuePrefix starts the variables that override a target file's values; their names
// come from the target file, so any suffix is accepted.
const TargetValuePrefix = "QUAL_TRTMC_"

// loadFields are the per-stage AIPerf overrides.
func loadFields() []loadField {
	return []loadField{
		{"REQUESTS", "measured requests", "an integer >= 1", 1},
		{"WARMUP", "warmup requests", "an integer >= 0", 0},
		{"CONCURRENCY", "concurrent requests", "an integer >= 1", 1},
		{"RUNS", "runs (statistics over runs)", "an integer >= 1", 1},
	}
}

// LoadVar is the variable overriding one AIPerf setting of a stage: QUAL_ASR_REQUESTS.
func LoadVar(s stage.Name, suffix string) string {
	return "QUAL_" + strings.ToUpper(string(s)) + "_" + suffix
}

// Override is a stage's AIPerf settings from the environment; nil means "the target's".
type Override struct {
	Requests, Warmup, Concurrency, Runs *int
}

// Config is the run's configuration.
type Config struct {
	Root       string // repository root
	RootFrom   string // how Root was found: "QUAL_ROOT" or "the working directory"
	TargetPath string // absolute
	TRTMCRoot  string // absolute, "" for the reference target
	RunDir     string // absolute, "" = a fresh reports/dev-<time>
	BaseImage  string
	Shard      shard.Shard
	Loads      map[stage.Name]Override
	FailOn     FailOn
	// Verbose prints every spec's detail on the suites' console (QUAL_VERBOSE); without it a
	// row shows its first line, progress, a line per claim, its [time] line and failures in full.
	Verbose bool
	// Scope names a run that selects only some rows (QUAL_SCOPE, "smoke"); "" lets the suites
	// say how they were narrowed (a focus, a shard).
	Scope string
	// Select narrows the run to some stages, rows, or the failed rows of an earlier run
	// (harness/plan applies it; the zero value selects every row).
	Select Select
	// WhisperPython is the python of the whisper family's workers on this host ("" = the venv
	// make deps builds under Cache); the server container is given its own by the image.
	WhisperPython string
	// TargetValues override the target file's values: QUAL_TRTMC_PYTHON=x is {"python": "x"}.
	TargetValues map[string]string
	// Machine is the cache (defaulted), the signing key and the parity venv.
	machine.Machine
}

// FailOn is the verdict level at which a run's report exits 1.
type FailOn string

const (
	FailOnNotQualified FailOn = "not-qualified" // every verdict but QUALIFIED fails
	FailOnFailed       FailOn = "failed"        // only a FAILED stage (or no stage at all) fails
)

// ParseFailOn reads a --fail-on or QUAL_FAIL_ON value; "" is the default, not-qualified.
func ParseFailOn(v string) (FailOn, error) {
	switch FailOn(strings.TrimSpace(v)) {
	case "", FailOnNotQualified:
		return FailOnNotQualified, nil
	case FailOnFailed:
		return FailOnFailed, nil
	}
	return "", fmt.Errorf("fail-on %q is neither %s nor %s", v, FailOnNotQualified, FailOnFailed)
}

// FromEnv reads and validates every QUAL_* variable. getenv and environ are os.Getenv and
// os.Environ (tests pass their own); wd is where a relative path and the repository search
// start.
func FromEnv(getenv func(string) string, environ []string, wd string) (Config, error) {
	var errs []error
	if err := unknownVars(environ); err != nil {
		errs = append(errs, err)
	}
	c := Config{BaseImage: getenv("QUAL_BASE_IMAGE"), Loads: map[stage.Name]Override{},
		WhisperPython: getenv("QUAL_WHISPER_PYTHON"), TargetValues: targetValues(environ)}
	m, err := machine.FromEnv(getenv)
	if err != nil {
		errs = append(errs, err)
	}
	c.Machine = m
	root, err := repoRoot(getenv("QUAL_ROOT"), wd)
	if err != nil {
		return c, err // nothing else resolves without the root
	}
	c.Root, c.RootFrom = root, "the working directory"
	if getenv("QUAL_ROOT") != "" {
		c.RootFrom = "QUAL_ROOT"
	}
	c.TargetPath = absUnder(root, getenv("QUAL_TARGET"), "suites/targets/reference.yaml")
	if tr := getenv("QUAL_TRTMC_ROOT"); tr != "" {
		c.TRTMCRoot = absUnder(wd, tr, "")
		if fi, err := os.Stat(c.TRTMCRoot); err != nil {
			errs = append(errs, fmt.Errorf("QUAL_TRTMC_ROOT=%q does not exist", tr))
		} else if !fi.IsDir() {
			errs = append(errs, fmt.Errorf("QUAL_TRTMC_ROOT=%q is not a directory", tr))
		}
	}
	if rd := getenv("QUAL_RUN_DIR"); rd != "" {
		c.RunDir = absUnder(root, rd, "")
	}
	c.Scope = strings.TrimSpace(getenv("QUAL_SCOPE"))
	if v := strings.TrimSpace(getenv("QUAL_VERBOSE")); v != "" {
		if c.Verbose, err = strconv.ParseBool(v); err != nil {
			errs = append(errs, fmt.Errorf("QUAL_VERBOSE=%q is neither 1 nor 0 (make V=1)", v))
		}
	}
	var selErrs []error
	c.Select, selErrs = readSelect(getenv, root)
	errs = append(errs, selErrs...)
	if c.FailOn, err = ParseFailOn(getenv("QUAL_FAIL_ON")); err != nil {
		errs = append(errs, fmt.Errorf("QUAL_FAIL_ON: %w", err))
	}
	if c.Shard, err = shard.FromEnv(getenv); err != nil {
		errs = append(errs, err)
	}
	for _, s := range stage.Names() {
		o, err := readOverride(getenv, s)
		errs = append(errs, err...)
		c.Loads[s] = o
	}
	return c, errors.Join(errs...)
}

// Select is what a run selects of the target's rows: stages, rows (profiles), and the failed
// rows of an earlier run; each given part narrows the selection further.
type Select struct {
	Stages []stage.Name
	Rows   []string
	Rerun  string // absolute run directory
}

// Active says whether the run selects only part of the target.
func (s Select) Active() bool { return len(s.Stages) > 0 || len(s.Rows) > 0 || s.Rerun != "" }

// readSelect reads QUAL_STAGE, QUAL_ROWS and QUAL_RERUN; a name that is no stage, an empty
// item or a run directory that does not exist is an error naming the variable. A relative run
// directory is under the repository root, as QUAL_RUN_DIR is (each suite runs in its own
// package directory).
func readSelect(getenv func(string) string, root string) (Select, []error) {
	var sel Select
	var errs []error
	for _, name := range list(getenv("QUAL_STAGE")) {
		if _, err := stage.Get(name); err != nil {
			errs = append(errs, fmt.Errorf("QUAL_STAGE: %w", err))
			continue
		}
		sel.Stages = append(sel.Stages, stage.Name(name))
	}
	sel.Rows = list(getenv("QUAL_ROWS"))
	if dir := strings.TrimSpace(getenv("QUAL_RERUN")); dir != "" {
		sel.Rerun = absUnder(root, dir, "")
		if !isDir(sel.Rerun) {
			errs = append(errs, fmt.Errorf("QUAL_RERUN=%q is not a run directory: it does not exist", dir))
		}
	}
	return sel, errs
}

// list splits a comma- or space-separated value, dropping empty items.
func list(v string) []string {
	return strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' })
}

// LoadMachine reads the machine's part of the configuration alone (the cache, the signing key)
// from this process's environment, for the commands that run outside a checkout: qual sign,
// and qual verify's key lookup.
func LoadMachine() (machine.Machine, error) {
	return machine.FromEnv(os.Getenv)
}

// Load reads the configuration from this process's environment.
func Load() (Config, error) {
	wd, err := os.Getwd()
	if err != nil {
		return Config{}, err
	}
	return FromEnv(os.Getenv, os.Environ(), wd)
}

func readOverride(getenv func(string) string, s stage.Name) (Override, []error) {
	var o Override
	var errs []error
	dst := map[string]**int{"REQUESTS": &o.Requests, "WARMUP": &o.Warmup, "CONCURRENCY": &o.Concurrency, "RUNS": &o.Runs}
	for _, f := range loadFields() {
		name := LoadVar(s, f.suffix)
		raw, set := lookup(getenv, name)
		if !set {
			continue
		}
		v, err := strconv.Atoi(strings.TrimSpace(raw))
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("%s=%q is not an integer (%s)", name, raw, f.rule))
		case v < f.min:
			errs = append(errs, fmt.Errorf("%s=%q is out of range (%s)", name, raw, f.rule))
		default:
			*dst[f.suffix] = &v
		}
	}
	return o, errs
}

// targetValues are the QUAL_TRTMC_<NAME> variables, keyed by the target file's lower-case name.
// An empty value is unset, as make passes unset variables empty.
func targetValues(environ []string) map[string]string {
	known := map[string]bool{}
	for _, v := range Vars() {
		known[v.Name] = true // QUAL_TRTMC_ROOT is the checkout, not a target value
	}
	out := map[string]string{}
	for _, kv := range environ {
		name, v, _ := strings.Cut(kv, "=")
		if k, ok := strings.CutPrefix(name, TargetValuePrefix); ok && v != "" && !known[name] {
			out[strings.ToLower(k)] = v
		}
	}
	return out
}

// lookup treats an empty value as unset: `make` passes QUAL_SHARD= when SHARD is not given.
func lookup(getenv func(string) string, name string) (string, bool) {
	v := getenv(name)
	return v, v != ""
}

func unknownVars(environ []string) error {
	known := map[string]bool{}
	for _, v := range Vars() {
		known[v.Name] = true
	}
	var unknown []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "QUAL_") && !known[name] && !strings.HasPrefix(name, TargetValuePrefix) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	return fmt.Errorf("unknown variable %s (the QUAL_* variables are listed by `build/bin/qual config --list`)", strings.Join(unknown, ", "))
}

// repoRoot is QUAL_ROOT, or the nearest directory above wd holding go.mod and golden/.
func repoRoot(env, wd string) (string, error) {
	if env != "" {
		root := absUnder(wd, env, "")
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
			return "", fmt.Errorf("QUAL_ROOT=%q holds no go.mod", env)
		}
		return root, nil
	}
	for d := wd; ; d = filepath.Dir(d) {
		if isDir(filepath.Join(d, "golden")) && isFile(filepath.Join(d, "go.mod")) {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no repository root (go.mod and golden/) above %s: set QUAL_ROOT", wd)
		}
	}
}

func isDir(p string) bool  { fi, err := os.Stat(p); return err == nil && fi.IsDir() }
func isFile(p string) bool { fi, err := os.Stat(p); return err == nil && !fi.IsDir() }

func absUnder(base, p, def string) string {
	if p == "" {
		p = def
	}
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(base, p)
}

// Target reads the target file and checks it can be resolved here: the trtmc target needs
// QUAL_TRTMC_ROOT. The error is one line naming the file or the variable.
func (c Config) Target() (*target.Target, error) {
	if !isFile(c.TargetPath) {
		return nil, fmt.Errorf("target file %s does not exist (QUAL_TARGET, make TARGET=)", c.TargetPath)
	}
	manifestRoot := c.Root
	if c.TRTMCRoot != "" {
		manifestRoot = c.TRTMCRoot
	}
	t, err := target.Read(c.TargetPath, manifestRoot)
	if err != nil {
		return nil, fmt.Errorf("target file %s: %v", c.TargetPath, oneLine(err))
	}
	t.Overrides = c.TargetValues
	if t.Traits().InCheckout() && c.TRTMCRoot == "" {
		return nil, fmt.Errorf("target %s (%s) resolves its manifests in a TRTMC checkout: set QUAL_TRTMC_ROOT (make TRTMC_ROOT=/path/to/TensorRT-Model-Connect)", t.Name, c.TargetPath)
	}
	if err := t.CheckLayout(); err != nil { // the checkout's layout is the target's, or the fitting one is named
		return nil, err
	}
	t.Declared = maps.Clone(t.AIPerf)
	for s, o := range c.Loads {
		if o == (Override{}) {
			continue
		}
		l := t.AIPerf[s]
		if o.Requests != nil {
			l.Requests = *o.Requests
		}
		if o.Warmup != nil {
			l.Warmup = *o.Warmup
		}
		if o.Concurrency != nil {
			l.Concurrency = *o.Concurrency
		}
		if o.Runs != nil {
			l.Runs = *o.Runs
		}
		if t.AIPerf == nil {
			t.AIPerf = map[stage.Name]target.Load{}
		}
		t.AIPerf[s] = l
	}
	return t, nil
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
