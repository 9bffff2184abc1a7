"""Contract double of `python -m trtmc_benchmark run --manifest-root R --model P --bundle-cache C
--prepare-only --runtime-root X --worker W -o O` (apps/benchmark/trtmc_benchmark/cli.py).

Builds the profile's bundle at <bundle-cache>/<profile>/<manifest bundle> (reused when present) with
trtmc-native and prints what cli.py @0dd9052f prints: the whole stdout is
json.dumps({"bundles": [...]}, indent=2, sort_keys=True), each entry {model, status, bundle, command,
build_time_s, model_dir, stdout_log, stderr_log, build_identity, included_in_performance_metrics}.
Like cli.py's argparse parser it refuses (exit 2) an option it does not define and an option
without its value.
"""
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
import trtmc_double as d  # noqa: E402


# apps/benchmark/trtmc_benchmark/cli.py @0dd9052f, `run`: options with a value, and flags.
VALUED = ("--model", "--model-dir", "--bundle", "--bundle-root", "--bundle-cache", "--manifest-root", "--case", "--set",
          "--runtime-root", "--worker", "-o")
FLAGS = ("--prepare-only", "--no-build", "--rebuild", "--dry-run")


def main(argv):
    d.banner()
    if not argv or argv[0] != "run":
        sys.exit("contract double: only `run ... --prepare-only` is implemented")
    opts = d.strict_options("trtmc-bench run", argv[1:], VALUED, FLAGS)
    if not opts.get("--prepare-only"):
        sys.exit("contract double: only --prepare-only is implemented")
    profile = opts["--model"]
    path, manifest = d.find_profile(opts["--manifest-root"], profile)
    bundle = Path(opts["--bundle-cache"]) / manifest["name"] / manifest["bundle"]
    command = [d.native(), "build", "--manifest", str(path), "-o", str(bundle)]
    status, start = "reused", time.monotonic()
    if not bundle.is_file() or opts.get("--rebuild"):
        d.build(path, bundle)
        status = "built"
    out = Path(opts["-o"])
    out.mkdir(parents=True, exist_ok=True)
    logs = {name: out / f"{manifest['name']}.build.{name}.log" for name in ("stdout", "stderr")}
    for log in logs.values():
        log.touch()
    entry = {"model": manifest["name"], "status": status, "bundle": str(bundle), "command": command,
             "build_time_s": round(time.monotonic() - start, 3), "model_dir": str(path.parent),
             "stdout_log": str(logs["stdout"]), "stderr_log": str(logs["stderr"]),
             "build_identity": {"manifest": str(path), "contract_double": True},
             "included_in_performance_metrics": status == "built", "contract_double": d.NOTE}
    print(json.dumps({"bundles": [entry]}, indent=2, sort_keys=True))

if __name__ == "__main__":
    main(sys.argv[1:])
