package images

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/trtmc-qual/trtmc-qual/containers/spec"
)

// Set names the images one qualification run uses.
type Set struct {
	Base   string `json:"base"`
	Server string `json:"trtmc_server"`
	AIPerf string `json:"aiperf"`
}

// Ensure builds (or finds cached) every image the reference target needs: host binaries of
// trtmc-server and trtmc-native, the base, the server image, the AIPerf wheelhouse and image.
func (b *Builder) Ensure(ctx context.Context, repoRoot string) (Set, error) {
	start := time.Now()
	var set Set
	if b.Root == "" {
		abs, err := filepath.Abs(repoRoot)
		if err != nil {
			return set, err
		}
		b.Root = abs
	}
	if err := CheckEngine(ctx); err != nil {
		return set, err
	}
	binDir := spec.HostBinDir(repoRoot)
	bins := map[string]string{}
	for _, pkg := range []string{"server/cmd/trtmc-server", "native/cmd/trtmc-native"} {
		out := filepath.Join(binDir, filepath.Base(pkg))
		b.step("go build ./%s", pkg)
		cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", out, "./"+pkg)
		cmd.Dir = repoRoot
		cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
		if msg, err := cmd.CombinedOutput(); err != nil {
			return set, fmt.Errorf("go build %s: %w\n%s", pkg, err, msg)
		}
		bins[filepath.Base(pkg)] = out
	}
	var err error
	if set.Base, err = b.Base(ctx); err != nil {
		return set, err
	}
	whisperWheels, err := b.WhisperWheelhouse(ctx, repoRoot)
	if err != nil {
		return set, err
	}
	serverBase, err := b.ServerBase(ctx, set.Base, whisperWheels, repoRoot)
	if err != nil {
		return set, err
	}
	if set.Server, err = b.Server(ctx, serverBase, bins["trtmc-server"], bins["trtmc-native"]); err != nil {
		return set, err
	}
	wheels, err := b.Wheelhouse(ctx)
	if err != nil {
		return set, err
	}
	if set.AIPerf, err = b.AIPerf(ctx, set.Base, wheels, filepath.Join(repoRoot, "containers", "aiperf")); err != nil {
		return set, err
	}
	b.step("all images ready in %.1fs: base=%s server=%s aiperf=%s", time.Since(start).Seconds(), set.Base, set.Server, set.AIPerf)
	return set, nil
}

// CheckEngine fails early, with the fix, when no Docker engine answers.
func CheckEngine(ctx context.Context) error {
	out, err := exec.CommandContext(ctx, "docker", "version", "-f", "{{.Server.Version}}").CombinedOutput()
	if err != nil {
		return fmt.Errorf("no Docker engine answers (%v: %s): run `make deps` (it starts dockerd via containers/engine/ensure-docker.sh) or start your engine", err, out)
	}
	return nil
}
