#!/usr/bin/env bash
# Makes sure a Docker engine answers, using the one the machine already has when there is one.
# The machine situations it decides between, in order (ensure_docker_test.go plays each one with
# stub commands on PATH):
#   (a) an engine answers (DOCKER_HOST, the docker context, or the default socket): use it —
#       hosted Ubuntu CI runners (Docker CE), Docker Desktop, a DinD sidecar;
#   (b) DOCKER_HOST set but not answering yet: wait for it, never start a local engine instead;
#   (c) an engine installed as a systemd service: start it through systemd;
#   (d) a Docker CLI but no engine and no init (this project's own machine kind: a static client
#       at /usr/local/bin/docker): install Debian's docker.io beside it (dockerd, containerd,
#       runc; the client binary that comes with it does not replace the one on PATH), start
#       dockerd, and wait;
#   (e) nothing at all: the same as (d);
#   (f) an engine that never answers: a clear error naming everything that was tried.
# docker.io cannot be installed where Docker CE's packages are (dpkg: Conflicts docker-ce,
# docker-ce-cli): then it says so and names the package to start instead.
# Idempotent; safe to call often.
set -euo pipefail
say() { printf '[docker] %s\n' "$*"; }
LOG=${DOCKERD_LOG:-/var/log/trtmc-qual-dockerd.log}
# Where systemd says it is running; the situation test points it at a directory of its own.
SYSTEMD_DIR=${QUAL_SYSTEMD_DIR:-/run/systemd/system}
START_WAIT=${QUAL_DOCKERD_WAIT:-60}
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
tried=()

answers() { command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; }
describe() { printf '%s, storage %s' "$(docker version -f '{{.Server.Version}}' 2>/dev/null)" "$(docker info -f '{{.Driver}}' 2>/dev/null)"; }
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

# wait_for SECONDS WHAT: polls the engine; prints how it came up or returns 1.
wait_for() {
  local i
  for i in $(seq 1 "$1"); do
    if answers; then
      say "engine ready after ${i}s ($2: $(describe))"
      return 0
    fi
    sleep 1
  done
  return 1
}

# fail: situation (f), with every step that was tried.
fail() {
  say "no Docker engine answers. Tried: ${tried[*]:-nothing}."
  say "$*"
  exit 1
}

if answers; then
  say "engine answers ($(describe)${DOCKER_HOST:+ at $DOCKER_HOST}); using it"
  exit 0
fi

if [ -n "${DOCKER_HOST:-}" ]; then
  command -v docker >/dev/null 2>&1 || { say "DOCKER_HOST=$DOCKER_HOST is set but there is no docker CLI: run make deps"; exit 1; }
  wait=${QUAL_DOCKER_WAIT:-120} # a sidecar engine may still be starting
  say "waiting up to ${wait}s for the engine at DOCKER_HOST=$DOCKER_HOST (not starting a local one)"
  wait_for "$wait" "DOCKER_HOST" && exit 0
  say "no engine answered at DOCKER_HOST=$DOCKER_HOST within ${wait}s: $(docker info 2>&1 | tail -1)"
  exit 1
fi

if [ -d "$SYSTEMD_DIR" ] && command -v systemctl >/dev/null 2>&1 && systemctl cat docker.service >/dev/null 2>&1; then
  say "starting docker.service through systemd"
  tried+=("systemctl start docker.service")
  $SUDO systemctl start docker.service
  wait_for "$START_WAIT" "systemd docker.service" && exit 0
  $SUDO systemctl status docker.service --no-pager 2>&1 | tail -20 || true
  fail "docker.service did not answer within ${START_WAIT}s (its status is above)"
fi

if ! command -v dockerd >/dev/null 2>&1; then
  if installed docker-ce || installed docker-ce-cli; then
    fail "Docker CE's packages are installed without a dockerd, and Debian's docker.io conflicts with them: install docker-ce, or set DOCKER_HOST to an engine"
  fi
  if command -v docker >/dev/null 2>&1; then
    say "a docker CLI is installed ($(command -v docker)) but no engine: installing Debian's docker.io for dockerd"
  else
    say "no Docker here: installing Debian's docker.io"
  fi
  tried+=("apt-get install docker.io")
  $SUDO apt-get update -qq || fail "apt-get update failed (see above)"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends docker.io >/dev/null ||
    fail "apt-get install docker.io failed (see above)"
  command -v dockerd >/dev/null 2>&1 || fail "docker.io is installed but no dockerd is on PATH ($PATH)"
fi
if ! pgrep -x dockerd >/dev/null 2>&1; then
  say "starting dockerd (log: $LOG)"
  tried+=("dockerd (log $LOG)")
  # setsid: the daemon must outlive this script and the make process that called it.
  $SUDO setsid nohup dockerd >"$LOG" 2>&1 < /dev/null &
else
  tried+=("the running dockerd (pid $(pgrep -x dockerd | head -1))")
fi
wait_for "$START_WAIT" "dockerd" && exit 0
say "last lines of $LOG:"
tail -20 "$LOG" 2>/dev/null || true
fail "dockerd did not answer within ${START_WAIT}s"
