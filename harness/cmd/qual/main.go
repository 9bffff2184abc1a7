// Command qual is the suite's front door: list a target's inventory, plan a run, report, sign,
// verify, compare and merge published evidence. It builds without cgo and links no container
// client: the commands that need one (images, capacity) are run by qual-run, beside it in the
// checkout's build/bin.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// Exit statuses, the same for every command.
const (
	exitOK     = 0 // the command did its job; a check passed
	exitFailed = 1 // a verdict or a check failed (a regression, a mismatch, a blocker)
	exitUsage  = 2 // a wrong invocation or configuration: nothing was checked
	// exitUndecided: the check ran but its data could not decide (qual compare: a common row's
	// light stayed white). Not a pass, and not a failure a retry with the same data would fix.
	exitUndecided = 3
)

type command func(ctx context.Context, args []string, stdout io.Writer) error

// spec is one subcommand: what it does, how it is called, and an example, printed by
// `qual COMMAND --help`; its positional arguments are counted against minArgs/maxArgs.
type spec struct {
	run              command
	args             string // the synopsis after "qual NAME"
	summary          string // one line for `qual --help`
	about            string // a paragraph for `qual NAME --help`
	example          string
	minArgs, maxArgs int // maxArgs -1: any number
}

func commands() map[string]spec {
	return map[string]spec{
		"config": {runConfig, "[--list]", "check the configuration a run would use",
			"Reads every QUAL_* variable and the target file the way the suites do and prints the target, shard and per-stage load a run would use. A wrong value is one line naming the variable (exit 2). --list lists every variable.",
			"QUAL_TARGET=suites/targets/trtmc.yaml QUAL_TRTMC_ROOT=~/TensorRT-Model-Connect qual config", 0, 0},
		"doctor": {runDoctor, "[--gpu] [--allow-planned]", "check this machine has what a run needs, with the fix for each gap",
			"Checks the Docker engine, disk space, the pinned files and venvs, the signing key, and for a TRTMC target its binary, Python and Hugging Face cache (and with --gpu the NVIDIA runtime or CDI devices). Each line is OK or MISSING with the command that fixes it; exit 1 when something a run needs is missing.",
			"qual doctor --gpu", 0, 0},
		"images": {viaTool("qual-run", "images"), "[--root DIR] [-v]", "build or find the base, trtmc-server and AIPerf images",
			"Builds the images a run uses, or finds them already built (they are cached by the hash of their inputs), and prints their references as JSON.",
			"qual images -v", 0, 0},
		"inventory": {runInventory, "[--target T.yaml] [--stage S] [--trtmc-root DIR] [--json] [--check] [--controls]", "list a target's checkpoints per stage",
			"Reads the target's manifests and prints each stage's rows (counted, reduced, variant, excluded, gap) with the reason for each decision. The target and checkout default to QUAL_TARGET and QUAL_TRTMC_ROOT. --check fails (exit 1) unless stages 3 and 6 each have a counted checkpoint.",
			"qual inventory --stage asr --target suites/targets/trtmc.yaml --trtmc-root ~/TensorRT-Model-Connect", 0, 0},
		"plan": {runPlan, "--trtmc-root DIR [--target T.yaml] [--stage S] [--run-dir DIR] [--json]", "print every command a TRTMC run would execute, running none",
			"For each row of a TRTMC target: the build, inspect, gate, serve, native and AIPerf commands with their working directory and environment, rendered by the same functions the run uses (the run records the same commands). Nothing is run; review a GPU run by reading this first.",
			"qual plan --trtmc-root ~/TensorRT-Model-Connect --stage t2i", 0, 0},
		"report": {runReport, "[--fail-on LEVEL] [-o DIR] reports/RUN", "assemble a run's evidence.json and reports; exit 1 unless the verdict passes",
			"Merges the stages' evidence into evidence.json, qualification.md and report.html and prints the summary, ending with the verdict. Exit 1 when the verdict fails --fail-on: not-qualified (default, QUAL_FAIL_ON) fails every verdict but QUALIFIED; failed fails only a FAILED stage or a run without stages. The run keeps the id its evidence.json recorded. A signed run is never rewritten in place (exit 2, saying how to re-sign): -o DIR renders evidence.json, qualification.md and report.html into DIR instead.",
			"qual report --fail-on failed reports/latest", 1, 1},
		"keygen": {runKeygen, "-o PATH", "make a signing key pair",
			"Writes PATH (PKCS#8 PEM, mode 0600) and PATH.pub (PKIX PEM) and prints the key's fingerprint. It never overwrites a key (an existing PATH or PATH.pub: exit 2).",
			"qual keygen -o ~/.config/qual/signer", 0, 0},
		"sign": {runSign, "[--key KEY | --key-file KEY] [--resign] reports/RUN", "sign every file of a run (DSSE in-toto Statement)",
			"Hashes every file of the run into an in-toto Statement and signs it. The key is --key-file, else QUAL_SIGNING_KEY (the PEM itself), else a local pair under $QUAL_CACHE made on first use. A run already signed whose signature verifies is left as it is (exit 0, saying so), unless a key named by --key-file or QUAL_SIGNING_KEY is not the one it was signed with (exit 2: --resign signs it with that key); one whose files changed after signing is refused (exit 2, naming the first changed files) unless --resign, which names them and signs the run as it is now.",
			"qual sign --key-file ~/.config/qual/signer reports/latest", 1, 1},
		"verify": {runVerify, "[--key PUB | --key-file PUB] [--require-key] [--without-bundles] [--rerun [--native BIN]] [-v] reports/RUN", "re-check a published run offline",
			"Checks the signature (pinned with --key), every file hash, and re-derives the evidence from its artifacts: statuses, requests, joins, timing, outputs, gate figures, JUnit and bundle hashes. Exit 1 on any mismatch; 2 on a wrong invocation (no run there, a key that cannot be read or is no public key).",
			"qual verify --key signer.pub reports/latest", 1, 1},
		"merge": {runMerge, "[--key PUB] [--without-bundles] -o reports/RUN reports/SHARD...", "verify shard runs with a pinned key and combine them into one run",
			"Verifies every shard as qual verify --key PUB does (signature, every file, every recomputation; without --key a shard is pinned only to this machine's local key, when that key signed it) and refuses a shard that does not verify or that no key pins; then puts each shard's checkpoint folders into the output run (hard-linked where the filesystem allows, copied otherwise: the bundles are not stored twice), copies its JUnit files and merges the stage evidence. Shards must come from the same target, settings and code version, and the output must be new or empty.",
			"qual merge --key team.pub --without-bundles -o reports/merged reports/shard-1 reports/shard-2", 1, -1},
		"compare": {runCompare, "[-o DIR] [--noise-floor A1,A2] [--allow-missing] reports/BASE reports/NEW | --paired [-o DIR] reports/ab-RUN (or A1,…,Ak B1,…,Bk)", "compare two runs, or interleaved pairs of runs, per checkpoint",
			"Speedup lights, accuracy non-inferiority and changed outputs for every checkpoint in both runs. The verdict is REGRESSION (exit 1) on a red light, a Task shift wholly past the red bound (new/base − 1 above 17.9%, per request of the same input) or an accuracy failure; INCOMPLETE (exit 1) when a row is in one run only, unless --allow-missing; INCONCLUSIVE (k of n decided) (exit 3) when a common row's light is white; no regression found (exit 0) only when every common row's interval lies wholly above the red bound (a white light, or a yellow one reaching below the red bound, decides nothing) and none wholly below 1; where some do, \"no regression beyond the tolerance; measurably slower within it: <rows>\" (exit 0, listed in comparison.json's slower_within_tolerance); exit 2 when the runs have no checkpoint in common. --paired reads the runs make compare-ab interleaves (A1 B1, B2 A2, …) and judges each row on the interval of ln(new/base) over the pairs, which cancels the load drift separate runs cannot (harness/compare/README.md).",
			"qual compare -o build/cmp reports/last-release reports/latest", 1, 2},
		"capacity": {viaTool("qual-run", "capacity"), "[--stage S] [--profile P] [--levels 1,2,4] [--runs N] [--requests N] [--ceiling]", "per counted row, the highest concurrency within the stage's latency objective",
			"For each counted full row of each stage the target declares a capacity sweep for (capacity: in the target file), qualifies the row at each concurrency level on a fresh server (build, AIPerf, join, identity, meaning, timing) and prints per level throughput, goodput (ours and AIPerf's --goodput), client, Task and queue percentiles, failures, offered vs achieved rate and whether the client kept up; then the capacity (the highest level within the objective, its interval over runs), the knee and the lanes/Task-time bound. Writes capacity.json, capacity.md and capacity.png per row under QUAL_RUN_DIR (default reports/capacity-<time>). --ceiling measures the harness's own ceiling against server/peerbench/peer.py instead. Exit 1 when a level's checks fail or a row has no level within its objective (harness/capacity/README.md).",
			"qual capacity --stage asr --profile sphinx-en-us --levels 1,2 --runs 2 --requests 4", 0, 0},
	}
}

// undecidedError is a check whose data could not decide: exit status 3.
type undecidedError struct{ error }

func (e undecidedError) Unwrap() error { return e.error }

// usageError is a wrong invocation or configuration (an unknown stage, a missing argument, a
// path that does not exist): exit status 2, so scripts can tell it from a failed check (1).
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// helpRequested carries a command's --help text back to runQual, which prints it to stdout.
type helpRequested struct{ text string }

func (h helpRequested) Error() string { return "help requested" }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runQual(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// runQual is qual with its arguments and streams; it returns the exit status (exitOK,
// exitFailed, exitUsage).
func runQual(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return exitUsage
	}
	switch args[0] {
	case "-h", "--help", "help":
		if len(args) > 1 { // qual help COMMAND
			return runQual(ctx, []string{args[1], "--help"}, stdout, stderr)
		}
		fmt.Fprint(stdout, usage())
		return exitOK
	case "--version", "version":
		fmt.Fprint(stdout, version())
		return exitOK
	}
	cmd, ok := commands()[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "qual: unknown command %q\n\n%s", args[0], usage())
		return exitUsage
	}
	err := cmd.run(ctx, args[1:], stdout)
	var ue usageError
	var undecided undecidedError
	var help helpRequested
	var tool toolRun
	var schema *evidence.SchemaError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &schema): // a run this qual cannot read: nothing was checked
		fmt.Fprintf(stderr, "qual %s: %v\n", args[0], err)
		return exitUsage
	case errors.As(err, &help):
		fmt.Fprint(stdout, help.text)
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "qual %s: %v\n", args[0], err)
		return exitUsage
	case errors.As(err, &tool):
		return runTool(ctx, toolDirs(tool.tool), tool, stdout, stderr)
	case errors.As(err, &undecided):
		fmt.Fprintf(stderr, "qual %s: %v\n", args[0], err)
		return exitUndecided
	}
	fmt.Fprintf(stderr, "qual %s: %v\n", args[0], err)
	return exitFailed
}

func usage() string {
	var b strings.Builder
	b.WriteString("qual: qualification suite for model serving (TRTMC and the embedded reference target).\n\nUsage:\n")
	cmds := commands()
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "  qual %-10s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintf(&b, "  qual %-10s %s\n", "--version", "the module version and commit")
	b.WriteString(`
Stages: asr (3), t2i (6), audioqa (9): --stage takes the name or the number.
Exit status: 0 success, 1 a verdict or check failed, 2 a usage or configuration error,
3 the data could not decide (qual compare: INCONCLUSIVE).
Run 'qual COMMAND --help' for a command's arguments, flags and an example.
`)
	return b.String()
}

// parseArgs parses a command's flags wherever they stand among its positional arguments (flag
// stops at the first positional one), counts the positional ones against the command's spec,
// and turns -h/--help into the command's help text. Every error is a usageError, printed once
// by runQual (the flag package's own printing is silenced).
func parseArgs(fs *flag.FlagSet, args []string) error {
	var errBuf strings.Builder
	fs.SetOutput(&errBuf)
	fs.Usage = func() {}
	var positional []string
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			return helpRequested{helpText(fs)}
		} else if err != nil {
			return usageError{fmt.Errorf("%w (qual %s --help)", err, fs.Name())}
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	// Leave the positional arguments in fs.Args() for the command.
	if err := fs.Parse(append([]string{"--"}, positional...)); err != nil {
		return usageError{err}
	}
	s, ok := commands()[fs.Name()]
	if !ok {
		return nil
	}
	switch n := len(positional); {
	case n < s.minArgs:
		return usageError{fmt.Errorf("missing argument: qual %s %s", fs.Name(), s.args)}
	case s.maxArgs >= 0 && n > s.maxArgs:
		return usageError{fmt.Errorf("unexpected argument %q: qual %s %s", positional[s.maxArgs], fs.Name(), s.args)}
	}
	return nil
}

func helpText(fs *flag.FlagSet) string {
	var b strings.Builder
	s := commands()[fs.Name()]
	fmt.Fprintf(&b, "Usage: qual %s %s\n\n%s\n", fs.Name(), s.args, wrap(s.about, 96))
	var flags strings.Builder
	fs.SetOutput(&flags)
	fs.PrintDefaults()
	if flags.Len() > 0 {
		fmt.Fprintf(&b, "\nFlags:\n%s", flags.String())
	}
	fmt.Fprintf(&b, "\nExample:\n  %s\n", s.example)
	return b.String()
}

// wrap breaks text into lines of at most width columns, at spaces (a dozen lines: no module the
// project has wraps text; golang.org/x/text does not).
func wrap(text string, width int) string {
	var b strings.Builder
	line := 0
	for i, word := range strings.Fields(text) {
		switch {
		case i == 0:
		case line+1+len(word) > width:
			b.WriteByte('\n')
			line = 0
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(word)
		line += len(word)
	}
	return b.String()
}
