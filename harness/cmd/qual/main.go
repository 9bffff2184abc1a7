// Command qual is the suite's front door: build images, list a target's inventory, verify and
// merge published evidence.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

const usage = `qual: qualification suite for model serving (TRTMC and the embedded reference target).

Usage:
  qual config [--list]                          check the QUAL_* variables and the target a run would use
                                                (exit 2 naming the wrong one); --list lists them all
  qual images [--root DIR]                      build or find the base, trtmc-server and AIPerf images
  qual inventory --target T.yaml --stage S [--trtmc-root DIR] [--json]
                                                list a stage's checkpoints from the target's manifests
  qual report reports/RUN                       merge the stages' evidence into evidence.json + qualification.md
  qual keygen -o PATH                           make a signing pair: PATH (PKCS#8 PEM) and PATH.pub (PKIX PEM)
  qual sign [--key-file KEY] reports/RUN        sign every file of a run (DSSE in-toto Statement); key from
                                                --key-file, QUAL_SIGNING_KEY, or a local pair under $QUAL_CACHE
  qual verify [--key PUB] reports/RUN           check the signature (pinned with --key) and every file hash,
                                                then re-check the evidence offline
  qual merge -o reports/RUN reports/SHARD...    combine shard evidence into one run
  qual compare [-o DIR] reports/BASE reports/NEW
                                                speedup lights, accuracy non-inferiority and changed
                                                outputs per checkpoint; exit 1 on red or fail

Stages: asr (3), t2i (6), audioqa (9). Run 'qual COMMAND --help' for a command's flags.
`

type command func(ctx context.Context, args []string, stdout io.Writer) error

func commands() map[string]command {
	return map[string]command{
		"config":    runConfig,
		"images":    runImages,
		"inventory": runInventory,
		"plan":      runPlan,
		"verify":    runVerify,
		"report":    runReport,
		"merge":     runMerge,
		"keygen":    runKeygen,
		"sign":      runSign,
		"compare":   runCompare,
	}
}

// usageError is a wrong invocation (an unknown stage, a missing argument): exit status 2,
// like an unknown command, so scripts can tell it from a failed check (1).
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runQual(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// runQual is qual with its arguments and streams; it returns the exit status: 0 done, 1 a
// command failed, 2 a wrong invocation (no command, unknown command, bad usage).
func runQual(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, usage)
		return 0
	}
	cmd, ok := commands()[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "qual: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	err := cmd(ctx, args[1:], stdout)
	var ue usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "qual %s: %v\n", args[0], err)
		return 2
	}
	fmt.Fprintf(stderr, "qual %s: %v\n", args[0], err)
	return 1
}
