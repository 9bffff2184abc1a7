"""Contract double of `python -m trtmc_perf_serving serve --profile P --bundle B --records R --scratch S
--host H --port N [--full-observations] [--keep-artifacts] ...` (apps/perf_serving/trtmc_perf_serving/cli.py, app.py).

Runs trtmc-server on the bundle behind a small proxy that gives its answers TRTMC's shape (app.py
@1797a247, digests.py):
- records: one line per executed operation {"request_id", "route", "operation", "backend", "time",
  "timing": {"queue_ms", "model_call_ms", "handler_ms"}, "observation"}, written before the answer;
  refused requests leave no line (app.py execute/guarded);
- /v1/images/generations answers {"created", "data": [{"url": "file://<artifact>"}], "inference_time_s",
  "trtmc_timing", "trtmc_observation"} (app.py images, _artifact_url, _media_stats); the PNG is kept at
  <scratch>/<request id>/output.png (the worker's output*.png under the request directory, digests.py
  media_frames) when --keep-artifacts is given and removed otherwise, and the observation holds
  {"artifact", "media_digest"} (digests.py add_media_digests/image_digest; arrays over 64 items are
  compacted unless --full-observations, app.py compact);
- /v1/audio/transcriptions answers {"text", "trtmc_timing", "trtmc_observation"} (app.py transcriptions);
- a POST to a route whose operations do not include the served one is refused before anything runs:
  404 {"error": {"message", "type": "invalid_request_error", "code": "route_not_served"}} with X-Request-ID
  and no record (app.py guarded, _error). The served operation is the one the bundle's task maps to on
  TRTMC's routes: transcribe (transcriptions) or generate_image (images);
- the served base request is the profile's testcase (profiles.py @ca938e40 resolve_profile, through
  trtmc-bench's resolve_case): a transcript holds at most the testcase's max_new_tokens tokens (a token
  is a word in the double), so a native run without --max-output-tokens differs from what was served;
- it needs what TRTMC's app needs to start: apps/perf_serving/requirements.txt @ca938e40 lists fastapi,
  numpy, pillow, python-multipart, soundfile and uvicorn ("on top of the TRTMC runtime environment");
  without all of them importable it exits 1 before serving, as the app's imports would;
- its options are cli.py @1797a247's `serve` options: one it does not define exits 2 (argparse).
"""
import base64
import http.client
import importlib.util
import json
import shutil
import signal
import subprocess
import sys
import threading
import re
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
import digest  # noqa: E402
import trtmc_double as d  # noqa: E402

OPERATIONS = {"/v1/audio/transcriptions": "transcribe", "/v1/images/generations": "generate_image"}
FLAGS = ("--full-observations", "--keep-artifacts", "--memory-probe", "--isolate-requests")
# cli.py @1797a247 `serve`: the options with a value.
VALUED = ("--profile", "--testcase", "--operation", "--task", "--manifest-root", "--set", "--backend", "--bundle",
          "--runtime-root", "--worker", "--mode", "--precision", "--reference-model", "--reference-options", "--host",
          "--port", "--records", "--scratch", "--max-queue", "--request-timeout")
# apps/perf_serving/requirements.txt @ca938e40: the serving packages TRTMC's images do not install.
SERVING_MODULES = {"fastapi": "fastapi", "numpy": "numpy", "PIL": "pillow", "multipart": "python-multipart",
                   "soundfile": "soundfile", "uvicorn": "uvicorn"}
MAX_INLINE_ITEMS = 64  # app.py
# app.py: each route and the operations it serves (guarded's operations tuple).
ROUTE_OPERATIONS = {"/v1/completions": ("generate",), "/v1/chat/completions": ("generate",),
                    "/v1/embeddings": ("embed", "encode"), "/v1/ranking": ("rerank",),
                    "/v1/audio/transcriptions": ("transcribe",), "/v1/images/generations": ("generate_image",),
                    "/v1/videos": ("generate_image",)}
TASK_OPERATION = {"transcription": "transcribe", "speech_transcription": "transcribe",
                  "transcription_streaming": "transcribe", "image_generation": "generate_image"}
REQUEST_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")  # app.py _REQUEST_ID


def compact(value):
    """app.py compact: arrays longer than MAX_INLINE_ITEMS become {"$array_length": n}."""
    if isinstance(value, dict):
        return {k: compact(v) for k, v in value.items()}
    if isinstance(value, list):
        return {"$array_length": len(value)} if len(value) > MAX_INLINE_ITEMS else [compact(v) for v in value]
    return value


class Double:
    def __init__(self, opts, upstream, operation, max_tokens):
        self.operation, self.max_tokens = operation, max_tokens
        self.records, self.scratch, self.upstream = Path(opts["--records"]), Path(opts["--scratch"]), upstream
        self.keep, self.full = bool(opts.get("--keep-artifacts")), bool(opts.get("--full-observations"))
        self.lock = threading.Lock()

    def record(self, request_id, route, timing, observation):
        line = {"request_id": request_id, "route": route, "operation": OPERATIONS[route], "backend": "contract-double",
                "time": time.time(), "timing": timing, "observation": observation}
        with self.lock, open(self.records, "a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")

    def reshape(self, route, request_id, body):
        """Our server's 200 answer -> TRTMC's answer, recording the executed operation."""
        timing = body["trtmc_timing"]
        if route == "/v1/images/generations":
            png = base64.b64decode(body["data"][0]["b64_json"])
            workdir = self.scratch / request_id
            workdir.mkdir(parents=True, exist_ok=True)
            artifact = workdir / "output.png"
            artifact.write_bytes(png)
            observation = {"artifact": str(artifact), "media_digest": digest.image_digest(png), "contract_double": d.NOTE}
            if not self.keep:
                shutil.rmtree(workdir, ignore_errors=True)
            reported = observation if self.full else compact(observation)
            self.record(request_id, route, timing, reported)
            return {"created": int(time.time()), "data": [{"url": f"file://{artifact}"}],
                    "inference_time_s": float(timing["model_call_ms"]) / 1000.0,
                    "trtmc_timing": timing, "trtmc_observation": reported}
        words = body["text"].split()
        text = " ".join(words if self.max_tokens is None else words[:self.max_tokens])
        observation = {"text": text, "contract_double": d.NOTE}
        self.record(request_id, route, timing, observation)
        return {"text": text, "trtmc_timing": timing, "trtmc_observation": observation}


def handler(double):
    class Proxy(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def forward(self):
            length = int(self.headers.get("Content-Length") or 0)
            payload = self.rfile.read(length) if length else None
            route = self.path.split("?", 1)[0]
            if self.command == "POST" and double.operation not in ROUTE_OPERATIONS.get(route, (double.operation,)):
                return self.not_served(route)
            conn = http.client.HTTPConnection(*double.upstream, timeout=3600)
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
            try:
                conn.request(self.command, self.path, body=payload, headers=headers)
                resp = conn.getresponse()
                data, status = resp.read(), resp.status
                out_headers = {k: v for k, v in resp.getheaders() if k.lower() in ("x-request-id", "server-timing", "content-type", "retry-after")}
            except OSError as error:  # trtmc-server still starting: not ready, as TRTMC's app says while loading
                data, status, out_headers = json.dumps({"error": {"message": str(error), "code": "backend_unavailable"}}).encode(), 503, {}
            finally:
                conn.close()
            if self.command == "POST" and status == 200 and route in OPERATIONS:
                request_id = next(v for k, v in out_headers.items() if k.lower() == "x-request-id")
                try:
                    data = json.dumps(double.reshape(route, request_id, json.loads(data))).encode()
                except Exception as error:  # noqa: BLE001 - a failed call keeps its request id (app.py guarded)
                    data, status = json.dumps({"error": {"message": f"{type(error).__name__}: {error}", "code": "backend_failed"}}).encode(), 500
                out_headers["Content-Type"] = "application/json"
            self.send_response(status)
            for k, v in out_headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def not_served(self, route):
            incoming = self.headers.get("X-Request-ID", "")
            request_id = incoming if REQUEST_ID.match(incoming) else uuid.uuid4().hex
            data = json.dumps({"error": {"message": f"{route} is not served for operation {double.operation!r}",
                                         "type": "invalid_request_error", "code": "route_not_served"}}).encode()
            self.send_response(404)
            self.send_header("Content-Type", "application/json")
            self.send_header("X-Request-ID", request_id)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = forward

    return Proxy


def main(argv):
    d.banner()
    if not argv or argv[0] != "serve":
        sys.exit("contract double: only `serve` is implemented")
    opts = d.strict_options("trtmc-perf-serve serve", argv[1:], VALUED, FLAGS)
    missing = [package for module, package in SERVING_MODULES.items() if importlib.util.find_spec(module) is None]
    if missing:
        sys.exit(f"contract double: the serving app needs {', '.join(missing)} (apps/perf_serving/requirements.txt, "
                 "installed on top of the TRTMC runtime environment); this interpreter does not have them")
    _, manifest = d.find_profile(opts["--manifest-root"], opts["--profile"])
    cases = [tc for tc in manifest.get("testcases", []) if tc.get("name") == opts.get("--testcase", tc.get("name"))]
    max_tokens = cases[0].get("max_new_tokens") if cases else None
    records, scratch = Path(opts["--records"]), Path(opts["--scratch"])
    scratch.mkdir(parents=True, exist_ok=True)
    records.parent.mkdir(parents=True, exist_ok=True)
    host, port = opts.get("--host", "127.0.0.1"), int(opts.get("--port", "8000"))
    upstream = ("127.0.0.1", port + 1)
    child = subprocess.Popen([d.server(), "--bundle", opts["--bundle"], "--addr", f"{upstream[0]}:{upstream[1]}",
                              "--records", str(scratch / "double-server-records.jsonl"), "--lanes", "1",
                              "--queue", opts.get("--max-queue", "64")])
    # The served operation follows from the bundle's task, as TRTMC's backend reports it when it is
    # ready (backends/trtmc.py: the worker's ready event names its operation and task).
    task = json.loads(d.run([d.native(), "inspect", opts["--bundle"]]))["header"]["task"]
    operation = TASK_OPERATION.get(task)
    if operation is None:
        sys.exit(f"contract double: bundle {opts['--bundle']} has task {task!r}, which the double does not serve")
    server = ThreadingHTTPServer((host, port), handler(Double(opts, upstream, operation, max_tokens)))
    server.daemon_threads = True

    def stop(*_):
        child.send_signal(signal.SIGTERM)
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    threading.Thread(target=lambda: (child.wait(), stop()), daemon=True).start()
    server.serve_forever()
    sys.exit(child.wait())


if __name__ == "__main__":
    main(sys.argv[1:])
