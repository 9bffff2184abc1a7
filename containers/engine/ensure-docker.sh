#!/usr/bin/env bash
# Makes sure a Docker engine answers, using the one the machine already has when there is one:
#   1. an engine that answers (DOCKER_HOST, the docker context, or the default socket): use it —
#      hosted Ubuntu CI runners (Docker CE), Docker Desktop, a DinD sidecar;
#   2. DOCKER_HOST set but not answering yet: wait for it, never start a local engine instead;
#   3. an installed engine managed by systemd or SysV init: start it through that manager;
#   4. otherwise (a fresh Debian machine, containers without an init): install Debian's
#      docker.io when no dockerd is installed, start dockerd, and wait for it.
# Idempotent; safe to call often.
set -euo pipefail
say() { printf '[docker] %s\n' "$*"; }
LOG=${DOCKERD_LOG:-/var/log/trtmc-qual-dockerd.log}
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo

answers() { command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; }
describe() { printf '%s, storage %s' "$(docker version -f '{{.Server.Version}}' 2>/dev/null)" "$(docker info -f '{{.Driver}}' 2>/dev/null)"; }

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

# An engine installed as a service (Docker CE, moby, docker.io on a machine with an init).
if [ -d /run/systemd/system ] && systemctl cat docker.service >/dev/null 2>&1; then
  say "starting docker.service through systemd"
  $SUDO systemctl start docker.service
  wait_for 60 "systemd docker.service" && exit 0
  say "docker.service did not answer within 60s:"; $SUDO systemctl status docker.service --no-pager 2>&1 | tail -20 || true
  exit 1
fi

if ! command -v dockerd >/dev/null 2>&1; then
  if command -v docker >/dev/null 2>&1; then
    say "a docker CLI is installed but no engine answers and no dockerd is here: start your engine or set DOCKER_HOST"
    exit 1
  fi
  say "installing Debian docker.io"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends docker.io >/dev/null
fi
if ! pgrep -x dockerd >/dev/null 2>&1; then
  say "starting dockerd (log: $LOG)"
  # setsid: the daemon must outlive this script and the make process that called it.
  $SUDO setsid nohup dockerd >"$LOG" 2>&1 < /dev/null &
fi
wait_for 60 "dockerd" && exit 0
say "dockerd did not answer within 60s; last log lines:"
tail -20 "$LOG" 2>/dev/null || true
exit 1
