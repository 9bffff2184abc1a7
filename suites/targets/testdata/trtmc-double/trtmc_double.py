"""Shared helpers of the TRTMC contract double (a test double: see README.md beside it).

Every script here implements one of TRTMC's documented command signatures and output formats
over trtmc-qual's own reference models (trtmc-native, trtmc-server). Nothing they produce is a
TRTMC result, and every output says so.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

NOTE = "CONTRACT DOUBLE: trtmc-qual reference models behind TRTMC's documented CLI; NOT a TRTMC result"


def banner():
    print(NOTE, file=sys.stderr, flush=True)


def repo_root():
    # suites/targets/testdata/trtmc-double/trtmc_double.py -> the trtmc-qual checkout
    return Path(__file__).resolve().parents[4]


def tool(env, name):
    path = os.environ.get(env) or shutil.which(name)
    if not path:
        sys.exit(f"contract double: {name} not found (set {env} or put it on PATH)")
    return path


def native():
    return tool("TRTMC_DOUBLE_NATIVE", "trtmc-native")


def server():
    return tool("TRTMC_DOUBLE_SERVER", "trtmc-server")


def manifests(root):
    for path in sorted(Path(root).glob("*/tests/manifests/*.json")):
        with open(path, encoding="utf-8") as handle:
            yield path, json.load(handle)


def find_profile(root, profile):
    for path, m in manifests(root):
        if m.get("name") == profile or path.stem == profile or m.get("hf_id") == profile:
            return path, m
    sys.exit(f"contract double: no manifest for profile {profile!r} under {root}")


def find_case(root, case):
    for path, m in manifests(root):
        if any(tc.get("name") == case for tc in m.get("testcases", [])):
            return path, m
    sys.exit(f"contract double: no manifest with testcase {case!r} under {root}")


def run(args):
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        sys.exit(f"contract double: {' '.join(map(str, args))} exited {done.returncode}")
    return done.stdout


def build(manifest, out):
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    return run([native(), "build", "--manifest", str(manifest), "-o", str(out)])


def options(argv, flags=()):
    """Parse --name value pairs; names in flags take no value. Returns (values, positionals)."""
    values, positional, i = {}, [], 0
    while i < len(argv):
        arg = argv[i]
        if arg.startswith("-") and arg not in flags and "=" not in arg:
            values[arg] = argv[i + 1] if i + 1 < len(argv) else ""
            i += 2
            continue
        if arg.startswith("--") and "=" in arg:
            key, value = arg.split("=", 1)
            values[key] = value
        elif arg in flags:
            values[arg] = True
        else:
            positional.append(arg)
        i += 1
    return values, positional


def strict_options(prog, argv, valued, flags):
    """Parse as an argparse parser with exactly these options would: an option it does not define,
    or one without its value, exits 2 with argparse's message. A repeated valued option keeps its
    last value (argparse's store)."""
    values, i = {}, 0
    while i < len(argv):
        arg, value = argv[i], None
        if "=" in arg and arg.startswith("--"):
            arg, value = arg.split("=", 1)
        if arg in flags and value is None:
            values[arg], i = True, i + 1
            continue
        if arg not in valued:
            sys.stderr.write(f"{prog}: error: unrecognized arguments: {argv[i]}\n")
            sys.exit(2)
        if value is None:
            if i + 1 >= len(argv) or argv[i + 1].startswith("-"):
                sys.stderr.write(f"{prog}: error: argument {arg}: expected one argument\n")
                sys.exit(2)
            value, i = argv[i + 1], i + 1
        values[arg], i = value, i + 1
    return values
