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
		"images":    runImages,
		"inventory": runInventory,
		"verify":    runVerify,
		"report":    runReport,
		"merge":     runMerge,
		"keygen":    runKeygen,
		"sign":      runSign,
		"compare":   runCompare,
	}
}

func main() {
	if len(os.Args) < 2 || os.Args[1] == "-h" || os.Args[1] == "--help" || os.Args[1] == "help" {
		fmt.Print(usage)
		return
	}
	cmd, ok := commands()[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "qual: unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := cmd(ctx, os.Args[2:], os.Stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintf(os.Stderr, "qual %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
