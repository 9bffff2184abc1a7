package images

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/native/bundle"
)

// servingConstraints pins the serving app's packages (see the file's header).
//
//go:embed pins/trtmc-serving-constraints.txt
var servingConstraints []byte

// servingDockerfile installs a checkout's serving requirements on top of its own image, offline
// from the wheelhouse, with the image's own interpreter, and checks the three packages TRTMC's
// perf-serving app cannot start without. TRTMC's Dockerfiles (e9132e79, c635eb58) install none of
// them; apps/perf_serving/requirements.txt (@ca938e40) is meant "on top of the TRTMC runtime
// environment". Packages the image already has (numpy, pillow from TRTMC's runtime) stay as they are.
const servingDockerfile = `FROM %[1]s
USER root
COPY wheels /tmp/serving-wheels
COPY requirements.txt constraints.txt /tmp/serving/
RUN %[2]s -m pip install -q --disable-pip-version-check --no-index --find-links /tmp/serving-wheels \
      -c /tmp/serving/constraints.txt -r /tmp/serving/requirements.txt \
 && %[2]s -c 'import fastapi, uvicorn, multipart' \
 && rm -rf /tmp/serving-wheels /tmp/serving /root/.cache
`

// Interpreter is what a wheelhouse must match: the Python version, the machine and the glibc
// minor version of an image's interpreter.
type Interpreter struct {
	Version string // "3.11"
	Machine string // x86_64 | aarch64
	Glibc   int    // 36 for glibc 2.36
}

// interpreterScript prints what Interpreter holds.
const interpreterScript = `import sys, platform; print("%d.%d" % sys.version_info[:2], platform.machine(), platform.libc_ver()[1])`

// probeInterpreter asks the image's python which wheels it can install.
func probeInterpreter(ctx context.Context, image, python string) (Interpreter, error) {
	return interpreterOf(ctx, "serving image "+image, "docker", "run", "--rm", "--user", "root", "--entrypoint", python, image, "-c", interpreterScript)
}

// LocalInterpreter is python's on this machine (a host venv from a serving wheelhouse).
func LocalInterpreter(ctx context.Context, python string) (Interpreter, error) {
	return interpreterOf(ctx, "this machine", python, "-c", interpreterScript)
}

func interpreterOf(ctx context.Context, where string, args ...string) (Interpreter, error) {
	out, err := exec.CommandContext(ctx, args[0], args[1:]...).Output()
	fields := strings.Fields(string(out))
	if err != nil || len(fields) != 3 {
		return Interpreter{}, fmt.Errorf("%s: cannot ask %s for its version and platform (%v): %q", where, args[0], err, out)
	}
	_, minor, _ := strings.Cut(fields[2], ".")
	glibc, err := strconv.Atoi(minor)
	if err != nil {
		return Interpreter{}, fmt.Errorf("%s: glibc version %q: %w", where, fields[2], err)
	}
	return Interpreter{Version: fields[0], Machine: fields[1], Glibc: glibc}, nil
}

// platformArgs are pip download's arguments for wheels this interpreter installs.
func (in Interpreter) platformArgs() []string {
	abi := "cp" + strings.ReplaceAll(in.Version, ".", "")
	args := []string{"--only-binary=:all:", "--python-version", in.Version, "--implementation", "cp",
		"--abi", abi, "--abi", "abi3", "--abi", "none"}
	for minor := in.Glibc; minor >= 17; minor-- {
		args = append(args, "--platform", fmt.Sprintf("manylinux_2_%d_%s", minor, in.Machine))
	}
	return append(args, "--platform", "manylinux2014_"+in.Machine, "--platform", "any")
}

// ServingWheelhouse fills (once) a wheelhouse with requirements (a requirements file) and their
// dependencies under the pins, for the interpreter in. It returns the directory and the
// constraints file it was resolved with.
func (b *Builder) ServingWheelhouse(ctx context.Context, requirements string, in Interpreter) (string, string, error) {
	sum := hashOf(string(servingConstraints))
	constraints := filepath.Join(b.cacheDir(), "trtmc-serving-constraints-"+sum+".txt")
	if err := os.WriteFile(constraints, servingConstraints, 0o644); err != nil {
		return "", "", err
	}
	reqSum, err := bundle.FileSHA256(requirements)
	if err != nil {
		return "", "", fmt.Errorf("serving requirements: %w", err)
	}
	name := fmt.Sprintf("trtmc-serving-%s-%s-cp%s-%s-glibc2.%d", reqSum[:12], sum, strings.ReplaceAll(in.Version, ".", ""), in.Machine, in.Glibc)
	dir, err := b.wheelhouseFor(ctx, name, "the serving requirements "+requirements, in.platformArgs(), []string{"-c", constraints, "-r", requirements})
	return dir, constraints, err
}

// ServingDeps builds base (a checkout's serving image) with the checkout's serving requirements
// installed by the image's python, and tags it trtmc-qual/trtmc-serving-deps:<hash of its inputs>.
func (b *Builder) ServingDeps(ctx context.Context, base, requirements, python string) (string, error) {
	if _, err := os.Stat(requirements); err != nil {
		return "", fmt.Errorf("serving image: the checkout has no %s, so its serving app's packages (fastapi, uvicorn, "+
			"python-multipart) cannot be installed on its image: name an image that has them (QUAL_TRTMC_IMAGE): %w", filepath.Base(requirements), err)
	}
	in, err := probeInterpreter(ctx, base, python)
	if err != nil {
		return "", err
	}
	wheels, constraints, err := b.ServingWheelhouse(ctx, requirements, in)
	if err != nil {
		return "", err
	}
	tag, err := b.build(ctx, "trtmc-qual/trtmc-serving-deps", buildContext{
		dockerfile: fmt.Sprintf(servingDockerfile, base, python) + restoreUser(ctx, base),
		files:      map[string]string{"requirements.txt": requirements, "constraints.txt": constraints},
		dirs:       map[string]string{"wheels": wheels},
	})
	if err != nil {
		return "", fmt.Errorf("serving requirements on %s: %w", base, err)
	}
	return tag, nil
}

// restoreUser gives the layer back the base image's user (the install runs as root).
func restoreUser(ctx context.Context, image string) string {
	out, err := exec.CommandContext(ctx, "docker", "image", "inspect", "-f", "{{.Config.User}}", image).Output()
	if user := strings.TrimSpace(string(out)); err == nil && user != "" {
		return "USER " + user + "\n"
	}
	return ""
}
