#!/bin/sh
# Runs `aiperf profile` (QUAL_AIPERF_RUNS times, default once) inside the AIPerf image and leaves everything in /out:
# the artifact directory as a tar, AIPerf's stdout/stderr, and its exit code. The container
# exits when this does; the suite copies /out back. Exports finish after the CLI exits, so this
# waits for the results-ready marker and for the raw export to stop growing before packing.
set -u
mkdir -p /out /artifacts
version=$(python -c 'import importlib.metadata as m; print(m.version("aiperf"))')
echo "$version" >/out/aiperf_version
if [ -n "${QUAL_AIPERF_VERSION:-}" ] && [ "$version" != "$QUAL_AIPERF_VERSION" ]; then
  echo "refusing to run: aiperf $version installed, $QUAL_AIPERF_VERSION required" | tee /out/aiperf.stderr >&2
  echo 3 >/out/exit_code
  tar -C /artifacts -cf /out/artifacts.tar .
  exit 3
fi
# settle DIR: exports finish after the CLI exits; wait for the results-ready marker and for the
# raw export to stop growing.
settle() {
  i=0
  while [ ! -f "$1/.aiperf_results_ready.json" ] && [ "$i" -lt 120 ]; do sleep 0.5; i=$((i+1)); done
  last=-1
  for _ in $(seq 1 60); do
    size=$(stat -c %s "$1/profile_export_raw.jsonl" 2>/dev/null || echo 0)
    [ "$size" = "$last" ] && break
    last=$size
    sleep 0.5
  done
}
# QUAL_AIPERF_RUNS > 1: the same profile runs that many times, one after the other, each into
# /artifacts/profile_runs/run_NNNN (AIPerf's multi-run layout; its own --num-profile-runs refuses
# audio_transcription in 0.13.0). The first failing run stops the loop.
runs=${QUAL_AIPERF_RUNS:-1}
code=0
if [ "$runs" -gt 1 ]; then
  : >/out/aiperf.stdout
  : >/out/aiperf.stderr
  n=1
  while [ "$n" -le "$runs" ]; do
    dir=/artifacts/profile_runs/$(printf 'run_%04d' "$n")
    mkdir -p "$dir"
    aiperf profile "$@" --artifact-dir "$dir" >>/out/aiperf.stdout 2>>/out/aiperf.stderr || { code=$?; break; }
    settle "$dir"
    n=$((n+1))
  done
else
  aiperf profile "$@" >/out/aiperf.stdout 2>/out/aiperf.stderr
  code=$?
  settle /artifacts
fi
echo "$code" >/out/exit_code
tar -C /artifacts -cf /out/artifacts.tar .
cat /out/aiperf.stdout
cat /out/aiperf.stderr >&2
exit "$code"
