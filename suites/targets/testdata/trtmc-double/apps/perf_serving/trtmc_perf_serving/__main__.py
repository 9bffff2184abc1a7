"""Contract double of `python -m trtmc_perf_serving serve --profile P --bundle B --records R --scratch S
--host H --port N [--full-observations] [--keep-artifacts] ...` (apps/perf_serving/trtmc_perf_serving/cli.py, app.py).

Runs trtmc-server on the bundle behind a FastAPI app served by uvicorn, with python-multipart parsing
the transcription form, as TRTMC's app needs them (apps/perf_serving/requirements.txt @ca938e40); the app
gives trtmc-server's answers TRTMC's shape (app.py @1797a247, digests.py):
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
  without all of them importable it exits 1 before serving; it runs on fastapi, uvicorn and
  python-multipart itself;
- a transcription must be a multipart form with a `file` part, else 400 invalid_request and no record;
- its options are cli.py @1797a247's `serve` options: one it does not define exits 2 (argparse).
"""
import base64
import http.client
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import re
import time
import uuid
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
        self.stopping = False

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


def forward(double, method, route, query, headers, payload):
    """One request to trtmc-server, answered in TRTMC's shape (blocking: run in a worker thread)."""
    conn = http.client.HTTPConnection(*double.upstream, timeout=3600)
    headers = {k: v for k, v in headers.items() if k.lower() not in ("host", "connection", "content-length")}
    try:
        conn.request(method, route + (f"?{query}" if query else ""), body=payload or None, headers=headers)
        resp = conn.getresponse()
        data, status = resp.read(), resp.status
        out_headers = {k: v for k, v in resp.getheaders() if k.lower() in ("x-request-id", "server-timing", "content-type", "retry-after")}
    except OSError as error:  # trtmc-server still starting: not ready, as TRTMC's app says while loading
        return 503, {"content-type": "application/json"}, json.dumps({"error": {"message": str(error), "code": "backend_unavailable"}}).encode()
    finally:
        conn.close()
    if method == "POST" and status == 200 and route in OPERATIONS:
        request_id = next(v for k, v in out_headers.items() if k.lower() == "x-request-id")
        try:
            data = json.dumps(double.reshape(route, request_id, json.loads(data))).encode()
        except Exception as error:  # noqa: BLE001 - a failed call keeps its request id (app.py guarded)
            data, status = json.dumps({"error": {"message": f"{type(error).__name__}: {error}", "code": "backend_failed"}}).encode(), 500
        out_headers = {k: v for k, v in out_headers.items() if k.lower() != "content-type"}
        out_headers["content-type"] = "application/json"
    return status, out_headers, data


def error(status, request_id, message, kind, code):
    """app.py _error: {"error": {"message", "type", "code"}} with X-Request-ID."""
    from fastapi.responses import JSONResponse
    return JSONResponse({"error": {"message": message, "type": kind, "code": code}}, status_code=status,
                        headers={"X-Request-ID": request_id})


def application(double, child):
    """The FastAPI app: every route proxied to trtmc-server, TRTMC's refusals before anything runs.
    trtmc-server stops with the app, in its shutdown (uvicorn re-raises SIGTERM after it)."""
    from contextlib import asynccontextmanager

    from fastapi import FastAPI, Request, Response
    from starlette.concurrency import run_in_threadpool

    @asynccontextmanager
    async def lifespan(_):
        yield
        double.stopping = True
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
        await run_in_threadpool(child.wait)

    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None, lifespan=lifespan)

    @app.api_route("/{path:path}", methods=["GET", "POST"])
    async def proxy(request: Request, path: str):  # noqa: ARG001 - the route is request.url.path
        route = request.url.path
        incoming = request.headers.get("x-request-id", "")
        request_id = incoming if REQUEST_ID.match(incoming) else uuid.uuid4().hex
        if request.method == "POST" and double.operation not in ROUTE_OPERATIONS.get(route, (double.operation,)):
            return error(404, request_id, f"{route} is not served for operation {double.operation!r}",
                         "invalid_request_error", "route_not_served")
        payload = await request.body()
        if route == "/v1/audio/transcriptions" and request.method == "POST":
            # app.py transcriptions: a multipart form with its `file` part (python-multipart parses it).
            try:
                form = await request.form()
            except Exception as failure:  # noqa: BLE001 - any unparsable body is the client's
                return error(400, request_id, f"multipart form: {failure}", "invalid_request_error", "invalid_request")
            if "file" not in form:
                return error(400, request_id, "the form has no file part", "invalid_request_error", "invalid_request")
        status, headers, data = await run_in_threadpool(forward, double, request.method, route, request.url.query,
                                                        dict(request.headers), payload)
        return Response(content=data, status_code=status, headers=headers)

    return app


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
    import uvicorn

    double = Double(opts, upstream, operation, max_tokens)
    app = application(double, child)

    def child_gone():  # trtmc-server gone on its own: stop serving too
        child.wait()
        if not double.stopping:
            os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=child_gone, daemon=True).start()
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
    sys.exit(child.wait())

if __name__ == "__main__":
    main(sys.argv[1:])
