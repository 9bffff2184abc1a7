"""Contract double of `python -m trtmc_perf_serving.cli serve ...` (a test double: see ../../../README.md;
TRTMC: apps/perf_serving/trtmc_perf_serving/cli.py @1797a247, profiles.py @ca938e40,
apps/benchmark/trtmc_benchmark/task_adapters.py @0dd9052f).

Its options are cli.py's `serve` options (one it does not define, or a missing required one, exits 2 as
argparse does; a ValueError/RuntimeError exits 2 with "trtmc-perf-serve: ..."). The served base request is
the profile's testcase resolved as TRTMC's benchmark resolves it, the backend is the `trtmc` one: a
persistent `--worker --serve SESSION.json` process (backends/trtmc.py @7b798a32), here the double's worker
(build/trtmc_benchmark_worker), and the app is app.py here. Nothing it serves carries a label (its keys are
TRTMC's); it says what it is on stderr, and /v1/serving/info names the double's worker.
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
import trtmc_double as d  # noqa: E402

PROG = "trtmc-perf-serve"
FLAGS = ("--full-observations", "--keep-artifacts", "--memory-probe", "--isolate-requests", "--trust-remote-code",
         "--deterministic")
VALUED = ("--profile", "--testcase", "--operation", "--task", "--manifest-root", "--set", "--backend", "--bundle",
          "--runtime-root", "--worker", "--mode", "--precision", "--reference-model", "--reference-options",
          "--model-name", "--host", "--port", "--records", "--scratch", "--max-queue", "--request-timeout")
REQUIRED = ("--profile", "--backend", "--records", "--scratch")
# apps/perf_serving/requirements.txt @ca938e40: the serving packages TRTMC's images do not install.
SERVING_MODULES = {"fastapi": "fastapi", "numpy": "numpy", "PIL": "pillow", "multipart": "python-multipart",
                   "soundfile": "soundfile", "uvicorn": "uvicorn"}
# task_adapters.py @0dd9052f _DEFAULTS: the operation of each task the double's families have.
TASK_OPERATION = {"transcription": "transcribe", "transcription_streaming": "transcribe",
                  "image_generation": "generate_image"}


def usage_error(message):
    sys.stderr.write(f"{PROG} serve: error: {message}\n")
    sys.exit(2)


def base_request(manifest, case, root):
    """The worker request of a testcase, as task_adapters.py @0dd9052f _transcription_request /
    _image_generation_request build it (catalog resolve_case fills the manifest's image size)."""
    task = manifest.get("task", "")
    if task in ("transcription", "transcription_streaming"):
        audio = case.get("test_input_audio") or case.get("audio_path")
        if not audio:
            raise ValueError("testcase requires an audio input")
        request = {"audio_path": str((root / audio).resolve()), "max_new_tokens": int(case.get("max_new_tokens", 224)),
                   "language": str(case.get("language", "")), "streaming": task.endswith("_streaming")}
        if request["streaming"]:
            request["chunk_ms"] = int(case.get("chunk_ms", 160))
        return request
    if task == "image_generation":
        prompt = case.get("prompt") or case.get("test_prompt")
        if not prompt:
            raise ValueError("testcase requires a non-empty prompt")
        inputs = case.get("inputs", {})
        return {"prompt": prompt, "negative_prompt": str(case.get("negative_prompt", "")), "seed": int(case.get("seed", -1)),
                "num_steps": int(case.get("num_inference_steps", inputs.get("num_sampling_steps", -1))),
                "guidance_scale": float(case.get("guidance_scale", inputs.get("guidance_scale", -1.0))),
                "cfg_scale": float(case.get("cfg_scale", inputs.get("cfg_scale", -1.0))),
                "height": int(case.get("height", manifest.get("image_height", 0))),
                "width": int(case.get("width", manifest.get("image_width", 0))), "batch_size": 1}
    raise ValueError(f"task {task!r} has no benchmark implementation")


def overrides(items):
    """cli.py _overrides: FIELD=VALUE, the value JSON when it parses."""
    result = {}
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep or not name:
            raise ValueError(f"--set expects FIELD=VALUE, got {item!r}")
        try:
            result[name] = json.loads(raw)
        except json.JSONDecodeError:
            result[name] = raw
    return result


def resolve(opts):
    """profiles.py resolve_profile: the testcase (default: the profile's first), its operation and base request."""
    path, manifest = d.find_profile(opts.get("--manifest-root", "families"), opts["--profile"])
    cases = manifest.get("testcases", [])
    name = opts.get("--testcase")
    case = next((c for c in cases if c.get("name") == name), None) if name else (cases[0] if cases else None)
    if case is None:
        raise ValueError(f"profile {manifest.get('name')!r} has no testcase {name!r}")
    operation = opts.get("--operation") or TASK_OPERATION.get(manifest.get("task", ""))
    if operation is None:
        raise ValueError(f"task {manifest.get('task')!r} has no benchmark implementation")
    request = base_request(manifest, case, path.parent.parent)
    for key, value in overrides(opts.get("--set", [])).items():
        field = key.removeprefix("request.")
        request[field] = value
    return manifest, case["name"], operation, request


def main(argv):
    d.banner()
    if not argv or argv[0] != "serve":
        usage_error("the contract double implements only `serve`")
    sets = [argv[i + 1] for i in range(1, len(argv) - 1) if argv[i] == "--set"]
    opts = d.strict_options(f"{PROG} serve", argv[1:], VALUED, FLAGS)
    opts["--set"] = sets  # action="append"
    missing = [o for o in REQUIRED if o not in opts]
    if missing:
        usage_error(f"the following arguments are required: {', '.join(missing)}")
    if opts["--backend"] not in ("trtmc", "reference", "script"):
        usage_error(f"argument --backend: invalid choice: {opts['--backend']!r} (choose from 'trtmc', 'reference', 'script')")
    import importlib.util
    absent = [package for module, package in SERVING_MODULES.items() if importlib.util.find_spec(module) is None]
    if absent:  # TRTMC's app fails at its first import of them
        sys.exit(f"contract double: the serving app needs {', '.join(absent)} (apps/perf_serving/requirements.txt, "
                 "installed on top of the TRTMC runtime environment); this interpreter does not have them")
    try:
        manifest, testcase, operation, request = resolve(opts)
        if opts["--backend"] != "trtmc":
            raise ValueError("the contract double serves only the trtmc backend")
        if not all(opts.get(o) for o in ("--bundle", "--runtime-root", "--worker")):
            raise ValueError("the trtmc backend requires --bundle, --runtime-root, and --worker")
        from . import app
        return app.serve(opts, manifest, testcase, operation, request)
    except (ValueError, RuntimeError) as error:  # cli.py main: serve's errors, the worker's failed load included
        sys.stderr.write(f"{PROG}: {error}\n")
        return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
