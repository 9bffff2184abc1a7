#!/usr/bin/env bash
# Builds the peer for the side-by-side benchmark (BenchmarkPeerOverhead): FastAPI + uvicorn,
# the stack a Python serving team would pick, in a venv of its own, every version pinned.
# Progress goes to stderr; the last line on stdout is the venv's python.
set -euo pipefail
CACHE="${QUAL_CACHE:-$HOME/.cache/trtmc-qual}"
VENV="$CACHE/peerbench-venv"
PINS=(fastapi==0.163.2 starlette==1.10.0 "uvicorn[standard]==0.54.0" uvloop==0.23.0 httptools==0.9.0 python-multipart==0.0.34)
if ! "$VENV/bin/python" -c 'import fastapi, uvicorn, uvloop, httptools, multipart' 2>/dev/null; then
  echo "peerbench: building $VENV (${PINS[*]})" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "${PINS[@]}" >&2
fi
echo "$VENV/bin/python"
