package target

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// waitDelay bounds how long a cancelled command's pipes may stay open after its group is
// killed (a process that left the group could otherwise hold stdout and block Wait forever).
const waitDelay = 10 * time.Second

// HostCommand is a command of this machine in a process group of its own. Cancelling ctx (a node
// timeout, an interrupted run) kills the whole group: TRTMC's tools start the engine build or the
// native run as a grandchild (builder.py subprocess.run, the family tests' subprocess calls),
// which would otherwise keep running on the GPU while the next row starts. Run it with RunHost,
// which also ends what the command left running when it exits by itself.
func HostCommand(ctx context.Context, args []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = waitDelay
	return cmd
}

// RunHost runs a HostCommand and then kills what is left of its process group, however the
// command ended: a build or gate that exits (passing, failing, or killed by its own limit) while a
// grandchild it started still runs would leave that grandchild on the GPU while the next row starts.
func RunHost(cmd *exec.Cmd) error {
	err := cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // ESRCH when nothing is left: nothing to do
	}
	return err
}

// Environ is base with env applied in order: "KEY=VALUE" sets KEY, a bare "KEY" removes it (a
// variable the tool must not inherit, as TRTMC's CI unsets PYTEST_ADDOPTS for its gates).
func Environ(base, env []string) []string {
	out := append([]string(nil), base...)
	for _, e := range env {
		name, _, set := strings.Cut(e, "=")
		kept := out[:0]
		for _, b := range out {
			if !strings.HasPrefix(b, name+"=") {
				kept = append(kept, b)
			}
		}
		out = kept
		if set {
			out = append(out, e)
		}
	}
	return out
}

// hostEnviron is the harness's environment with env applied (see Environ).
func hostEnviron(env []string) []string { return Environ(os.Environ(), env) }
