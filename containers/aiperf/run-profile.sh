#!/bin/sh
# Runs one `aiperf profile` inside the AIPerf image and leaves everything in /out:
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
aiperf profile "$@" >/out/aiperf.stdout 2>/out/aiperf.stderr
code=$?
echo "$code" >/out/exit_code
# A single run writes to /artifacts; multi-run mode (--num-profile-runs) to each
# /artifacts/profile_runs/run_NNNN. Wait for every run's marker and raw export.
dirs=$(ls -d /artifacts/profile_runs/run_* 2>/dev/null || echo /artifacts)
for d in $dirs; do
  i=0
  while [ ! -f "$d/.aiperf_results_ready.json" ] && [ "$i" -lt 120 ]; do sleep 0.5; i=$((i+1)); done
  last=-1
  for _ in $(seq 1 60); do
    size=$(stat -c %s "$d/profile_export_raw.jsonl" 2>/dev/null || echo 0)
    [ "$size" = "$last" ] && break
    last=$size
    sleep 0.5
  done
done
tar -C /artifacts -cf /out/artifacts.tar .
cat /out/aiperf.stdout
cat /out/aiperf.stderr >&2
exit "$code"
