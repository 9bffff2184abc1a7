#!/usr/bin/env bash
# Makes sure a Docker engine answers: installs Debian's docker.io when no engine is installed,
# starts dockerd when it is not running, and waits for it. Idempotent; safe to call often.
set -euo pipefail
say() { printf '[docker] %s\n' "$*"; }

if docker info >/dev/null 2>&1; then
  say "engine answers ($(docker version -f '{{.Server.Version}}' 2>/dev/null))"
  exit 0
fi
if ! command -v dockerd >/dev/null 2>&1; then
  say "installing Debian docker.io"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends docker.io >/dev/null
fi
if ! pgrep -x dockerd >/dev/null 2>&1; then
  log=${DOCKERD_LOG:-/var/log/trtmc-qual-dockerd.log}
  say "starting dockerd (log: $log)"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  # setsid: the daemon must outlive this script and the make process that called it.
  $SUDO setsid nohup dockerd >"$log" 2>&1 < /dev/null &
fi
for i in $(seq 1 60); do
  if docker info >/dev/null 2>&1; then
    say "engine ready after ${i}s ($(docker version -f '{{.Server.Version}}' 2>/dev/null), storage $(docker info -f '{{.Driver}}'))"
    exit 0
  fi
  sleep 1
done
say "dockerd did not answer within 60s; last log lines:"
tail -20 "${DOCKERD_LOG:-/var/log/trtmc-qual-dockerd.log}" 2>/dev/null || true
exit 1
