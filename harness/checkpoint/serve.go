package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/plan"
	"github.com/trtmc-qual/trtmc-qual/harness/serving"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// served is the state of the served part of the run.
type served struct {
	network *serving.Network
	server  *serving.Server
	inputs  []workload.Input
	aiperf  *serving.AIPerfRun // its Exports (every run together) for the join, its Runs for statistics over runs
	records []contract.Record
	route   string

	spec       serving.Spec      // how the server started: the native container starts the same way
	native     *serving.Server   // the native twins' container, after the server stopped (native.go)
	nocacheReq *workload.Request // the request the no-caching probe repeated
	// native is what the native run printed per input key on the served bundle: identity runs
	// it once per distinct input, and the no-caching check reads its Task time on X from there.
	nativeOut map[string]string
}

// Cleanup is a function the caller defers right after the start it undoes.
type Cleanup func(ctx context.Context) error

// StartNetwork creates the run's private network: internal, so AIPerf reaches only the server.
func (c *Checkpoint) StartNetwork(ctx context.Context) (Cleanup, error) {
	defer c.timed(containers)()
	nw, err := serving.NewNetwork(ctx)
	if err != nil {
		return nil, c.fail("serve", err)
	}
	c.serving = &served{network: nw}
	return func(ctx context.Context) error { defer c.timed(containers)(); return nw.Remove(ctx) }, nil
}

// StartServer loads the pinned inputs and starts the server container on the exact bundle with
// the inputs copied in; CheckServed then asks it what it serves.
func (c *Checkpoint) StartServer(ctx context.Context) (Cleanup, error) {
	defer c.timed(containers)()
	if c.serving == nil {
		return nil, c.fail("serve", fmt.Errorf("no network: StartNetwork first"))
	}
	inputs, err := c.loadInputs()
	if err != nil {
		return nil, c.fail("serve", err)
	}
	c.serving.inputs = inputs
	srvCfg := c.Env.Target.Server
	values := map[string]string{"bundle_name": filepath.Base(c.bundlePath)}
	if c.step != nil { // TRTMC-kind target: its own values, and its env/GPU may name them
		for k, v := range c.step.Values {
			values[k] = v
		}
		values["bundle_name"] = filepath.Base(c.bundlePath)
		srvCfg = expandServer(srvCfg, values)
	}
	spec := serving.Spec{Image: c.Env.Images.Server, Bundle: c.bundlePath, GPU: srvCfg.GPU, Lanes: srvCfg.Lanes, Queue: srvCfg.Queue,
		Env: srvCfg.Env, Startup: time.Duration(srvCfg.StartupSeconds) * time.Second}
	if len(srvCfg.Command) > 0 {
		cmd, err := target.Expand(srvCfg.Command, values)
		if err != nil {
			return nil, c.fail("serve", err)
		}
		if c.step != nil { // TRTMC's command names its interpreter and paths in the checkout
			c.Result.Commands = append(c.Result.Commands, append([]string{"(server container)"}, cmd...)) // as qual plan shows it
			spec.Entrypoint, spec.ReadOnlyDir = cmd[0], c.Env.Target.Root
			cmd = cmd[1:]
		}
		spec.Command = cmd
	}
	if srvCfg.Scratch != "" { // kept artifacts: read on the host for identity, stored as evidence
		dir, err := c.scratch(srvCfg.Scratch)
		if err != nil {
			return nil, c.fail("serve", err)
		}
		spec.ScratchDir, spec.ScratchContainer = dir, srvCfg.Scratch
	}
	for _, in := range inputs {
		if in.HostPath != "" {
			spec.Files = append(spec.Files, serving.File{Host: in.HostPath, Container: in.ContainerPath})
		}
	}
	start := time.Now()
	c.serving.spec = spec
	srv, err := c.serving.network.Start(ctx, spec)
	cleanup := func(ctx context.Context) error {
		defer c.timed(containers)()
		if !srv.Running() {
			return nil
		}
		logs, lerr := srv.LogText(ctx)
		if lerr == nil {
			lerr = os.WriteFile(filepath.Join(c.Dir, "server.log"), []byte(logs), 0o644)
			if len(c.Result.Failures) > 0 { // the server's side of a failure, next to the spec's
				c.logf("server log (last lines; whole log in %s):\n%s", filepath.Join(c.Dir, "server.log"), workload.Tail(logs))
			}
		}
		if lerr != nil {
			lerr = fmt.Errorf("keep server log: %w", lerr)
		}
		return errors.Join(lerr, srv.Terminate(ctx))
	}
	if err != nil {
		return cleanup, c.fail("serve", err)
	}
	c.serving.server = srv
	c.Result.GPU = srv.GPU.Passed
	if srv.GPU.Notice != "" {
		c.logf("%s", srv.GPU.Notice)
		c.Result.GPU += " (" + srv.GPU.Notice + ")"
	}
	c.logf("server %s ready in %.1fs", c.Env.Images.Server, time.Since(start).Seconds())
	return cleanup, nil
}

// scratch makes the row's scratch directory (returned, to be mounted at the server's --scratch)
// and makes the workload read file:// answers from it; the evidence records the mapping for
// qual verify.
func (c *Checkpoint) scratch(container string) (string, error) {
	dir, err := filepath.Abs(filepath.Join(c.Dir, "scratch"))
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.Chmod(dir, 0o777); err != nil { // the server image may run as its own user
		return "", err
	}
	c.Result.Scratch = &evidence.Scratch{Container: container, Dir: evidence.RelPath(c.Env.RunDir, dir)}
	c.W = workload.WithArtifacts(c.W, workload.ScratchReader(container, dir))
	return dir, nil
}

// CheckServed asks the running server what it serves, in the target kind's own terms.
func (c *Checkpoint) CheckServed(ctx context.Context) error {
	defer c.timed("serve check")()
	if c.serving == nil || c.serving.server == nil {
		return c.fail("serve", fmt.Errorf("no server running"))
	}
	if err := c.kind().served(ctx, c); err != nil {
		return c.fail("serve", err)
	}
	c.done("serve")
	return nil
}

// served: the reference server's /v1/serving/info must list one model whose bundle sha256 is
// the built (and gated) one.
func (referenceSteps) served(ctx context.Context, c *Checkpoint) error {
	info, err := c.serving.server.ServingInfo(ctx, "")
	if err != nil {
		return err
	}
	if len(info.Models) != 1 {
		return fmt.Errorf("serving info lists %d models, want 1", len(info.Models))
	}
	c.Result.Bundle.SHA256Served = info.Models[0].BundleSHA256
	if c.Result.Bundle.SHA256Served != c.Result.Bundle.SHA256Built {
		return fmt.Errorf("server reports bundle sha256 %s, built %s", c.Result.Bundle.SHA256Served, c.Result.Bundle.SHA256Built)
	}
	c.logf("serving %s (bundle sha256 %s)", info.Models[0].ID, c.Result.Bundle.SHA256Served)
	return nil
}

// loadInputs materializes the testcase's inputs (its pinned dataset, or the prompt a TRTMC
// testcase carries itself) and keeps the inputs the family can take.
func (c *Checkpoint) loadInputs() ([]workload.Input, error) {
	ds, err := workload.DatasetOf(c.Env.Root, c.Env.Target.Root, c.Manifest, c.Testcase)
	if err != nil {
		return nil, err
	}
	out, err := c.W.Inputs(c.Env.Root, c.Manifest, c.Testcase, c.Dir)
	if err != nil {
		return nil, err
	}
	ds.Items = len(out)
	c.Result.Dataset = ds
	return c.admit(out) // clips beyond the family's declared limits are not sent (limits.go)
}

// RunAIPerf sends W warmup and N measured requests from the pinned inputs and collects the
// artifacts and the server records.
func (c *Checkpoint) RunAIPerf(ctx context.Context) error {
	defer c.timed(aiperfStep)()
	if c.serving == nil || c.serving.server == nil {
		return c.fail("aiperf", fmt.Errorf("no server running"))
	}
	load := c.Env.Target.StageLoad(c.W.Stage())
	l, err := c.W.AIPerf(c.serving.inputs, c.Manifest, c.Testcase)
	if err != nil {
		return c.fail("aiperf", err)
	}
	c.servedHTTP(l.Rows)
	p := plan.AIPerfProfile(c.Env.Target, c.W, c.Manifest.Name, c.serving.server.InternalURL(), l)
	c.serving.route = c.W.Route()
	c.Result.Endpoint = c.serving.route
	c.Result.Settings = map[string]any{"warmup": load.Warmup, "requests": load.Requests, "concurrency": load.Concurrency,
		"lanes": max(1, c.Env.Target.Server.Lanes), "endpoint_type": p.EndpointType, "extra_inputs": p.ExtraInputs, "runs": max(1, load.Runs)}
	c.logf("AIPerf: %d run(s) × (%d warmup + %d measured) requests at concurrency %d ...", max(1, load.Runs), load.Warmup, load.Requests, load.Concurrency)
	before, err := c.recordCount(ctx)
	if err != nil {
		return c.fail("aiperf", fmt.Errorf("server records before AIPerf: %w", err))
	}
	answered := func(ctx context.Context) (int, error) {
		n, err := c.recordCount(ctx)
		return n - before, err
	}
	sent := max(1, load.Runs) * (load.Warmup + load.Requests) // each run sends its own warmup
	start := time.Now()
	res, err := c.serving.network.RunAIPerf(ctx, c.Env.Images.AIPerf, p, filepath.Join(c.Dir, "aiperf"), sent, answered, c.sayf,
		c.Env.Target.Limits(c.Env.Stage).AIPerf)
	// A request AIPerf gave up on may still be in the server: let its record land before the copy.
	c.settleRecords(ctx, answered, sent, time.Duration(load.TimeoutSeconds)*time.Second)
	if res != nil {
		c.Result.AIPerf = &evidence.AIPerfRun{Version: res.Version, Command: res.Command, ExitCode: res.ExitCode,
			Dir: evidence.RelPath(c.Env.RunDir, res.ArtifactDir), Warmup: load.Warmup, Requests: load.Requests, Concurrency: load.Concurrency, Endpoint: p.EndpointType, Runs: max(1, load.Runs)}
		c.Result.Commands = append(c.Result.Commands, res.Command)
	}
	records, rerr := c.serving.server.Records(ctx)
	if rerr == nil {
		rerr = os.WriteFile(filepath.Join(c.Dir, "server-records.jsonl"), records, 0o644)
		c.Result.Records = evidence.RelPath(c.Env.RunDir, filepath.Join(c.Dir, "server-records.jsonl"))
	}
	if err != nil {
		return c.fail("aiperf", err)
	}
	if rerr != nil {
		return c.fail("aiperf", fmt.Errorf("server records: %w", rerr))
	}
	if res.ExitCode != 0 {
		stderr, _ := os.ReadFile(filepath.Join(res.Dir, "aiperf.stderr"))
		return c.fail("aiperf", fmt.Errorf("aiperf exited %d: %s", res.ExitCode, workload.Tail(string(stderr))))
	}
	if err := res.ReadExports(); err != nil {
		return c.fail("aiperf", err)
	}
	if c.Result.ServerMetrics, err = serverMetrics(c.Env.RunDir, res.ArtifactDir); err != nil {
		return c.fail("aiperf", err)
	}
	if c.serving.records, err = contract.ParseRecords(records); err != nil {
		return c.fail("aiperf", err)
	}
	c.serving.aiperf = res
	if got, want := len(res.Exports.Raw), max(1, load.Runs)*(load.Warmup+load.Requests); got != want || len(res.Runs) != max(1, load.Runs) {
		return c.fail("aiperf", fmt.Errorf("AIPerf exported %d raw records in %d runs, want %d runs × (%d warmup + %d measured)", got, len(res.Runs), max(1, load.Runs), load.Warmup, load.Requests))
	}
	c.logf("AIPerf %s finished in %.1fs: %d raw records", res.Version, time.Since(start).Seconds(), len(res.Exports.Raw))
	c.done("aiperf")
	return nil
}

// recordCount is how many requests to the row's inference route the server has recorded so
// far: its other routes (health, AIPerf's /metrics scrapes) are not requests AIPerf sent.
func (c *Checkpoint) recordCount(ctx context.Context) (int, error) {
	records, err := c.serving.server.Records(ctx)
	if err != nil {
		return 0, err
	}
	return contract.CountRoute(records, c.serving.route), nil
}

// settleRecords waits until every request has a record, or the count has not moved for three
// seconds, or limit has passed: the join then sees what the server really recorded.
func (c *Checkpoint) settleRecords(ctx context.Context, answered func(context.Context) (int, error), want int, limit time.Duration) {
	deadline := time.Now().Add(limit)
	last, still := -1, 0
	for time.Now().Before(deadline) && ctx.Err() == nil {
		n, err := answered(ctx)
		if err != nil || n >= want {
			return
		}
		if n == last {
			if still++; still >= 3 {
				return
			}
		} else {
			last, still = n, 0
		}
		time.Sleep(time.Second)
	}
}

// Server is the running server container (nil before StartServer), for fault injection in tests.
func (c *Checkpoint) Server() *serving.Server {
	if c.serving == nil {
		return nil
	}
	return c.serving.server
}

// serverMetrics lists AIPerf's server-metrics exports (server_metrics_export.json, one per run)
// under its artifact directory, relative to the run directory; none when the scrape was off.
func serverMetrics(runDir, artifacts string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(artifacts, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "server_metrics_export.json" {
			out = append(out, evidence.RelPath(runDir, path))
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("AIPerf server metrics: %w", err)
	}
	return out, nil
}
