package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/config"
	"github.com/trtmc-qual/trtmc-qual/harness/plan"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
)

// runPlan prints every command a run of a TRTMC target would execute per row (build, inspect,
// gate, serve, native, AIPerf) with its working directory and environment, without running any.
// The run renders each with the same functions (target.Step, serving.AIPerfProfile,
// workload.PlannedNative); a native run's request values are those of the row's first input.
func runPlan(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	tpath := fs.String("target", "", "a target description (default $QUAL_TARGET; a TRTMC checkout names the file of its layout)")
	trtmcRoot := fs.String("trtmc-root", "", "the TRTMC checkout (default $QUAL_TRTMC_ROOT; required)")
	stageFlag := fs.String("stage", "", stageChoices())
	runDir := fs.String("run-dir", "reports/RUN", "the run directory the commands would use")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	cfg, err := config.Load()
	if err != nil {
		return usageError{err}
	}
	if *tpath == "" {
		*tpath = cfg.TargetPath
	}
	if *trtmcRoot == "" {
		*trtmcRoot = cfg.TRTMCRoot
	}
	if *trtmcRoot == "" {
		return usageError{fmt.Errorf("--trtmc-root (or QUAL_TRTMC_ROOT) is required")}
	}
	if err := mustExist(*trtmcRoot); err != nil {
		return err
	}
	stages := stage.Names()
	if *stageFlag != "" {
		name, err := stageName(*stageFlag)
		if err != nil {
			return usageError{err}
		}
		stages = []stage.Name{name}
	}
	root, err := filepath.Abs(*trtmcRoot)
	if err != nil {
		return err
	}
	t, err := target.Read(*tpath, root)
	if err != nil {
		return usageError{err}
	}
	t.Overrides = cfg.TargetValues
	if !t.Traits().InCheckout() {
		return usageError{fmt.Errorf("target %s is of kind %q: qual plan renders TRTMC-kind targets (--target suites/targets/trtmc.yaml, or QUAL_TARGET)", t.Name, t.Kind)}
	}
	if err := t.CheckLayout(); err != nil {
		return usageError{err}
	}
	rep, err := plan.Render(ctx, t, stages, *runDir)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printPlan(stdout, rep)
	return nil
}

func printPlan(w io.Writer, rep plan.DryRun) {
	fmt.Fprintf(w, "target %s on TRTMC checkout %s (commit %s)\n", rep.Target, rep.Root, rep.Checkout.Commit)
	if rep.Checkout.Warning != "" {
		fmt.Fprintf(w, "WARNING: %s\n", rep.Checkout.Warning)
	}
	fmt.Fprintf(w, "nothing was run; paths are under the run directory %s\n", rep.RunDir)
	for _, r := range rep.Rows {
		fmt.Fprintf(w, "\n== %s: %s (%s, %s)\n", r.Stage, r.Profile, r.Checkpoint, r.Kind)
		for _, c := range r.Commands {
			fmt.Fprintf(w, "-- %s [%s]", c.Step, c.Where)
			if c.Dir != "" {
				fmt.Fprintf(w, " in %s", c.Dir)
			}
			fmt.Fprintln(w)
			if len(c.Env) > 0 {
				fmt.Fprintf(w, "   env %s\n", envArgs(c.Env))
			}
			if len(c.Args) > 0 {
				fmt.Fprintf(w, "   %s\n", shellJoin(c.Args))
			}
			if c.Note != "" {
				fmt.Fprintf(w, "   (%s)\n", c.Note)
			}
		}
		if r.Error != "" {
			fmt.Fprintf(w, "-- cannot render the rest: %s\n", r.Error)
		}
	}
}

// envArgs is env as env(1)'s arguments, applied in order as target.Environ applies it: KEY=VALUE
// sets a variable, a bare name (the target's unset_env) unsets it, the later entry winning; the
// unset names go first with -u, since env takes its options before the first assignment.
func envArgs(env []string) string {
	final := map[string]string{} // name → its last entry
	var names []string
	for _, e := range env {
		name, _, _ := strings.Cut(e, "=")
		if _, seen := final[name]; !seen {
			names = append(names, name)
		}
		final[name] = e
	}
	var unset, set []string
	for _, n := range names {
		if e := final[n]; strings.Contains(e, "=") {
			set = append(set, e)
		} else {
			unset = append(unset, "-u", n)
		}
	}
	return shellJoin(append(unset, set...))
}

// shellJoin quotes each argument for a POSIX shell when it needs it (no library in the module
// does this, and it is a few lines), so a line can be pasted to run one command by hand.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
