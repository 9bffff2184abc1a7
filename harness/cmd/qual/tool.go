package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/config"
	"github.com/trtmc-qual/trtmc-qual/harness/plan"
)

// toolRun is a command's answer that another binary runs it: runQual runs `tool args...` with
// qual's streams, and its exit status is qual's.
type toolRun struct {
	tool string
	args []string
}

func (r toolRun) Error() string { return "run by " + r.tool }

// viaTool is command name run by tool (qual-run: the commands that start containers, so that
// qual links no container client). Its help is qual's; its flags are parsed by the tool.
func viaTool(tool, name string) command {
	return func(_ context.Context, args []string, _ io.Writer) error {
		if slices.ContainsFunc(args, func(a string) bool { return a == "-h" || a == "-help" || a == "--help" }) {
			return helpRequested{helpText(flag.NewFlagSet(name, flag.ContinueOnError)) + fmt.Sprintf("\nRun by %s (its flags: %s %s --help).\n", tool, tool, name)}
		}
		return toolRun{tool, append([]string{name}, args...)}
	}
}

// toolDirs are where qual looks for a tool: beside this executable (make builds both into
// build/bin), then the configured checkout's build/bin (qual run by `go run`).
func toolDirs(tool string) []string {
	var dirs []string
	if self, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(self))
	}
	if cfg, err := config.Load(); err == nil {
		dirs = append(dirs, filepath.Dir(plan.HostBin(cfg.Root, tool)))
	}
	return dirs
}

// toolStopGrace is how long an interrupted tool may take to stop its containers (each a
// Docker stop of up to 10 s) before it is killed.
const toolStopGrace = 2 * time.Minute

// runTool runs r with the first of its tool found in dirs and returns the exit status: the
// tool's, or exitUsage when no dir has it. A second interrupt or SIGTERM kills the tool at once.
func runTool(ctx context.Context, dirs []string, r toolRun, stdout, stderr io.Writer) int {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	return runToolUntil(ctx, dirs, r, stdout, stderr, sigs)
}

// runToolUntil is runTool with the signals it watches: ctx's end interrupts the tool and waits
// up to toolStopGrace for it; a second signal on sigs (the first is the one that ended ctx)
// kills it, for a user who will not wait.
func runToolUntil(ctx context.Context, dirs []string, r toolRun, stdout, stderr io.Writer, sigs <-chan os.Signal) int {
	path := ""
	for _, d := range dirs {
		if fi, err := os.Stat(filepath.Join(d, r.tool)); err == nil && !fi.IsDir() {
			path = filepath.Join(d, r.tool)
			break
		}
	}
	if path == "" {
		fmt.Fprintf(stderr, "qual %s: %s runs this command (it starts containers) and is in none of %v: run `make bin` in the checkout\n", r.args[0], r.tool, dirs)
		return exitUsage
	}
	cmd := exec.CommandContext(ctx, path, r.args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	// The tool stops its containers and keeps its records when interrupted; the default
	// cancel (SIGKILL) would leave both behind. It is told as the user told qual, and given
	// time to finish before it is killed.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = toolStopGrace
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "qual %s: %s: %v\n", r.args[0], path, err)
		return exitFailed
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		for seen := 0; ; {
			select {
			case <-sigs:
				if seen++; seen == 2 {
					cmd.Process.Kill()
					return
				}
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	var exit *exec.ExitError
	switch {
	case err == nil, cmd.ProcessState != nil && cmd.ProcessState.Success(): // it finished as the interrupt came
		return exitOK
	case errors.As(err, &exit) && exit.ExitCode() > 0:
		return exit.ExitCode()
	}
	fmt.Fprintf(stderr, "qual %s: %s: %v\n", r.args[0], path, err)
	return exitFailed
}
