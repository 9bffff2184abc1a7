"""Contract double of `python -m pytest families/<f>/tests/test_e2e.py --e2e-testcase CASE ...`.

Implements the signature TRTMC's CI uses (tools/ci/e2e.py) and what the family test does
(families/whisper/tests/test_e2e.py: builds its own bundle at tmp_path / manifest["bundle"], runs it
natively, compares with a reference under the testcase's thresholds) with trtmc-native's build and
gate; writes JUnit with the test id test_official_checkpoint_e2e[CASE]. Where a family's test differs
(canary builds at tmp_path.parent; parakeet_tdt needs TRTMC_NATIVE_BUILD_DIR), the double's
test_e2e.py declares it (declared()). It is only ever on
PYTHONPATH through the double's own tree.
"""
import ast
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from xml.sax.saxutils import quoteattr

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import trtmc_double as d  # noqa: E402

FLAGS = ("-q", "-x", "-v", "-rs", "--rebuild-engines")


def main(argv):
    d.banner()
    opts, positional = d.options(argv, FLAGS)
    tests = [p for p in positional if p.endswith(".py")]
    if not tests or not Path(tests[0]).is_file():
        sys.exit(f"contract double pytest: no test file in {positional}")
    family_root = Path(tests[0]).resolve().parents[2]  # families/<f>/tests/test_e2e.py -> families
    cases = [c for c in opts.get("--e2e-testcase", "").split(",") if c]
    if not cases:
        sys.exit("direct E2E requires one of the three explicit E2E selectors")
    basetemp = Path(opts.get("--basetemp", "/tmp/pytest-double"))
    rules = declared(tests[0])
    results = [run_case(family_root, case, basetemp, rules) for case in cases]
    write_junit(opts.get("--junitxml"), results)
    sys.exit(0 if all(r["passed"] for r in results) else 1)


def declared(test_file):
    """The family test's own rules, as module-level constants of the double's test_e2e.py:
    BUNDLE_AT ("tmp_path": whisper @9777fef7; "tmp_path.parent", reused when present: canary
    @9777fef7) and REQUIRES_ENV (("TRTMC_NATIVE_BUILD_DIR",): parakeet_tdt @17d91ae1, a configured
    CTest build tree it then `cmake --build`s)."""
    rules = {"BUNDLE_AT": "tmp_path", "REQUIRES_ENV": ()}
    for node in ast.parse(Path(test_file).read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and getattr(node.targets[0], "id", "") in rules:
            rules[node.targets[0].id] = ast.literal_eval(node.value)
    return rules


def run_case(family_root, case, basetemp, rules):
    manifest_path, manifest = d.find_case(family_root, case)
    for name in rules["REQUIRES_ENV"]:
        where = os.environ.get(name)
        if not where:
            return failed(case, f"AssertionError: selected E2E requires {name}")
        if name == "TRTMC_NATIVE_BUILD_DIR" and not (Path(where) / "CTestTestfile.cmake").is_file():
            return failed(case, f"{name} is not a configured CTest build tree: {where}")
    tmp_path = basetemp / f"test_official_checkpoint_e2e_{len(list(basetemp.glob('*'))) if basetemp.exists() else 0}"
    tmp_path.mkdir(parents=True, exist_ok=True)
    bundle = (tmp_path.parent if rules["BUNDLE_AT"] == "tmp_path.parent" else tmp_path) / manifest["bundle"]
    start = time.monotonic()
    if not (rules["BUNDLE_AT"] == "tmp_path.parent" and bundle.is_file()):  # canary reuses one already there
        d.build(manifest_path, bundle)
    done = subprocess.run([d.native(), "gate", str(bundle), "--manifest", str(manifest_path), "--testcase", case,
                           "--root", str(d.repo_root()), "--json"], capture_output=True, text=True)
    try:
        result = json.loads(done.stdout)
    except json.JSONDecodeError:
        result = {"passed": False, "failures": [done.stderr.strip() or "gate printed no JSON"]}
    passed = done.returncode == 0 and bool(result.get("passed"))
    return {"case": case, "passed": passed, "seconds": time.monotonic() - start,
            "message": "; ".join(result.get("failures") or []) or ("" if passed else "gate failed"), "bundle": str(bundle)}


def failed(case, message):
    return {"case": case, "passed": False, "seconds": 0.0, "message": message, "bundle": ""}


def write_junit(path, results):
    if not path:
        return
    failures = sum(not r["passed"] for r in results)
    lines = ['<?xml version="1.0" encoding="utf-8"?>',
             f'<testsuites><testsuite name="pytest" errors="0" failures="{failures}" skipped="0" tests="{len(results)}">',
             f'<properties><property name="contract_double" value={quoteattr(d.NOTE)}/></properties>']
    for r in results:
        name = quoteattr(f"test_official_checkpoint_e2e[{r['case']}]")
        lines.append(f'<testcase classname="families.tests.test_e2e" name={name} time="{r["seconds"]:.3f}">')
        if not r["passed"]:
            lines.append(f'<failure message={quoteattr(r["message"])}>{r["bundle"]}</failure>')
        lines.append("</testcase>")
    lines.append("</testsuite></testsuites>")
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
