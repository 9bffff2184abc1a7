package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/trtmc-qual/trtmc-qual/harness/config"
	"github.com/trtmc-qual/trtmc-qual/harness/plan"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
)

// runConfig reads the run's configuration the way the suites do — every QUAL_* variable,
// strictly — and the target it names, and prints what a run would use. `make qualify-all`
// calls it first, so a wrong value or a missing target stops the run with one line before any
// spec, container, JUnit file or report exists (exit 2).
func runConfig(_ context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("config", flag.ContinueOnError)
	list := fs.Bool("list", false, "list every QUAL_* variable with its meaning")
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	if *list {
		tw := tabwriter.NewWriter(stdout, 0, 2, 2, ' ', 0)
		for _, v := range config.Vars() {
			fmt.Fprintf(tw, "%s\t%s\n", v.Name, v.Meaning)
		}
		return tw.Flush()
	}
	cfg, t, err := loadTarget()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "target %s (%s) from %s\n", t.Name, t.Kind, cfg.TargetPath)
	if cfg.TRTMCRoot != "" {
		fmt.Fprintf(stdout, "TRTMC checkout %s\n", cfg.TRTMCRoot)
	}
	fmt.Fprintf(stdout, "shard %s\n", cfg.Shard)
	for _, s := range stage.Names() {
		l := t.StageLoad(s)
		// Runs as the suites run them: 0 in a target file is one run.
		fmt.Fprintf(stdout, "stage %s: %d run(s) × (%d warmup + %d measured requests) at concurrency %d\n", s, max(1, l.Runs), l.Warmup, l.Requests, l.Concurrency)
	}
	if !cfg.Select.Active() {
		return nil
	}
	sels, err := plan.CheckSelection(cfg)
	if err != nil {
		return usageError{err}
	}
	printSelection(stdout, sels, cfg.Scope)
	return nil
}

// printSelection says which rows of each stage the run selects, and the Ginkgo focus each stage's
// suite runs them with (suites/qualify applies the same plan.Selection); scope is QUAL_SCOPE,
// the word the verdict then uses.
func printSelection(w io.Writer, sels map[stage.Name]plan.Selection, scope string) {
	for _, s := range stage.Names() {
		sel := sels[s]
		if scope != "" {
			sel.Label = scope
		}
		if len(sel.Rows) == 0 {
			fmt.Fprintf(w, "selection (%s) stage %s: not selected\n", sel.Label, s)
			continue
		}
		fmt.Fprintf(w, "selection (%s) stage %s: %s (ginkgo --focus '%s')\n", sel.Label, s, strings.Join(sel.Rows, ", "), sel.Focus())
	}
}

// loadTarget reads the configuration and the target it names, as a run does; either error is a
// configuration error (exit 2).
func loadTarget() (config.Config, *target.Target, error) {
	cfg, err := config.Load()
	if err != nil {
		return cfg, nil, usageError{err}
	}
	t, err := cfg.Target()
	if err != nil {
		return cfg, nil, usageError{err}
	}
	return cfg, t, nil
}
