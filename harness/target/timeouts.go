package target

import (
	"fmt"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/trtmc-qual/trtmc-qual/harness/stage"
)

// Timeouts bound each step of a row, in seconds; 0 takes the default, which is TRTMC's own limit
// where TRTMC has one. An engine build of a 20-32B model takes 1-3 h, and the family gate rebuilds
// and then runs the reference model: the harness must not give up before TRTMC itself would.
type Timeouts struct {
	Build    int `yaml:"build_seconds"`    // default 3 h: BUILD_TIMEOUT_S = 3 * 3600 (apps/aiperf_qual/trtmc_aiperf_qual/bundles.py @36214c8e)
	Gate     int `yaml:"gate_seconds"`     // default 12 h: TRTMC_E2E_TIMEOUT "12h" (tools/ci/e2e.py @08246dfa)
	Serve    int `yaml:"serve_seconds"`    // on top of server.startup_seconds: network and container start (default 10 min)
	Identity int `yaml:"identity_seconds"` // the native twins, one bundle load per distinct input (default 3 h)
	AIPerf   int `yaml:"aiperf_seconds"`   // default: every request of every run at its request timeout, plus 10 min
	NoCache  int `yaml:"nocache_seconds"`  // repeats of one input over HTTP (default 1 h)
	Setup    int `yaml:"setup_seconds"`    // a stage's images (a TRTMC checkout's CUDA image with torch) and preflight (default 2 h)
}

// Defaults of TRTMC's that the harness applies when the target names none.
const (
	defaultBuild      = 3 * time.Hour  // bundles.py BUILD_TIMEOUT_S; trtmc-bench's own per-build limit is TRTMC_BENCH_BUILD_TIMEOUT_S 3600 (builder.py @12f86606)
	defaultGate       = 12 * time.Hour // tools/ci/e2e.py TRTMC_E2E_TIMEOUT
	defaultStartup    = 900 * time.Second
	defaultServeExtra = 10 * time.Minute
	defaultIdentity   = 3 * time.Hour
	defaultNoCache    = time.Hour
	aiperfSlack       = 10 * time.Minute
	defaultSetup      = 2 * time.Hour
)

// Limits are a row's step timeouts, resolved.
type Limits struct {
	Build, Gate, Serve, Identity, AIPerf, NoCache, Setup time.Duration
}

// Stage is the longest a stage of rows may take with every step at its limit: the suite's own
// timeout must not be the one that stops a row whose steps are all within theirs.
func (l Limits) Stage(rows int) time.Duration {
	return l.Setup + time.Duration(rows)*(l.Build+l.Gate+l.Serve+l.AIPerf+l.Identity+l.NoCache)
}

// Limits resolves the step timeouts of a row of stage. The server's start is its worker's
// start-up limit (server.startup_seconds, TRTMC's 900 s by default) plus the container's own. A
// build that is the family gate's (build_output: family-gate) gets the gate's limit.
func (t *Target) Limits(name stage.Name) Limits {
	or := func(s int, d time.Duration) time.Duration {
		if s > 0 {
			return time.Duration(s) * time.Second
		}
		return d
	}
	l := Limits{Build: or(t.Timeouts.Build, defaultBuild), Gate: or(t.Timeouts.Gate, defaultGate),
		Serve: t.StartupTimeout() + or(t.Timeouts.Serve, defaultServeExtra), Identity: or(t.Timeouts.Identity, defaultIdentity),
		NoCache: or(t.Timeouts.NoCache, defaultNoCache), Setup: or(t.Timeouts.Setup, defaultSetup)}
	if t.BuildOutput == FamilyGate {
		l.Build = l.Gate
	}
	load := t.StageLoad(name)
	per := time.Duration(load.TimeoutSeconds * float64(time.Second))
	requests := time.Duration(max(1, load.Runs) * (load.Warmup + load.Requests))
	l.AIPerf = or(t.Timeouts.AIPerf, per*requests/time.Duration(max(1, load.Concurrency))+aiperfSlack)
	return l
}

// StartupTimeout is how long the server may take to answer /health/ready.
func (t *Target) StartupTimeout() time.Duration {
	if t.Server.StartupSeconds > 0 {
		return time.Duration(t.Server.StartupSeconds) * time.Second
	}
	return defaultStartup
}

// FamilyGate is the build_output of a target whose family gate builds the bundle it validates:
// the row's one engine build, inspected, served and run natively.
const FamilyGate = "family-gate"

// Globs are one glob or a list of them (gate_bundle).
type Globs []string

// UnmarshalYAML takes a scalar or a sequence.
func (g *Globs) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*g = Globs{n.Value}
		return nil
	case yaml.SequenceNode:
		var list []string
		if err := n.Decode(&list); err != nil {
			return err
		}
		*g = list
		return nil
	}
	return fmt.Errorf("line %d: a glob or a list of globs", n.Line)
}
