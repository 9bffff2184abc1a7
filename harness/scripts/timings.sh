#!/usr/bin/env bash
# Prints where the wall time of a `make qualify` went: the steps the Makefile timed (TIMINGS, a
# "step<TAB>seconds" file), each image the images step built (its log's "built … in Ns" lines),
# and each stage suite's own time from its JUnit file. Usage: timings.sh TIMINGS RUN_DIR
set -euo pipefail
timings=$1 run_dir=$2
[ -f "$timings" ] || { echo "[time] no timings recorded ($timings)"; exit 0; }
total=0
line=""
while IFS=$'\t' read -r step secs; do
  [ -n "$step" ] || continue
  total=$((total + secs))
  line+="${line:+ | }$step ${secs}s"
  if [ "$step" = images ] && [ -f "${timings%.tsv}.images.log" ]; then
    built=$(sed -nE -e 's/^\[images\] (.*): built .* in ([0-9]+)s$/\1 \2s/p' -e 's/^\[images\] wheelhouse: .* in ([0-9]+)s$/wheelhouse \1s/p' "${timings%.tsv}.images.log" | paste -sd, - | sed 's/,/, /g')
    [ -z "$built" ] || line+=" (${built})"
  fi
done < "$timings"
echo "[time] $line | total ${total}s"
stages=""
for xml in "$run_dir"/junit/*.xml; do
  [ -f "$xml" ] || continue
  secs=$(grep -o '<testsuite [^>]*' "$xml" | head -1 | sed -nE 's/.* time="([0-9]+)(\.[0-9]*)?".*/\1/p')
  stages+="${stages:+ | }$(basename "$xml" .xml) ${secs:-?}s"
done
[ -z "$stages" ] || echo "[time] of the suites step: $stages"
# Each row's own cost (harness/cost): its wall time, the Task time its claims needed and the
# harness's overhead, from the stage evidence the suites wrote.
for stage_json in "$run_dir"/*/stage.json; do
  [ -f "$stage_json" ] || continue
  python3 - "$stage_json" <<'PY'
import json, sys
stage = json.load(open(sys.argv[1]))
for r in stage.get("results") or []:
    c = r.get("cost")
    if not c:
        continue
    steps = ", ".join(f"{s['step']} {s['overhead_s']:.1f}s" for s in c["steps"] if s["overhead_s"] >= 0.05)
    print(f"[time] row {stage['stage']}/{r['profile']}: wall {c['wall_s']:.1f}s, Task {c['task_s']:.1f}s, "
          f"harness overhead {c['overhead_s']:.1f}s" + (f" ({steps})" if steps else ""))
PY
done
