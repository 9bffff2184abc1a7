package engine

import (
	"os/exec"
	"strings"
	"testing"
)

// runEnsure runs ensure-docker.sh with extra environment and returns its output and exit code.
func runEnsure(t *testing.T, env ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", "ensure-docker.sh")
	cmd.Env = append(cmd.Environ(), env...)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("ensure-docker.sh: %v", err)
	}
	return string(out), code
}

// An engine that answers is used as it is: nothing is installed or started (hosted CI runners
// come with Docker CE, which Debian's docker.io would conflict with).
func TestEnsureDockerUsesTheAnsweringEngine(t *testing.T) {
	if exec.Command("docker", "info").Run() != nil {
		t.Fatal("no Docker engine answers: run `make deps` (containers/engine/ensure-docker.sh)")
	}
	out, code := runEnsure(t)
	if code != 0 || !strings.Contains(out, "engine answers") || !strings.Contains(out, "using it") {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
	if strings.Contains(out, "installing") || strings.Contains(out, "starting") {
		t.Fatalf("touched the engine although it answered:\n%s", out)
	}
}

// A DOCKER_HOST that does not answer (a sidecar that never came up) fails with its address
// after the wait, instead of installing or starting a local engine behind the user's back.
func TestEnsureDockerWaitsForDockerHostAndFails(t *testing.T) {
	out, code := runEnsure(t, "DOCKER_HOST=tcp://127.0.0.1:1", "QUAL_DOCKER_WAIT=2")
	if code == 0 {
		t.Fatalf("exit 0 with an unreachable DOCKER_HOST:\n%s", out)
	}
	if !strings.Contains(out, "DOCKER_HOST=tcp://127.0.0.1:1") || !strings.Contains(out, "within 2s") {
		t.Fatalf("the failure does not name DOCKER_HOST and the wait:\n%s", out)
	}
	if strings.Contains(out, "installing") || strings.Contains(out, "starting dockerd") {
		t.Fatalf("started or installed a local engine although DOCKER_HOST was set:\n%s", out)
	}
}
