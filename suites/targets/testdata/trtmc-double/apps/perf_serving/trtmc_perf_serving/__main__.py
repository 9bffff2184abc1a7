"""Contract double of `python -m trtmc_perf_serving serve --profile P --bundle B --records R --scratch S
--host H --port N ...` (apps/perf_serving/trtmc_perf_serving/cli.py, app.py).

Runs trtmc-server on the bundle and writes TRTMC's record shape to --records, one line per served
request: {"request_id", "route", "operation", "backend", "time", "timing": {"queue_ms",
"model_call_ms", "handler_ms"}, "observation"}. Like TRTMC's app, refused requests leave no line.
Differences from TRTMC kept on purpose: image responses stay b64_json (TRTMC answers file:// URLs).
"""
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
import trtmc_double as d  # noqa: E402

OPERATIONS = {"/v1/audio/transcriptions": "transcribe", "/v1/images/generations": "generate_image"}
FLAGS = ("--full-observations", "--keep-artifacts", "--memory-probe", "--isolate-requests")


def convert(ours):
    """Our record -> TRTMC's shape. Like TRTMC's app, only executed operations leave a line (no
    health probes, no refused requests)."""
    if ours.get("status") != 200 or ours.get("route") not in OPERATIONS:
        return None
    out = ours.get("output") or {}
    observation = {"text": out["text"]} if "text" in out else {"images": out.get("images", [])}
    observation["contract_double"] = d.NOTE
    return {"request_id": ours["request_id"], "route": ours["route"], "operation": OPERATIONS.get(ours["route"], "unknown"),
            "backend": "contract-double", "time": ours.get("end_unix_ns", 0) / 1e9, "timing": ours["trtmc_timing"],
            "observation": observation}


def main(argv):
    d.banner()
    if not argv or argv[0] != "serve":
        sys.exit("contract double: only `serve` is implemented")
    opts, _ = d.options(argv[1:], FLAGS)
    records, scratch = Path(opts["--records"]), Path(opts["--scratch"])
    scratch.mkdir(parents=True, exist_ok=True)
    records.parent.mkdir(parents=True, exist_ok=True)
    ours = scratch / "double-server-records.jsonl"
    ours.unlink(missing_ok=True)  # this server's records only
    addr = f"{opts.get('--host', '127.0.0.1')}:{opts.get('--port', '8000')}"
    child = subprocess.Popen([d.server(), "--bundle", opts["--bundle"], "--addr", addr, "--records", str(ours),
                              "--lanes", "1", "--queue", opts.get("--max-queue", "64")])
    signal.signal(signal.SIGTERM, lambda *_: child.send_signal(signal.SIGTERM))
    offset = 0
    while True:
        running = child.poll() is None
        if ours.exists():
            with open(ours, encoding="utf-8") as src:
                src.seek(offset)
                chunk = src.read()
            complete = chunk[: chunk.rfind("\n") + 1]
            offset += len(complete.encode("utf-8"))
            with open(records, "a", encoding="utf-8") as dst:
                for line in complete.splitlines():
                    record = convert(json.loads(line)) if line.strip() else None
                    if record:
                        dst.write(json.dumps(record) + "\n")
        if not running:
            sys.exit(child.returncode)
        time.sleep(0.05)


if __name__ == "__main__":
    main(sys.argv[1:])
