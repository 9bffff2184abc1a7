package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// builtQualRun is qual-run built once per test binary beside it, where qual looks first.
var builtQualRun = sync.OnceValues(func() ([]byte, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("go", "build", "-o", filepath.Join(filepath.Dir(self), "qual-run"), "./harness/cmd/qual-run")
	cmd.Dir = repoRoot()
	return cmd.CombinedOutput()
})

// needQualRun builds qual-run for a test that runs images or capacity through qual.
func needQualRun(t *testing.T) {
	t.Helper()
	if out, err := builtQualRun(); err != nil {
		t.Fatalf("go build ./harness/cmd/qual-run: %v\n%s", err, out)
	}
}

// A command run by another binary keeps qual's contract: its arguments reach the tool as
// given, its output reaches qual's streams, its exit status is qual's (2 stays 2); a tool that
// is nowhere is a usage error naming where qual looked and how to build it.
func TestToolCommandsKeepQualsStreamsAndExitStatus(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\necho \"out $*\"\necho \"err $*\" >&2\nexit 2\n"
	if err := os.WriteFile(filepath.Join(dir, "fake-tool"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := runTool(context.Background(), []string{t.TempDir(), dir}, toolRun{"fake-tool", []string{"images", "--root", "x y"}}, &stdout, &stderr)
	if code != exitUsage || stdout.String() != "out images --root x y\n" || stderr.String() != "err images --root x y\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	code = runTool(context.Background(), []string{dir}, toolRun{"qual-run", []string{"capacity"}}, &stdout, &stderr)
	if code != exitUsage || stdout.Len() != 0 || !strings.HasPrefix(stderr.String(), "qual capacity: qual-run runs this command") ||
		!strings.Contains(stderr.String(), dir) || !strings.Contains(stderr.String(), "make bin") {
		t.Errorf("missing tool: exit %d, stderr %q", code, stderr.String())
	}
}

// An interrupted qual lets every command it runs through a tool stop as that tool stops when
// interrupted (its containers stopped, its records kept): the tool gets the interrupt, qual waits
// for it, and the tool's own exit status is qual's. Killing it would leave its containers behind.
// A second signal kills a tool that does not stop, for a user who will not wait.
func TestEveryToolCommandIsInterruptedNotKilled(t *testing.T) {
	var found []string
	for name, s := range commands() {
		var r toolRun
		// An unknown flag: a command qual runs itself stops in its flag parsing, with no side
		// effect; a tool's command hands every argument to its tool unread.
		if !errors.As(s.run(context.Background(), []string{"--no-such-flag"}, io.Discard), &r) {
			continue
		}
		found = append(found, name)
		for _, stubborn := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s stubborn=%v", name, stubborn), func(t *testing.T) {
				dir := t.TempDir()
				started, stopped := filepath.Join(dir, "started"), filepath.Join(dir, "stopped")
				handler := fmt.Sprintf("echo \"$1\" > %s; exit 130", stopped)
				if stubborn {
					handler = fmt.Sprintf("echo \"$1\" > %s", stopped) // heard, and goes on
				}
				script := fmt.Sprintf("#!/bin/sh\ntrap '%s' INT\ntouch %s\nwhile :; do sleep 0.05; done\n", handler, started)
				if err := os.WriteFile(filepath.Join(dir, r.tool), []byte(script), 0o755); err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				sigs := make(chan os.Signal, 2)
				go func() {
					for ctx.Err() == nil {
						if _, err := os.Stat(started); err == nil {
							sigs <- os.Interrupt // the user's Ctrl-C: it ends qual's context
							cancel()
							for stubborn {
								if _, err := os.Stat(stopped); err == nil {
									sigs <- os.Interrupt // and again
									return
								}
								time.Sleep(10 * time.Millisecond)
							}
							return
						}
						time.Sleep(10 * time.Millisecond)
					}
				}()
				var stderr bytes.Buffer
				code := runToolUntil(ctx, []string{dir}, r, io.Discard, &stderr, sigs)
				got, err := os.ReadFile(stopped)
				if err != nil || strings.TrimSpace(string(got)) != name {
					t.Errorf("the tool's interrupt handler wrote %q (%v): it was not interrupted", got, err)
				}
				if want := 130; !stubborn && code != want {
					t.Errorf("exit %d, want the tool's %d; stderr %q", code, want, stderr.String())
				}
				if stubborn && (code != exitFailed || !strings.Contains(stderr.String(), "killed")) {
					t.Errorf("a second signal: exit %d, stderr %q; want it killed", code, stderr.String())
				}
			})
		}
	}
	slices.Sort(found)
	if !slices.Equal(found, []string{"capacity", "images"}) {
		t.Errorf("tool commands found: %v, want capacity and images", found)
	}
}
