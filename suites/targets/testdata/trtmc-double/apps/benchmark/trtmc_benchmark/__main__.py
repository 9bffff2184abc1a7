"""Contract double of `python -m trtmc_benchmark run --manifest-root R --model P --bundle-cache C
--prepare-only --runtime-root X --worker W -o O` (apps/benchmark/trtmc_benchmark/cli.py).

Builds the profile's bundle at <bundle-cache>/<profile>/<manifest bundle> (reused when present) with
trtmc-native and prints {"bundles": [{model, status, bundle, command, build_time_s}]}.
"""
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
import trtmc_double as d  # noqa: E402


def main(argv):
    d.banner()
    if not argv or argv[0] != "run":
        sys.exit("contract double: only `run ... --prepare-only` is implemented")
    opts, _ = d.options(argv[1:], ("--prepare-only", "--no-build", "--rebuild", "--dry-run"))
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
    print(json.dumps({"bundles": [{"model": manifest["name"], "status": status, "bundle": str(bundle), "command": command,
                                   "build_time_s": round(time.monotonic() - start, 3), "contract_double": d.NOTE}]}))


if __name__ == "__main__":
    main(sys.argv[1:])
