#!/bin/sh
# Runs `aiperf profile` (QUAL_AIPERF_RUNS times, default once) inside the AIPerf image and leaves everything in /out:
# the artifact directory as a tar, AIPerf's stdout/stderr, and its exit code. The container
# exits when this does; the suite copies /out back.
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
# The runs (QUAL_AIPERF_RUNS, default 1) go through run_profiles.py: AIPerf imported once, each run
# a fork entering AIPerf's own CLI, the next run started as soon as the previous one's ready
# marker is written (see that file). With more than one run, each writes to
# /artifacts/profile_runs/run_NNNN (AIPerf's multi-run layout; its own --num-profile-runs refuses
# audio_transcription in 0.13.0). The first failing run stops the loop.
python /opt/qual/run_profiles.py "${QUAL_AIPERF_RUNS:-1}" /artifacts "$@" >/out/aiperf.stdout 2>/out/aiperf.stderr
code=$?
echo "$code" >/out/exit_code
tar -C /artifacts -cf /out/artifacts.tar .
cat /out/aiperf.stdout
cat /out/aiperf.stderr >&2
exit "$code"
