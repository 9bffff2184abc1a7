package checkpoint

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/stats"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// Join matches every AIPerf record (warmup included) to exactly one server record.
func (c *Checkpoint) Join() (join.Report, error) {
	if c.serving == nil || c.serving.aiperf == nil {
		return join.Report{}, c.fail("join", fmt.Errorf("no AIPerf run to join"))
	}
	rep := join.Join(c.serving.exports.Raw, c.serving.records, c.serving.route)
	c.Result.Join = &rep
	load := c.Env.Target.StageLoad(string(c.W.Stage()))
	runs := max(1, load.Runs)
	switch {
	case !rep.OK():
		return rep, c.fail("join", fmt.Errorf("%s", rep))
	case rep.Matched != runs*(load.Warmup+load.Requests) || rep.ByPhase["warmup"] != runs*load.Warmup || rep.ByPhase["profiling"] != runs*load.Requests:
		return rep, c.fail("join", fmt.Errorf("matched %d (%v), want %d runs × (%d warmup + %d measured)", rep.Matched, rep.ByPhase, runs, load.Warmup, load.Requests))
	}
	c.done("join")
	return rep, nil
}

// Identity compares, for every joined request, the HTTP output (from AIPerf's raw response),
// the server record's output and a native run on the same input inside the server container.
func (c *Checkpoint) Identity(ctx context.Context) error {
	if c.Result.Join == nil || !c.steps["join"] {
		return c.fail("identity", fmt.Errorf("no clean join to compare"))
	}
	id := &evidence.Identity{Rule: c.W.IdentityRule()}
	if c.serving.native == nil {
		c.serving.native = map[string]string{}
	}
	native := c.serving.native
	for _, p := range c.Result.Join.Pairs {
		out, err := c.compareOne(ctx, p, native)
		if err != nil {
			id.Mismatches = append(id.Mismatches, fmt.Sprintf("%s: %v", p.ID, err))
			continue
		}
		id.Equal++
		c.Result.Outputs = append(c.Result.Outputs, out)
	}
	id.Requests, id.NativeRuns = len(c.Result.Join.Pairs), len(native)
	c.Result.Identity = id
	if len(id.Mismatches) > 0 {
		return c.fail("identity", fmt.Errorf("%d of %d requests differ: %s", len(id.Mismatches), id.Requests, strings.Join(id.Mismatches[:min(5, len(id.Mismatches))], "; ")))
	}
	c.done("identity")
	return nil
}

func (c *Checkpoint) compareOne(ctx context.Context, p join.Pair, native map[string]string) (evidence.Output, error) {
	out := evidence.Output{RequestID: p.ID, Phase: p.Client.Metadata.Phase}
	if p.Client.Status != 200 || p.Server.Status != 200 || p.Server.Output == nil {
		return out, fmt.Errorf("HTTP status client %d, server %d", p.Client.Status, p.Server.Status)
	}
	var body contract.Timed
	if err := json.Unmarshal([]byte(p.Client.ResponseBody()), &body); err != nil || body.Timing == nil || body.Timing.ModelCallMS != p.Server.Timing.ModelCallMS {
		return out, fmt.Errorf("response trtmc_timing %+v does not match the server record's %+v", body.Timing, p.Server.Timing)
	}
	req, err := c.W.Request(p, c.serving.inputs)
	if err != nil {
		return out, err
	}
	out.InputID, out.Gold, out.HTTPOutput = req.Input, req.Gold, req.Output
	if _, ok := native[req.Key]; !ok {
		if native[req.Key], err = c.nativeRun(ctx, req); err != nil {
			return out, err
		}
	}
	out.Native = native[req.Key]
	if out.Native != out.HTTPOutput {
		return out, fmt.Errorf("native output %q != HTTP output %q", out.Native, out.HTTPOutput)
	}
	return out, nil
}

// nativeRun runs the target's native-run command for the request's input inside the server
// container, on the bundle the server serves.
func (c *Checkpoint) nativeRun(ctx context.Context, req workload.Request) (string, error) {
	out, err := c.nativeStdout(ctx, req)
	if err != nil {
		return "", err
	}
	if c.isTRTMC() && c.Env.Target.NativeOutput[c.Manifest.TaskString()] != "" {
		return c.parseNativeTRTMC(ctx, c.Manifest.TaskString(), out, c.W.Capability() == task.SpeechTranscription)
	}
	return c.W.NativeOutput(out)
}

// nativeStdout runs the native-run command for the request's input and returns what it printed.
func (c *Checkpoint) nativeStdout(ctx context.Context, req workload.Request) (string, error) {
	tmpl := c.Env.Target.NativeRun[c.Manifest.TaskString()]
	if len(tmpl) == 0 {
		return "", fmt.Errorf("target %s has no native_run command for task %q", c.Env.Target.Name, c.Manifest.TaskString())
	}
	values := map[string]string{"bundle": c.serving.server.BundlePath(c.bundlePath)}
	for k, v := range req.Native {
		values[k] = v
	}
	args, err := target.Expand(tmpl, values)
	if c.step != nil { // TRTMC-kind target: its own values ({trtmc_binary}, {runtime_root}, ...) (trtmc hook)
		args, err = c.step.NativeArgs(tmpl, values)
	}
	if err != nil {
		return "", err
	}
	code, out, err := c.serving.server.ExecOutput(ctx, args...)
	c.Result.Commands = append(c.Result.Commands, append([]string{"(in server container)"}, args...))
	if err != nil || code != 0 {
		return "", fmt.Errorf("native run %v: exit %d %v: %s", args, code, err, tail(out))
	}
	return out, nil
}

// Meaning checks outputs are meaningful, not only identical, by the workload's rule (ASR:
// transcripts non-empty and within the family's gold-WER bound; images within TRTMC's
// diffusion sanity bounds).
func (c *Checkpoint) Meaning() error {
	if c.Result.Identity == nil || !c.steps["identity"] {
		return c.fail("meaning", fmt.Errorf("identity did not pass"))
	}
	th, err := manifest.ReadThresholds(manifest.ThresholdsPath(c.Manifest, c.Testcase.Name))
	if err != nil {
		return c.fail("meaning", err)
	}
	m, err := c.W.Meaning(th, c.Result.Outputs, c.Result.Join.Pairs)
	c.Result.Meaning = &m
	if err != nil {
		return c.fail("meaning", err)
	}
	if len(m.Failures) > 0 {
		return c.fail("meaning", fmt.Errorf("%s", strings.Join(m.Failures, "; ")))
	}
	c.done("meaning")
	return nil
}

// Timing derives steady-state figures over measured requests and draws the latency plot.
func (c *Checkpoint) Timing() (timing.Summary, error) {
	if c.Result.Join == nil || !c.steps["join"] {
		return timing.Summary{}, c.fail("timing", fmt.Errorf("no clean join to time"))
	}
	samples, client, task, err := timing.Samples(c.Result.Join.Pairs, c.serving.exports.Metrics)
	if err != nil {
		return timing.Summary{}, c.fail("timing", err)
	}
	sum, err := timing.Summarize(samples)
	if err != nil {
		return sum, c.fail("timing", err)
	}
	c.Result.Timing = &sum
	if len(c.serving.runs) > 1 { // statistics over runs (#19): every interval from the runs' own requests
		rep, err := stats.FromRuns(c.Result.Join.Pairs, c.serving.runs)
		if err != nil {
			return sum, c.fail("timing", err)
		}
		c.Result.Repeated = &rep
	}
	plot := filepath.Join(c.Dir, "latency.svg")
	if err := evidence.WriteLatencySVG(plot, c.Manifest.Name+": client latency vs Task call (measured requests)", client, task); err != nil {
		return sum, c.fail("timing", err)
	}
	c.Result.Plot = relTo(c.Env.RunDir, plot)
	if err := c.writeTimelines(); err != nil {
		return sum, c.fail("timing", err)
	}
	c.done("timing")
	return sum, nil
}
