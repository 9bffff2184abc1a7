package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
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
