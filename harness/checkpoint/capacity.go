package checkpoint

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperf"
	"github.com/trtmc-qual/trtmc-qual/harness/capacity"
	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
)

// MeasureLevel runs one level of a capacity sweep on this checkpoint's running server: AIPerf
// at the given concurrency (the sweep's warmup, requests and runs), then the qualification's
// own join, identity and timing on exactly the requests of this level, in dir. It returns the
// level's figures and its result row; a level whose join or identity failed is returned
// unchecked with the error, and never counts as meeting the objective.
func (c *Checkpoint) MeasureLevel(ctx context.Context, concurrency int, s capacity.Sweep, dir string) (capacity.Level, evidence.Result, error) {
	if c.serving == nil || c.serving.server == nil {
		return capacity.Level{}, evidence.Result{}, fmt.Errorf("no server running")
	}
	lc, err := c.atLevel(concurrency, s, dir)
	if err != nil {
		return capacity.Level{}, evidence.Result{}, err
	}
	before, err := lc.recordCount(ctx)
	if err != nil {
		return capacity.Level{}, lc.Result, err
	}
	err = lc.RunAIPerf(ctx)
	if err == nil {
		err = lc.ownRecords(before)
	}
	if err == nil {
		_, err = lc.Join()
	}
	if err == nil {
		err = lc.Identity(ctx)
	}
	if err == nil {
		_, err = lc.Timing()
	}
	runs, ferr := lc.levelRuns(s.Objective)
	level, lerr := capacity.NewLevel(concurrency, runs, err == nil && ferr == nil)
	return level, lc.Result, errors.Join(err, ferr, lerr)
}

// atLevel is a copy of the checkpoint for one level: its own folder and result row, the target's
// stage load replaced by the level's, sharing the running server and the native outputs.
func (c *Checkpoint) atLevel(concurrency int, s capacity.Sweep, dir string) (*Checkpoint, error) {
	t := *c.Env.Target
	t.AIPerf = maps.Clone(t.AIPerf)
	load := t.StageLoad(string(c.W.Stage()))
	load.Concurrency, load.Warmup, load.Requests, load.Runs = concurrency, s.Warmup, s.Requests, max(1, s.Runs)
	t.AIPerf[string(c.W.Stage())] = load
	env := *c.Env
	env.Target = &t
	if c.serving.native == nil {
		c.serving.native = map[string]string{}
	}
	lc := &Checkpoint{Env: &env, W: c.W, Row: c.Row, Manifest: c.Manifest, Testcase: c.Testcase, Dir: dir, Result: c.Result,
		bundlePath: c.bundlePath, step: c.step, steps: map[string]bool{"build": true, "capability": true, "gate": true, "serve": true},
		serving: &serving{network: c.serving.network, server: c.serving.server, inputs: c.serving.inputs, native: c.serving.native,
			goodput: fmt.Sprintf("request_latency:%g", s.Objective.ClientP95MS)}}
	lc.Result.Failures, lc.Result.Commands, lc.Result.Outputs, lc.Result.Timelines = nil, nil, nil, nil
	return lc, os.MkdirAll(dir, 0o755)
}

// ownRecords keeps, of the server's records, the ones written after the first before lines: the
// level's own, so that its join is as strict as a qualification's (no record unaccounted for).
func (c *Checkpoint) ownRecords(before int) error {
	path := filepath.Join(c.Dir, "server-records.jsonl")
	all, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("level records: %w", err)
	}
	lines := bytes.SplitAfter(all, []byte("\n"))
	if before > len(lines) {
		return fmt.Errorf("server has %d record lines, %d before this level", len(lines), before)
	}
	own := bytes.Join(lines[before:], nil)
	if c.serving.records, err = contract.ParseRecords(own); err != nil {
		return err
	}
	return os.WriteFile(path, own, 0o644)
}

// levelRuns are each AIPerf run's figures from its joined measured requests.
func (c *Checkpoint) levelRuns(o capacity.Objective) ([]capacity.Run, error) {
	if c.Result.Join == nil {
		return nil, fmt.Errorf("no join")
	}
	var runs []capacity.Run
	for i, run := range c.serving.runs {
		reqs, err := runRequests(c.Result.Join.Pairs, run)
		if err != nil {
			return runs, fmt.Errorf("run %d: %w", i+1, err)
		}
		r, err := capacity.Figures(reqs, o)
		if err != nil {
			return runs, fmt.Errorf("run %d: %w", i+1, err)
		}
		if r.AIPerfGoodput, err = aiperfGoodput(run.Dir); err != nil {
			return runs, fmt.Errorf("run %d: %w", i+1, err)
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// runRequests are the run's measured requests with client latency (timing.Samples, as the
// qualification derives it) and the server's queue and the client's credit times beside it.
func runRequests(pairs []join.Pair, run aiperf.Exports) ([]capacity.Request, error) {
	inRun := map[string]bool{}
	for _, r := range run.Raw {
		inRun[r.HeaderRequestID()] = true
	}
	var mine []join.Pair
	for _, p := range pairs {
		if inRun[p.ID] && p.Client.Metadata.Phase == aiperf.PhaseProfiling {
			mine = append(mine, p)
		}
	}
	sort.Slice(mine, func(i, j int) bool { return mine[i].ID < mine[j].ID }) // Samples' order
	samples, _, _, err := timing.Samples(mine, run.Metrics)
	if err != nil {
		return nil, err
	}
	out := make([]capacity.Request, len(samples))
	for i, s := range samples {
		p := mine[i]
		out[i] = capacity.Request{ClientMS: s.ClientMS, TaskMS: s.TaskMS, QueueMS: p.Server.Timing.QueueMS, StartNS: s.StartNS, EndNS: s.EndNS,
			CreditNS: p.Client.Metadata.CreditIssuedNS, AudioSeconds: s.AudioSeconds, Failed: p.Client.Status != 200 || p.Server.Status != 200}
	}
	return out, nil
}

// aiperfGoodput is AIPerf's own goodput of a run (profile_export_aiperf.json "goodput", requests
// per second within --goodput's request_latency SLO); 0 when AIPerf reported none.
func aiperfGoodput(runDir string) (float64, error) {
	data, err := os.ReadFile(filepath.Join(runDir, "profile_export_aiperf.json"))
	if err != nil {
		return 0, fmt.Errorf("AIPerf summary: %w", err)
	}
	var summary struct {
		Goodput *struct {
			Avg float64 `json:"avg"`
		} `json:"goodput"`
	}
	if err := json.Unmarshal(data, &summary); err != nil {
		return 0, fmt.Errorf("AIPerf summary: %w", err)
	}
	if summary.Goodput == nil {
		return 0, nil
	}
	return summary.Goodput.Avg, nil
}
