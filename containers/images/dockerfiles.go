package images

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/trtmc-qual/trtmc-qual/native/bundle"
)

// serverDockerfile: the reference target's server image, on the server base (the base plus the
// whisper worker venv). The base already carries the PocketSphinx runtime libraries when it
// was built here; a user-given base gets them from apt.
const serverDockerfile = `FROM %s
RUN (dpkg -s libpocketsphinx3 >/dev/null 2>&1 || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libpocketsphinx3 >/dev/null && rm -rf /var/lib/apt/lists/*)) \
 && useradd --system --uid 10001 --create-home qual \
 && mkdir -p /bundles /data /records && chown qual /records /data
COPY trtmc-server trtmc-native /usr/local/bin/
USER qual
EXPOSE 8000
ENTRYPOINT ["/usr/local/bin/trtmc-server", "--python", "/opt/whisper/bin/python"]
`

// Server builds the trtmc-server image from binaries built on the host.
func (b *Builder) Server(ctx context.Context, base, serverBin, nativeBin string) (string, error) {
	return b.build(ctx, "trtmc-qual/trtmc-server", buildContext{
		dockerfile: fmt.Sprintf(serverDockerfile, base),
		files:      map[string]string{"trtmc-server": serverBin, "trtmc-native": nativeBin},
	})
}

// aiperfDockerfile installs AIPerf with --no-index from the wheelhouse, seeds the offline
// tokenizer cache, and checks the installed version during the build.
const aiperfDockerfile = `FROM %s
COPY wheels /tmp/wheels
RUN python3 -m venv /opt/aiperf \
 && /opt/aiperf/bin/pip install -q --no-index --find-links /tmp/wheels aiperf==%s \
 && rm -rf /tmp/wheels
ENV PATH=/opt/aiperf/bin:$PATH HF_HOME=/opt/hf HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
COPY make_tokenizer.py run-profile.sh run_profiles.py /opt/qual/
RUN python /opt/qual/make_tokenizer.py /opt/hf \
 && test "$(python -c 'import importlib.metadata as m; print(m.version("aiperf"))')" = "%s" \
 && useradd --system --uid 10002 --create-home aiperf \
 && mkdir -p /artifacts /out /data && chown aiperf /artifacts /out /data
USER aiperf
WORKDIR /home/aiperf
ENTRYPOINT ["/bin/sh", "/opt/qual/run-profile.sh"]
`

// AIPerf builds the AIPerf image from the wheelhouse; scriptDir holds make_tokenizer.py,
// run-profile.sh and run_profiles.py.
func (b *Builder) AIPerf(ctx context.Context, base, wheelhouse, scriptDir string) (string, error) {
	return b.build(ctx, "trtmc-qual/aiperf", buildContext{
		dockerfile: fmt.Sprintf(aiperfDockerfile, base, AIPerfVersion, AIPerfVersion),
		files: map[string]string{"make_tokenizer.py": filepath.Join(scriptDir, "make_tokenizer.py"),
			"run-profile.sh": filepath.Join(scriptDir, "run-profile.sh"), "run_profiles.py": filepath.Join(scriptDir, "run_profiles.py")},
		dirs: map[string]string{"wheels": wheelhouse},
	})
}

// wheelPlatform pins the wheels to the image's interpreter (Debian bookworm's CPython 3.11 on
// x86_64), whatever Python the host has.
func wheelPlatform() []string {
	return []string{"--only-binary=:all:", "--python-version", "3.11", "--implementation", "cp",
		"--abi", "cp311", "--abi", "abi3", "--abi", "none", "--platform", "manylinux_2_36_x86_64",
		"--platform", "manylinux_2_28_x86_64", "--platform", "manylinux_2_17_x86_64", "--platform", "manylinux2014_x86_64", "--platform", "any"}
}

// Wheelhouse fills (once) a directory with aiperf==AIPerfVersion and its dependencies as wheels.
func (b *Builder) Wheelhouse(ctx context.Context) (string, error) {
	return b.wheelhouse(ctx, "aiperf-"+AIPerfVersion+"-cp311", "aiperf=="+AIPerfVersion, "aiperf=="+AIPerfVersion)
}

// wheelhouse fills (once) the cache directory name with the wheels pip resolves for args, for
// the image's interpreter. A marker names what the directory holds; with it present the
// download is skipped.
func (b *Builder) wheelhouse(ctx context.Context, name, what string, args ...string) (string, error) {
	return b.wheelhouseFor(ctx, name, what, wheelPlatform(), args)
}

// wheelhouseFor is wheelhouse for the interpreter platform names (pip download's arguments).
func (b *Builder) wheelhouseFor(ctx context.Context, name, what string, platform, args []string) (string, error) {
	dir := filepath.Join(b.cacheDir(), "wheels", name)
	marker := filepath.Join(dir, ".complete")
	want := markerKey(args) + " " + strings.Join(platform, " ")
	if got, err := os.ReadFile(marker); err == nil && string(got) == want {
		b.step("wheelhouse: %s (cached)", dir)
		return dir, nil
	}
	pip, err := exec.LookPath("pip3")
	if err != nil {
		if pip, err = exec.LookPath("pip"); err != nil {
			return "", fmt.Errorf("no pip on this machine to fill the %s wheelhouse: install python3-pip", what)
		}
	}
	start := time.Now()
	b.step("wheelhouse: pip download %s into %s ...", what, dir)
	dl := append([]string{"download", "-q", "--disable-pip-version-check", "-d", dir}, platform...)
	if err := b.run(ctx, nil, pip, append(dl, args...)...); err != nil {
		return "", fmt.Errorf("%s wheelhouse: pip could not download %s and its wheels into %s "+
			"(is the package index reachable? set PIP_INDEX_URL to a mirror, or fill the directory from a machine that can): %w", what, what, dir, err)
	}
	if err := os.WriteFile(marker, []byte(want), 0o644); err != nil {
		return "", err
	}
	entries, _ := os.ReadDir(dir)
	b.step("wheelhouse: %d files in %.0fs", len(entries)-1, time.Since(start).Seconds())
	return dir, nil
}

// markerKey is what a wheelhouse marker records for pip's arguments: a file argument (the
// constraints) by its name and sha256, not its path, so that every checkout of the same pins
// (worktrees, CI clones) and every caller (`qual images` passes the root as ".", the suites an
// absolute path) finds the wheelhouse complete instead of downloading it again and changing the
// marker, and with it the hash of every image built from the wheelhouse.
func markerKey(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if strings.HasPrefix(a, "-") {
			continue
		}
		if info, err := os.Stat(a); err == nil && info.Mode().IsRegular() {
			if sum, err := bundle.FileSHA256(a); err == nil {
				out[i] = filepath.Base(a) + "@sha256:" + sum
			}
		}
	}
	return strings.Join(out, " ")
}
