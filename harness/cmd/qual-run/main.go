// Command qual-run runs the qual commands that start containers: images and capacity (about 50
// testcontainers and Docker client packages). `qual images` and `qual capacity` exec it, so qual
// itself links no container client (nor cgo) and installs with `go install` alone; make builds
// both into the checkout's build/bin.
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
)

// Exit statuses, qual's.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

// command is one subcommand: how it runs and its synopsis after "qual NAME" (its description
// and example are qual's: `qual NAME --help`).
type command struct {
	run  func(ctx context.Context, args []string, stdout io.Writer) error
	args string
}

func commands() map[string]command {
	return map[string]command{
		"images":   {runImages, "[--root DIR] [-v]"},
		"capacity": {runCapacity, "[--stage S] [--profile P] [--levels 1,2,4] [--runs N] [--requests N] [--ceiling]"},
	}
}

// usageError is a wrong invocation or configuration: exit status 2.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// helpRequested carries a command's --help text back to run, which prints it to stdout.
type helpRequested struct{ text string }

func (h helpRequested) Error() string { return "help requested" }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is qual-run with its arguments and streams; it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmds := commands()
	var cmd command
	ok := len(args) > 0
	if ok {
		cmd, ok = cmds[args[0]]
	}
	if !ok {
		names := make([]string, 0, len(cmds))
		for n := range cmds {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(stderr, "usage: qual-run %s [flags] (qual runs it for `qual %s`)\n", strings.Join(names, "|"), strings.Join(names, "`, `qual "))
		return exitUsage
	}
	err := cmd.run(ctx, args[1:], stdout)
	var ue usageError
	var help helpRequested
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &help):
		fmt.Fprint(stdout, help.text)
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "qual %s: %v\n", args[0], err)
		return exitUsage
	}
	fmt.Fprintf(stderr, "qual %s: %v\n", args[0], err)
	return exitFailed
}

// parseArgs parses a command's flags (its commands take no positional argument) and turns
// -h/--help into its help text; every error is a usageError.
func parseArgs(fs *flag.FlagSet, args []string) error {
	var errBuf strings.Builder
	fs.SetOutput(&errBuf)
	fs.Usage = func() {}
	c := commands()[fs.Name()]
	switch err := fs.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
		var flags strings.Builder
		fs.SetOutput(&flags)
		fs.PrintDefaults()
		return helpRequested{fmt.Sprintf("Usage: qual-run %s %s (qual %s --help describes it)\n\nFlags:\n%s", fs.Name(), c.args, fs.Name(), flags.String())}
	case err != nil:
		return usageError{fmt.Errorf("%w (qual %s --help)", err, fs.Name())}
	case fs.NArg() > 0:
		return usageError{fmt.Errorf("unexpected argument %q: qual %s %s", fs.Arg(0), fs.Name(), c.args)}
	}
	return nil
}
