package images

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// CheckoutBuild is a serving image built from a checkout's own Dockerfile (TRTMC's, or its
// contract double's): the file, the build context, an optional stage and build arguments (an
// empty value is not passed, so the Dockerfile's own default applies).
type CheckoutBuild struct {
	Dockerfile string
	Context    string
	Target     string
	Args       map[string]string
}

// Command is the docker build command line, writing the built image's id to iidfile.
func (c CheckoutBuild) Command(iidfile string) []string {
	args := []string{"docker", "build", "-f", c.Dockerfile, "--iidfile", iidfile}
	if c.Target != "" {
		args = append(args, "--target", c.Target)
	}
	keys := make([]string, 0, len(c.Args))
	for k := range c.Args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if c.Args[k] != "" {
			args = append(args, "--build-arg", k+"="+c.Args[k])
		}
	}
	return append(args, c.Context)
}

// Checkout builds the image on this machine, streaming docker's output with Verbose, and tags
// it trtmc-qual/trtmc-serving:<first 12 hex of its image id>: the tag names the content built,
// never a published image. Docker's layer cache makes an unchanged rebuild quick, so it always
// runs: a changed checkout is never served from an older image.
func (b *Builder) Checkout(ctx context.Context, c CheckoutBuild) (string, error) {
	if _, err := os.Stat(c.Dockerfile); err != nil {
		return "", fmt.Errorf("serving image: %w", err)
	}
	dir, err := os.MkdirTemp(b.cacheDir(), "iid-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	iidfile := filepath.Join(dir, "iid")
	args := c.Command(iidfile)
	start := time.Now()
	b.step("serving image: %s ...", strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = append(os.Environ(), "DOCKER_BUILDKIT=0")
	if err := b.output(cmd); err != nil {
		return "", fmt.Errorf("serving image from %s: %w", c.Dockerfile, err)
	}
	id, err := os.ReadFile(iidfile)
	hex := strings.TrimPrefix(strings.TrimSpace(string(id)), "sha256:")
	if err != nil || len(hex) < 12 {
		return "", fmt.Errorf("serving image: docker build wrote no image id (%v)", err)
	}
	tag := "trtmc-qual/trtmc-serving:" + hex[:12]
	if err := b.run(ctx, nil, "docker", "tag", "sha256:"+hex, tag); err != nil {
		return "", err
	}
	b.step("serving image: %s (image id sha256:%s) in %.0fs", tag, hex, time.Since(start).Seconds())
	return tag, nil
}
