package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/capacity"
	"github.com/trtmc-qual/trtmc-qual/harness/checkpoint"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/plan"
	"github.com/trtmc-qual/trtmc-qual/harness/plot"
	"github.com/trtmc-qual/trtmc-qual/harness/stats"
)

// capacitySpec is the command's entry in the command table.
func capacitySpec() spec {
	return spec{runCapacity, "[--stage S] [--profile P] [--levels 1,2,4] [--runs N] [--requests N]",
		"sweep concurrency per counted row: the highest level within the stage's latency objective",
		"For each counted full row of each stage the target declares a capacity sweep for (target file, capacity:), serves the row once and runs AIPerf at each concurrency level (each level --runs runs), with the qualification's own join, identity and timing on every level's requests. Prints per level throughput, goodput, client/Task/queue percentiles, failures and whether the client kept up; then the capacity (the highest level meeting the objective, with its interval over runs), the knee and the lanes/Task-time bound. Writes capacity.json, capacity.md and capacity.png per row under the run directory (QUAL_RUN_DIR, default reports/capacity-<time>). Exit 1 when a level's checks fail or a row has no level within its objective.",
		"qual capacity --stage asr --profile sphinx-en-us --levels 1,2 --runs 2 --requests 4", 0, 0}
}

func runCapacity(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("capacity", flag.ContinueOnError)
	stage := fs.String("stage", "", "one stage (default: every stage with a capacity sweep in the target)")
	profile := fs.String("profile", "", "only this profile")
	levels := fs.String("levels", "", "concurrency levels, comma-separated (default: the target's)")
	runs := fs.Int("runs", 0, "AIPerf runs per level (default: the target's)")
	requests := fs.Int("requests", 0, "measured requests per run (default: the target's)")
	ceiling := fs.Bool("ceiling", false, "measure the harness's own ceiling instead: the same sweep against a server that answers at once (server/peerbench/peer.py)")
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	cfg, t, err := loadTarget()
	if err != nil {
		return err
	}
	if cfg.RunDir == "" {
		cfg.RunDir = filepath.Join(cfg.Root, "reports", "capacity-"+time.Now().UTC().Format("20060102-150405"))
	}
	stages := sortedStages(t.Capacity)
	if *stage != "" {
		if _, ok := t.Capacity[*stage]; !ok {
			return usageError{fmt.Errorf("target %s declares no capacity sweep for stage %q (it has %v)", t.Name, *stage, stages)}
		}
		stages = []string{*stage}
	}
	if len(stages) == 0 {
		return usageError{fmt.Errorf("target %s declares no capacity sweep (capacity: in %s)", t.Name, cfg.TargetPath)}
	}
	var failed []string
	for _, st := range stages {
		sweep, err := overrideSweep(t.Capacity[st], *levels, *runs, *requests)
		if err != nil {
			return usageError{err}
		}
		p, err := plan.New(cfg, st)
		if err != nil {
			return usageError{err}
		}
		if p.PlannedReason != "" {
			fmt.Fprintf(stdout, "stage %s: planned, not measured: %s\n", st, p.PlannedReason)
			continue
		}
		env, err := p.Setup(ctx, stdout)
		if err != nil {
			return err
		}
		for _, row := range inventory.Counted(p.Rows) {
			if row.Kind != inventory.KindFull || row.GPUs > 1 || (*profile != "" && row.Profile != *profile) {
				continue
			}
			if *ceiling {
				if err := harnessCeiling(ctx, env, row, sweep, stdout); err != nil {
					failed = append(failed, fmt.Sprintf("%s/%s ceiling: %v", st, row.Profile, err))
				}
				break // one row's inputs are enough: the instant server ignores them
			}
			res, err := capacityOfRow(ctx, env, row, sweep)
			if res != nil {
				printCapacity(stdout, res)
			}
			if err != nil || res == nil || res.Capacity == 0 {
				failed = append(failed, fmt.Sprintf("%s/%s: %v", st, row.Profile, errors.Join(err, noCapacity(res))))
			}
		}
	}
	fmt.Fprintf(stdout, "capacity run: %s (figures measured on this machine as it was loaded at the time)\n", cfg.RunDir)
	if len(failed) > 0 {
		return fmt.Errorf("%s", strings.Join(failed, "\n"))
	}
	return nil
}

func noCapacity(res *capacity.Result) error {
	if res != nil && res.Capacity == 0 {
		return fmt.Errorf("no level met the objective")
	}
	return nil
}

func sortedStages(m map[string]capacity.Sweep) []string {
	out := make([]string, 0, len(m))
	for s := range m {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// overrideSweep applies the command line's levels, runs and requests to the target's sweep.
func overrideSweep(s capacity.Sweep, levels string, runs, requests int) (capacity.Sweep, error) {
	if levels != "" {
		s.Concurrency = nil
		for _, f := range strings.Split(levels, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				return s, fmt.Errorf("--levels %q: %w", levels, err)
			}
			s.Concurrency = append(s.Concurrency, n)
		}
	}
	if runs > 0 {
		s.Runs = runs
	}
	if requests > 0 {
		s.Requests = requests
	}
	return s, s.Validate()
}

// capacityOfRow builds and serves one row, measures each level on that one server, and writes
// the row's capacity.json, capacity.md and capacity.png beside the levels' folders.
func capacityOfRow(ctx context.Context, env *checkpoint.Env, row inventory.Row, s capacity.Sweep) (*capacity.Result, error) {
	c, err := checkpoint.New(env, row)
	if err != nil {
		return nil, err
	}
	if err := c.Build(ctx); err != nil {
		return nil, err
	}
	if err := c.Capability(ctx); err != nil {
		return nil, err
	}
	stopNet, err := c.StartNetwork(ctx)
	if err != nil {
		return nil, err
	}
	defer stopNet(context.WithoutCancel(ctx))
	stopSrv, err := c.StartServer(ctx)
	if stopSrv != nil {
		defer stopSrv(context.WithoutCancel(ctx))
	}
	if err != nil {
		return nil, err
	}
	if err := c.CheckServed(ctx); err != nil {
		return nil, err
	}
	var levels []capacity.Level
	var rows []evidence.Result
	var errs []error
	for _, n := range s.Concurrency {
		level, r, err := c.MeasureLevel(ctx, n, s, filepath.Join(c.Dir, fmt.Sprintf("concurrency-%02d", n)))
		levels, rows = append(levels, level), append(rows, r)
		if err != nil {
			errs = append(errs, fmt.Errorf("concurrency %d: %w", n, err))
		}
	}
	res := capacity.Analyze(row.Profile, string(env.Stage), s.Objective, max(1, env.Target.Server.Lanes), levels)
	return &res, errors.Join(append(errs, writeCapacity(c.Dir, res, rows))...)
}

// writeCapacity keeps the row's capacity result, its table and its plot.
func writeCapacity(dir string, res capacity.Result, levels []evidence.Result) error {
	if err := evidence.WriteJSON(filepath.Join(dir, "capacity.json"), struct {
		capacity.Result
		LevelRows []evidence.Result `json:"level_rows"`
	}{res, levels}); err != nil {
		return err
	}
	var md strings.Builder
	printCapacity(&md, &res)
	if err := os.WriteFile(filepath.Join(dir, "capacity.md"), []byte(md.String()), 0o644); err != nil {
		return err
	}
	var pts []plot.Point
	for _, l := range res.Levels {
		pts = append(pts, plot.Point{Offered: float64(l.Concurrency), KeptUp: l.ClientKeptUp,
			Throughput: l.Throughput.Mean, TLo: lower(l.Throughput), THi: upper(l.Throughput),
			ClientP95: l.ClientP95MS.Mean, P95Lo: lower(l.ClientP95MS), P95Hi: upper(l.ClientP95MS)})
	}
	png, err := plot.Capacity{Title: res.Profile + ": capacity sweep", Points: pts, ObjectiveMS: res.Objective.ClientP95MS, BoundRPS: res.Bound}.PNG(96)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "capacity.png"), png, 0o644)
}

// lower and upper are an interval's bounds, the mean itself when one run gives none.
func lower(iv stats.Interval) float64 {
	if iv.CI == nil {
		return iv.Mean
	}
	return iv.CI.Lower
}

func upper(iv stats.Interval) float64 {
	if iv.CI == nil {
		return iv.Mean
	}
	return iv.CI.Upper
}

// interval prints a mean with its 95% interval over runs.
func interval(iv stats.Interval) string {
	if iv.CI == nil {
		return fmt.Sprintf("%.3g (n=%d, no interval)", iv.Mean, iv.N)
	}
	return fmt.Sprintf("%.3g [%.3g, %.3g] (n=%d)", iv.Mean, iv.CI.Lower, iv.CI.Upper, iv.N)
}

// printCapacity is the row's table: one line per level, then the verdict lines.
func printCapacity(w io.Writer, res *capacity.Result) {
	fmt.Fprintf(w, "\n%s (%s): objective client p95 ≤ %.0f ms", res.Profile, res.Stage, res.Objective.ClientP95MS)
	if res.Objective.MaxRTF > 0 {
		fmt.Fprintf(w, ", RTF ≤ %.2g", res.Objective.MaxRTF)
	}
	fmt.Fprintf(w, "; %d lanes\n", res.Lanes)
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "concurrency\truns\tthroughput req/s\tgoodput req/s\tAIPerf goodput\tclient p50/p95 ms\tTask p50/p95 ms\tqueue p95 ms\tRTF\tfailures\tlateness p95 ms\tclient kept up\tchecked\tmeets")
	for _, l := range res.Levels {
		var c50, c95, t50, t95, q95, rtf, late, ag float64
		fails := 0
		for _, r := range l.Runs {
			c50, c95, t50, t95, q95, rtf = c50+r.ClientP50MS, c95+r.ClientP95MS, t50+r.TaskP50MS, t95+r.TaskP95MS, q95+r.QueueP95MS, rtf+r.RTF
			late, fails, ag = max(late, r.LatenessP95MS), fails+r.Failures, ag+r.AIPerfGoodput
		}
		n := float64(max(1, len(l.Runs)))
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%.3g\t%.0f / %.0f\t%.0f / %.0f\t%.0f\t%.3g\t%d\t%.1f\t%v\t%v\t%v\n", l.Concurrency, len(l.Runs), interval(l.Throughput), interval(l.Goodput), ag/n,
			c50/n, c95/n, t50/n, t95/n, q95/n, rtf/n, fails, late, l.ClientKeptUp, l.Checked, l.Meets)
	}
	tw.Flush()
	if res.Throughput != nil {
		fmt.Fprintf(w, "capacity: concurrency %d, %s req/s; knee at concurrency %d; bound (lanes × 1/Task p50 at the lowest level) %.3g req/s: the capacity is %.0f%% of it\n",
			res.Capacity, interval(*res.Throughput), res.Knee, res.Bound, 100*res.BoundShare)
	} else {
		fmt.Fprintf(w, "capacity: none within the objective; knee at concurrency %d; bound %.3g req/s\n", res.Knee, res.Bound)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// harnessCeiling runs the sweep's levels against the instant server with row's inputs and
// prints what AIPerf reached: the most any sweep on this machine can show.
func harnessCeiling(ctx context.Context, env *checkpoint.Env, row inventory.Row, s capacity.Sweep, w io.Writer) error {
	c, err := checkpoint.New(env, row)
	if err != nil {
		return err
	}
	if c.W.Route() != checkpoint.InstantRoute {
		return usageError{fmt.Errorf("the instant server answers %s only, not %s: --ceiling needs a transcription stage", checkpoint.InstantRoute, c.W.Route())}
	}
	stopNet, err := c.StartNetwork(ctx)
	if err != nil {
		return err
	}
	defer stopNet(context.WithoutCancel(ctx))
	dir := filepath.Join(env.RunDir, "ceiling")
	runs, err := c.Ceiling(ctx, s.Concurrency, s, dir)
	fmt.Fprintf(w, "\nharness ceiling (AIPerf %s against an instant server, %s's inputs; measured on this machine as loaded at the time)\n", "0.13.0", row.Profile)
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "concurrency\trequests\tthroughput req/s\tclient p50/p95 ms\tlateness p95 ms\tachieved concurrency\tfailures")
	for i, r := range runs {
		fmt.Fprintf(tw, "%d\t%d\t%.1f\t%.1f / %.1f\t%.2f\t%.2f\t%d\n", s.Concurrency[i], r.Requests, r.Throughput, r.ClientP50MS, r.ClientP95MS, r.LatenessP95MS, r.AchievedConcurrency, r.Failures)
	}
	tw.Flush()
	return errors.Join(err, evidence.WriteJSON(filepath.Join(dir, "ceiling.json"), struct {
		Profile     string         `json:"profile"`
		Concurrency []int          `json:"concurrency"`
		Runs        []capacity.Run `json:"runs"`
	}{row.Profile, s.Concurrency, runs}))
}
