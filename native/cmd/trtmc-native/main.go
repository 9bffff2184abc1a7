// Command trtmc-native is the reference target's native CLI: build bundles from family
// manifests, inspect them, run one input through a public Task, and run a family's gate.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
)

const usage = `trtmc-native: the reference target's native runtime.

Usage:
  trtmc-native build --manifest M.json -o X.bundle
  trtmc-native inspect X.bundle
  trtmc-native transcribe X.bundle --input clip.wav [--language en] [--json]
  trtmc-native generate-image X.bundle --prompt P --output out.png [--width W --height H
                 --steps S --guidance G --seed N --negative-prompt P] [--json]
  trtmc-native answer X.bundle --input clip.wav --question Q [--json]
  trtmc-native gate X.bundle --testcase T [--manifest M.json] [--root DIR] [--json]
  trtmc-native upstream X.bundle --testcase T --out F.json [--root DIR]
  trtmc-native extract X.bundle DIR

Every command that runs a model also takes --cache DIR (the cache make deps fills; default
~/.cache/trtmc-qual) and --python PY (the families' worker interpreter): it reads no
environment for them. Run 'trtmc-native COMMAND --help' for a command's flags. Exit status: 0 success, 1 failure
(including a failed gate), 2 bad usage.
`

type command struct {
	run   func(ctx context.Context, args []string, stdout io.Writer) error
	brief string
}

func commands() map[string]command {
	return map[string]command{
		"build":          {runBuild, "build a bundle from a manifest"},
		"inspect":        {runInspect, "print a bundle's header, tasks, controls and sha256 as JSON"},
		"transcribe":     {runTranscribe, "transcribe one WAV clip through speech_transcription"},
		"generate-image": {runGenerateImage, "generate one image through text_to_image"},
		"answer":         {runAnswer, "answer one question about one WAV clip through audio_text_to_text"},
		"gate":           {runGate, "run the family's correctness gate on this exact bundle"},
		"upstream":       {runUpstream, "regenerate a testcase's upstream transcripts (the gate's expected outputs)"},
		"extract":        {runExtract, "write a bundle's model files into a directory"},
	}
}

// usageError marks bad invocations (exit 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func main() {
	if len(os.Args) < 2 || os.Args[1] == "-h" || os.Args[1] == "--help" || os.Args[1] == "help" {
		fmt.Print(usage)
		return
	}
	cmd, ok := commands()[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "trtmc-native: unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := cmd.run(ctx, os.Args[2:], os.Stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintf(os.Stderr, "trtmc-native %s: %v\n", os.Args[1], err)
		var ue usageError
		if errors.As(err, &ue) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// parse parses flags that may come before or after positional arguments
// ("inspect X.bundle --json" and "inspect --json X.bundle" both work).
func parse(fs *flag.FlagSet, args []string, positional int) ([]string, error) {
	fs.SetOutput(os.Stderr)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{err.Error()}
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos, args = append(pos, args[0]), args[1:]
	}
	if len(pos) != positional {
		return nil, usageError{fmt.Sprintf("want %d positional argument(s), got %d (%s)", positional, len(pos), strings.Join(pos, " "))}
	}
	return pos, nil
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// repoRoot is where manifests, datasets and expected outputs resolve: --root (the harness passes its
// configured root, harness/config, as {root}), else the nearest parent directory holding golden/.
// It reads no environment: a process in a container is given what it needs as flags.
func repoRoot(flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "golden")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("cannot find the repository root from %s: pass --root", dir)
		}
	}
}
