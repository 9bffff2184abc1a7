package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"github.com/trtmc-qual/trtmc-qual/harness/config"
	"github.com/trtmc-qual/trtmc-qual/harness/plan"
)

// toolExit is the exit status of a command another binary ran; it printed its own messages.
type toolExit struct{ code int }

func (e toolExit) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// viaTool is command name run by tool (qual-run: the commands that start containers or link
// the reference families, so that qual links neither): `tool name args...` with qual's output,
// its exit status qual's. Its help is qual's; its flags are parsed by the tool.
func viaTool(tool, name string) command {
	return func(ctx context.Context, args []string, stdout io.Writer) error {
		if slices.ContainsFunc(args, func(a string) bool { return a == "-h" || a == "-help" || a == "--help" }) {
			return helpRequested{helpText(flag.NewFlagSet(name, flag.ContinueOnError)) + fmt.Sprintf("\nRun by %s (its flags: %s %s --help).\n", tool, tool, name)}
		}
		return runTool(ctx, toolDirs(tool), tool, append([]string{name}, args...), stdout, os.Stderr)
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

// runTool runs the first tool found in dirs with args; a tool that exits non-zero is a toolExit,
// a tool found nowhere a usageError.
func runTool(ctx context.Context, dirs []string, tool string, args []string, stdout, stderr io.Writer) error {
	path := ""
	for _, d := range dirs {
		if fi, err := os.Stat(filepath.Join(d, tool)); err == nil && !fi.IsDir() {
			path = filepath.Join(d, tool)
			break
		}
	}
	if path == "" {
		return usageError{fmt.Errorf("%s runs this command (it starts containers or links the reference families) and is in none of %v: run `make bin` in the checkout", tool, dirs)}
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() > 0 {
		return toolExit{exit.ExitCode()}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
