// Package sweep is `qual capacity`: for each counted full row of each stage the target declares a
// capacity sweep for, it qualifies the row once per concurrency level (build, serve, AIPerf,
// join, identity, meaning, timing, bundle unchanged: the qualification's own steps, on a fresh
// server per level) and derives the row's capacity (harness/capacity) with its table and plot;
// or, with Ceiling, measures the harness's own ceiling (harness/capacity/ceiling).
package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/aiperfexport"
	"github.com/trtmc-qual/trtmc-qual/harness/capacity"
	"github.com/trtmc-qual/trtmc-qual/harness/capacity/ceiling"
	"github.com/trtmc-qual/trtmc-qual/harness/checkpoint"
	"github.com/trtmc-qual/trtmc-qual/harness/config"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/plan"
	"github.com/trtmc-qual/trtmc-qual/harness/plan/setup"
	"github.com/trtmc-qual/trtmc-qual/harness/plot"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
)

// ErrUsage marks an error in the command line or the target's capacity declaration: nothing was
// measured.
var ErrUsage = errors.New("usage")

// Options narrow the target's sweeps from the command line (zero values keep the target's).
type Options struct {
	Stage          stage.Name
	Profile        string
	Levels         []int
	Runs, Requests int
	Ceiling        bool
}

// Run sweeps every selected row and prints each row's table to stdout (progress to log). It
// fails when a level's checks failed or a row has no level within its objective.
func Run(ctx context.Context, cfg config.Config, o Options, stdout, log io.Writer) error {
	t, err := cfg.Target()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	stages := slices.Sorted(maps.Keys(t.Capacity))
	if o.Stage != "" {
		if _, ok := t.Capacity[o.Stage]; !ok {
			return fmt.Errorf("%w: target %s declares no capacity sweep for stage %q (it has %v)", ErrUsage, t.Name, o.Stage, stages)
		}
		stages = []stage.Name{o.Stage}
	}
	if len(stages) == 0 {
		return fmt.Errorf("%w: target %s declares no capacity sweep (capacity: in %s)", ErrUsage, t.Name, t.Path)
	}
	if cfg.RunDir == "" {
		cfg.RunDir = filepath.Join(cfg.Root, "reports", "capacity-"+time.Now().UTC().Format("20060102-150405"))
	}
	var failed []string
	for _, st := range stages {
		s := narrow(t.Capacity[st], o)
		if err := s.Validate(); err != nil {
			return fmt.Errorf("%w: stage %s: %w", ErrUsage, st, err)
		}
		fails, err := sweepStage(ctx, cfg, st, s, o, stdout, log)
		if err != nil {
			return err
		}
		failed = append(failed, fails...)
	}
	fmt.Fprintf(stdout, "\ncapacity run: %s (measured on this machine as it was loaded at the time)\n", cfg.RunDir)
	if len(failed) > 0 {
		return fmt.Errorf("%s", strings.Join(failed, "\n"))
	}
	return nil
}

// narrow applies the command line's levels, runs and requests to a stage's sweep.
func narrow(s target.Sweep, o Options) target.Sweep {
	if len(o.Levels) > 0 {
		s.Concurrency = o.Levels
	}
	if o.Runs > 0 {
		s.Runs = o.Runs
	}
	if o.Requests > 0 {
		s.Requests = o.Requests
	}
	return s
}

// sweepStage sweeps one stage's selected rows (or measures the ceiling with the first); it returns a
// line per row that failed, and an error only when the stage could not be set up.
func sweepStage(ctx context.Context, cfg config.Config, st stage.Name, s target.Sweep, o Options, stdout, log io.Writer) ([]string, error) {
	p, err := plan.New(cfg, st)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if p.PlannedReason != "" {
		fmt.Fprintf(stdout, "stage %s: planned, not measured: %s\n", st, p.PlannedReason)
		return nil, nil
	}
	var rows []evidence.InventoryRow
	for _, row := range inventory.Counted(p.Rows) {
		if row.Kind == evidence.KindFull && row.GPUs <= 1 && (o.Profile == "" || row.Profile == o.Profile) {
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%w: stage %s has no counted full row (profile %q)", ErrUsage, st, o.Profile)
	}
	env, err := setup.Prepare(ctx, p, log)
	if err != nil {
		return nil, err
	}
	if o.Ceiling {
		return nil, measureCeiling(ctx, env, rows[0], s, stdout)
	}
	return sweepRows(ctx, st, rows, func(row evidence.InventoryRow) (*capacity.Result, error) { return Row(ctx, env, row, s) }, stdout)
}

// sweepRows measures each row in turn and prints its table. An interrupt stops it at the row it
// was in: that row's levels failed because they were stopped, not on their figures, so neither
// its table nor "none within the objective" is printed, and the error says interrupted.
func sweepRows(ctx context.Context, st stage.Name, rows []evidence.InventoryRow, measure func(evidence.InventoryRow) (*capacity.Result, error), stdout io.Writer) ([]string, error) {
	var failed []string
	for _, row := range rows {
		res, err := measure(row)
		if ctx.Err() != nil {
			return failed, fmt.Errorf("interrupted (%v) while measuring %s/%s: no capacity is claimed for it or the rows after it", context.Cause(ctx), st, row.Profile)
		}
		if res != nil {
			capacity.Write(stdout, *res)
		}
		if err == nil && res.Capacity == 0 {
			err = errors.New("no level met the objective")
		}
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s/%s: %v", st, row.Profile, err))
		}
	}
	return failed, nil
}

// Row qualifies one row at each of the sweep's levels and writes its capacity.json,
// capacity.md and capacity.png beside the levels' folders (RunDir/<stage>/<profile>/).
func Row(ctx context.Context, env *checkpoint.Env, row evidence.InventoryRow, s target.Sweep) (*capacity.Result, error) {
	dir := filepath.Join(env.Stage.Dir(env.RunDir), row.Profile)
	var levels []capacity.Level
	var rows []evidence.Result
	var errs []error
	for _, n := range s.Concurrency {
		level, r, err := measureLevel(ctx, env, row, n, s, filepath.Join(dir, fmt.Sprintf("concurrency-%02d", n)))
		levels, rows = append(levels, level), append(rows, r)
		if err != nil {
			errs = append(errs, fmt.Errorf("concurrency %d: %w", n, err))
		}
	}
	res := capacity.Analyze(row.Profile, string(env.Stage), s.Objective, env.Target.Server.Lanes, levels)
	return &res, errors.Join(append(errs, write(dir, res, rows))...)
}

// measureLevel qualifies the row at one level in dir and derives the level's figures from its
// joined requests. A level whose steps failed keeps the figures it has, and is never counted.
func measureLevel(ctx context.Context, env *checkpoint.Env, row evidence.InventoryRow, n int, s target.Sweep, dir string) (capacity.Level, evidence.Result, error) {
	c, err := checkpoint.NewIn(atLevel(env, n, s), row, dir)
	if err != nil {
		return capacity.Level{Concurrency: n, Failure: err.Error()}, evidence.Result{}, err
	}
	err = qualify(ctx, c)
	runs, ferr := levelRuns(c, env.RunDir, s.Objective)
	failure := ""
	if err = errors.Join(err, ferr); err != nil {
		failure = err.Error()
	}
	level, lerr := capacity.NewLevel(n, runs, failure)
	return level, c.Result, errors.Join(err, lerr)
}

// atLevel is the run's environment with the stage's AIPerf load replaced by the level's:
// concurrency n, the sweep's warmup, requests and runs, and AIPerf's --goodput at the objective.
func atLevel(env *checkpoint.Env, n int, s target.Sweep) *checkpoint.Env {
	t := *env.Target
	t.AIPerf = maps.Clone(t.AIPerf)
	if t.AIPerf == nil {
		t.AIPerf = map[stage.Name]target.Load{}
	}
	st := env.Stage
	load := t.StageLoad(st)
	load.Concurrency, load.Warmup, load.Requests, load.Runs = n, s.Warmup, s.Requests, s.Runs
	load.Goodput = fmt.Sprintf("request_latency:%g", s.Objective.ClientP95MS)
	t.AIPerf[st] = load
	e := *env
	e.Target = &t
	return &e
}

// qualify runs the qualification's steps on the row (the family gate aside: it does not depend
// on the load) with its own network and server.
func qualify(ctx context.Context, c *checkpoint.Checkpoint) (err error) {
	if err := c.Build(ctx); err != nil {
		return err
	}
	if err := c.Capability(ctx); err != nil {
		return err
	}
	stopNet, err := c.StartNetwork(ctx)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stopNet(context.WithoutCancel(ctx))) }()
	if err := served(ctx, c); err != nil {
		return err
	}
	// The native twins run after the server stopped, in a container of its image.
	stopNative, err := c.StartNative(ctx)
	if stopNative != nil {
		defer func() { err = errors.Join(err, stopNative(context.WithoutCancel(ctx))) }()
	}
	if err != nil {
		return err
	}
	for _, step := range []func() error{func() error { return c.Identity(ctx) }, c.Meaning, c.Timing, c.Unchanged} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// served starts the server, runs the served steps and stops it.
func served(ctx context.Context, c *checkpoint.Checkpoint) (err error) {
	stopSrv, err := c.StartServer(ctx)
	if stopSrv != nil {
		defer func() { err = errors.Join(err, stopSrv(context.WithoutCancel(ctx))) }()
	}
	if err != nil {
		return err
	}
	for _, step := range []func() error{
		func() error { return c.CheckServed(ctx) },
		func() error { return c.RunAIPerf(ctx) },
		func() error { _, err := c.Join(); return err },
	} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// levelRuns are each AIPerf run's figures from the level's joined measured requests, with
// AIPerf's own goodput beside ours.
func levelRuns(c *checkpoint.Checkpoint, runDir string, o target.Objective) ([]capacity.Run, error) {
	if c.Result.Join == nil || c.Result.AIPerf == nil || len(c.Pairs()) == 0 {
		return nil, nil // no join: the step's own error says why
	}
	artifacts := c.Result.AIPerf.Dir
	if !filepath.IsAbs(artifacts) {
		artifacts = filepath.Join(runDir, artifacts)
	}
	exports, err := aiperfexport.ReadRuns(artifacts)
	if err != nil {
		return nil, err
	}
	var runs []capacity.Run
	for i, ex := range exports {
		reqs, err := capacity.RunRequests(c.Pairs(), ex)
		if err != nil {
			return runs, fmt.Errorf("run %d: %w", i+1, err)
		}
		r, err := capacity.Figures(reqs, o)
		if err != nil {
			return runs, fmt.Errorf("run %d: %w", i+1, err)
		}
		if r.AIPerfGoodput, err = capacity.AIPerfGoodput(ex.Dir); err != nil {
			return runs, fmt.Errorf("run %d: %w", i+1, err)
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// write keeps the row's capacity result with every level's result row, its table and its plot.
func write(dir string, res capacity.Result, levels []evidence.Result) error {
	if err := evidence.WriteJSON(filepath.Join(dir, "capacity.json"), struct {
		capacity.Result
		LevelRows []evidence.Result `json:"level_rows"`
	}{res, levels}); err != nil {
		return err
	}
	var md strings.Builder
	capacity.Write(&md, res)
	if err := os.WriteFile(filepath.Join(dir, "capacity.md"), []byte(md.String()), 0o644); err != nil {
		return fmt.Errorf("write capacity table: %w", err)
	}
	var pts []plot.Point
	for _, l := range res.Levels {
		pt := plot.Point{Offered: float64(l.Concurrency), KeptUp: l.ClientKeptUp, Throughput: l.Throughput.Mean, TLo: l.Throughput.Mean, THi: l.Throughput.Mean,
			ClientP95: l.ClientP95MS.Mean, P95Lo: l.ClientP95MS.Mean, P95Hi: l.ClientP95MS.Mean}
		if ci := l.Throughput.CI; ci != nil {
			pt.TLo, pt.THi = ci.Lower, ci.Upper
		}
		if ci := l.ClientP95MS.CI; ci != nil {
			pt.P95Lo, pt.P95Hi = ci.Lower, ci.Upper
		}
		pts = append(pts, pt)
	}
	png, err := plot.Capacity{Title: res.Profile + " (" + res.Stage + "): capacity sweep", Points: pts, ObjectiveMS: res.Objective.ClientP95MS, BoundRPS: res.Bound}.PNG(96)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "capacity.png"), png, 0o644)
}

// measureCeiling measures and prints the harness's own ceiling with row's inputs, and keeps it
// in RunDir/ceiling/ceiling.json.
func measureCeiling(ctx context.Context, env *checkpoint.Env, row evidence.InventoryRow, s target.Sweep, w io.Writer) error {
	dir := filepath.Join(env.RunDir, "ceiling")
	runs, err := ceiling.Measure(ctx, env, row, s, dir)
	if errors.Is(err, ceiling.ErrRoute) {
		return fmt.Errorf("%w: --ceiling needs a transcription stage: %w", ErrUsage, err)
	}
	fmt.Fprintf(w, "\nharness ceiling: AIPerf against server/peerbench/peer.py (a no-op Task), %s's inputs, one run per level\n\n", row.Profile)
	fmt.Fprintln(w, "| concurrency | requests | throughput req/s | offered / achieved req/s | in flight | client p50/p95 ms | lateness p95 ms (bound) | client kept up | failures |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	for i, r := range runs {
		fmt.Fprintf(w, "| %d | %d | %.1f | %.1f / %.1f | %.2f | %.1f / %.1f | %.2f (%.1f) | %v | %d |\n", s.Concurrency[i], r.Requests, r.Throughput, r.OfferedRPS, r.Throughput, r.InFlight,
			r.ClientP50MS, r.ClientP95MS, r.LatenessP95MS, r.LateBoundMS, r.ClientKeptUp, r.Failures)
	}
	return errors.Join(err, evidence.WriteJSON(filepath.Join(dir, "ceiling.json"), struct {
		Profile     string         `json:"profile"`
		Concurrency []int          `json:"concurrency"`
		Runs        []capacity.Run `json:"runs"`
	}{row.Profile, s.Concurrency[:len(runs)], runs}))
}
