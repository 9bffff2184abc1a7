package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/claim"
	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
)

// Join matches every AIPerf record (warmup included) to exactly one server record.
func (c *Checkpoint) Join() (*evidence.Join, error) {
	defer c.timed("join")()
	if c.serving == nil || c.serving.aiperf == nil {
		return nil, c.fail("join", fmt.Errorf("no AIPerf run to join"))
	}
	a, err := c.derive(claim.Join())
	if err != nil {
		return nil, c.fail("join", err)
	}
	// Checked, not stored: the bundle's recorded sha256 stays the built one it must still be, the
	// stored inputs and what AIPerf was given are the pinned ones, each record's input identity
	// is the payload's.
	if problems := claim.Inputs().Check(a); len(problems) > 0 {
		return nil, c.fail("join", fmt.Errorf("%s", strings.Join(problems, "; ")))
	}
	c.pairs = a.Join.Pairs
	rep := claim.JoinRecord(a.Join)
	load := c.Env.Target.StageLoad(c.W.Stage())
	runs := max(1, load.Runs)
	switch {
	case !rep.OK():
		return rep, c.fail("join", errors.New(rep.String()))
	case rep.Matched != runs*(load.Warmup+load.Requests) || rep.ByPhase["warmup"] != runs*load.Warmup || rep.ByPhase["profiling"] != runs*load.Requests:
		return rep, c.fail("join", fmt.Errorf("%s; want %d runs × (%d warmup + %d measured)", rep, runs, load.Warmup, load.Requests))
	}
	c.done("join")
	return rep, nil
}

// Pairs are the requests the join step joined (none before it ran).
func (c *Checkpoint) Pairs() []join.Pair { return c.pairs }

// Identity compares, for every joined request, the HTTP output (from AIPerf's raw response),
// the server record's output and a native run on the same input inside the server container.
func (c *Checkpoint) Identity(ctx context.Context) error {
	defer c.timed("identity")()
	defer c.beat(ctx, "identity (native runs)")()
	if c.Result.Join == nil || !c.steps["join"] {
		return c.fail("identity", fmt.Errorf("no clean join to compare"))
	}
	id := &evidence.Identity{Rule: c.W.IdentityRule()}
	native := map[string]string{}
	for _, p := range c.pairs {
		out, err := c.compareOne(ctx, p, native)
		if err != nil {
			id.Mismatches = append(id.Mismatches, fmt.Sprintf("%s: %v", p.ID, err))
			continue
		}
		id.Equal++
		c.Result.Outputs = append(c.Result.Outputs, out)
	}
	id.Requests, id.NativeRuns = len(c.pairs), len(native)
	c.Result.Identity = id
	if len(id.Mismatches) > 0 {
		return c.fail("identity", fmt.Errorf("%d of %d requests differ: %s", len(id.Mismatches), id.Requests, strings.Join(id.Mismatches[:min(5, len(id.Mismatches))], "; ")))
	}
	// The outputs stored are those derived again from the files the row wrote, as verify derives them.
	if _, err := c.derive(claim.Outputs()); err != nil {
		return c.fail("identity", err)
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

// nativeRun runs the target's native-run command for the request's input in the native container
// (the server's image, files and mounts, after the server stopped), on the bundle that was served.
func (c *Checkpoint) nativeRun(ctx context.Context, req workload.Request) (string, error) {
	out, err := c.nativeStdoutOnce(ctx, req)
	if err != nil {
		return "", err
	}
	return c.kind().nativeOutput(ctx, c, out)
}

// nativeStdoutOnce is nativeStdout run at most once per input key on the served bundle: the
// same input on the same bundle in a container of the same image prints the same output, and a later
// reader of its Task time (the no-caching check) gets the same cold-process run identity made.
func (c *Checkpoint) nativeStdoutOnce(ctx context.Context, req workload.Request) (string, error) {
	if out, ok := c.serving.nativeOut[req.Key]; ok {
		return out, nil
	}
	out, err := c.nativeStdout(ctx, req)
	if err != nil {
		return "", err
	}
	if c.serving.nativeOut == nil {
		c.serving.nativeOut = map[string]string{}
	}
	c.serving.nativeOut[req.Key] = out
	return out, nil
}

// nativeStdout runs the native-run command for the request's input and returns what it printed.
func (c *Checkpoint) nativeStdout(ctx context.Context, req workload.Request) (string, error) {
	tmpl := c.Env.Target.NativeRun[c.Manifest.TaskString()]
	if len(tmpl) == 0 {
		return "", fmt.Errorf("target %s has no native_run command for task %q", c.Env.Target.Name, c.Manifest.TaskString())
	}
	if c.serving == nil || c.serving.native == nil {
		return "", fmt.Errorf("no native container: StartNative after the server stopped")
	}
	values := map[string]string{"bundle": c.serving.native.BundlePath(c.bundlePath)}
	for k, v := range req.Native {
		values[k] = v
	}
	c.servedNative(values)
	args, err := c.kind().nativeArgs(c, tmpl, values)
	if err != nil {
		return "", err
	}
	code, out, err := c.serving.native.ExecOutput(ctx, args...)
	c.Result.Commands = append(c.Result.Commands, append([]string{"(in the native container, the server stopped)"}, args...))
	if err != nil || code != 0 {
		return "", fmt.Errorf("native run %v: exit %d %v: %s", args, code, err, workload.Tail(out))
	}
	return out, nil
}

// Meaning checks outputs are meaningful, not only identical, by the workload's rule (ASR:
// transcripts non-empty and within the family's gold-WER bound; images within TRTMC's
// diffusion sanity bounds).
func (c *Checkpoint) Meaning() error {
	defer c.timed("meaning")()
	if c.Result.Identity == nil || !c.steps["identity"] {
		return c.fail("meaning", fmt.Errorf("identity did not pass"))
	}
	// Thresholds are read only where declared: the rule asks for the bounds it needs, and one the
	// target declares none of is recorded as such (Meaning.NoBound) rather than failed.
	if _, err := c.derive(claim.Meaning()); err != nil {
		return c.fail("meaning", err)
	}
	if m := c.Result.Meaning; len(m.Failures) > 0 {
		return c.fail("meaning", fmt.Errorf("%s", strings.Join(m.Failures, "; ")))
	}
	c.done("meaning")
	return nil
}

// Timing derives steady-state figures over measured requests (Result.Timing) and the intervals
// over runs when AIPerf ran several (Result.Repeated) from the stored files (harness/claim). The
// report draws the row's pictures from the same files (harness/report), so none is stored here.
func (c *Checkpoint) Timing() error {
	defer c.timed("timing")()
	if c.Result.Join == nil || !c.steps["join"] {
		return c.fail("timing", fmt.Errorf("no clean join to time"))
	}
	_, err := c.derive(claim.Timing(), claim.Repeated()) // the timing is kept when only the intervals failed
	if c.Result.Timing == nil && err == nil {
		err = fmt.Errorf("no measured request to time")
	}
	if err != nil {
		return c.fail("timing", err)
	}
	if missing := missingFigures(c.W.Figures(), *c.Result.Timing); len(missing) > 0 {
		return c.fail("timing", fmt.Errorf("the stage's figures %s cannot be computed: %s", strings.Join(missing, ", "), figureReason(*c.Result.Timing)))
	}
	c.done("timing")
	return nil
}

// missingFigures are the advertised figures the summary does not hold.
func missingFigures(advertised []string, s evidence.Timing) []string {
	var out []string
	for _, name := range advertised {
		if _, ok := s.Get(name); !ok {
			out = append(out, name)
		}
	}
	return out
}

// figureReason says why the stage's figures could be missing: what they are derived from.
func figureReason(s evidence.Timing) string {
	duration, _ := s.Get("benchmark_duration")
	audio, _ := s.Get("audio_seconds")
	return fmt.Sprintf("they need a positive benchmark duration (%v s) and, per stage, the measured requests' clip lengths (Σ %v s) or images", duration, audio)
}
