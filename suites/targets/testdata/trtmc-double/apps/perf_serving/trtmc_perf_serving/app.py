"""The contract double's serving app (a test double: see ../../../README.md). Every status, header, body,
error and record has the keys and types of TRTMC's app (apps/perf_serving/trtmc_perf_serving/app.py
@1797a247, openai.py @db5a3def, digests.py @7d4725ab); its one backend is a persistent worker speaking
TRTMC's `--serve` protocol (backends/trtmc.py @7b798a32), the double's build/trtmc_benchmark_worker.

- one execution lane; beyond --max-queue waiting requests: 429 server_busy with Retry-After: 1;
- a POST route whose operations do not include the served one: 404 route_not_served (guarded); a body
  that does not map: 400 invalid_request; the worker's refusal: 422 backend_rejected_request; a lost
  worker: 503 backend_unavailable; anything else: 500 backend_failed; every error is
  {"error": {"message", "type", "code"}} with X-Request-ID and leaves no record;
- a route the app does not define: FastAPI's own 404/405 {"detail": ...}, no X-Request-ID;
- one record per executed request {request_id, route, operation, backend, time, timing{queue_ms,
  model_call_ms, handler_ms}, observation}, written before the answer;
- answers carry trtmc_timing and trtmc_observation, X-Request-ID and Server-Timing: model;dur=<ms>.
"""
import asyncio
import base64
import binascii
import json
import os
import platform
import queue
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
import digest  # noqa: E402

REQUEST_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")  # app.py _REQUEST_ID
MAX_INLINE_ITEMS = 64  # app.py
TRANSPORT = {"model", "stream", "stream_options", "user", "n", "response_format", "encoding_format"}  # openai.py
IMAGE_FIELDS = {"prompt", "size", "seed", "num_inference_steps", "guidance_scale", "negative_prompt", "quality",
                "num_frames", "seconds", "fps"}
TRANSCRIPTION_FIELDS = {"language", "temperature", "prompt"}


class RequestError(ValueError):
    """openai.py RequestError: the body cannot be mapped (400)."""


class BackendError(RuntimeError):
    """backends/base.py BackendError: the worker refused the request (422)."""


class BackendUnavailable(RuntimeError):
    """backends/base.py BackendUnavailable: the worker is gone (503); at startup, cli.py's exit 2."""


class Saturated(RuntimeError):
    """The lane and its queue are full (429)."""


def compact(value):
    """app.py compact: arrays longer than MAX_INLINE_ITEMS become {"$array_length": n}."""
    if isinstance(value, dict):
        return {k: compact(v) for k, v in value.items()}
    if isinstance(value, list):
        return {"$array_length": len(value)} if len(value) > MAX_INLINE_ITEMS else [compact(v) for v in value]
    return value


class Worker:
    """backends/trtmc.py TrtmcWorkerBackend: one persistent `WORKER --serve SESSION.json` process."""

    def __init__(self, worker, session, scratch, full, isolate, request_timeout, startup_timeout=900.0):
        self.operation, self.worker, self.full, self.isolate = session["operation"], worker, full, isolate
        self.request_timeout, self.startup_timeout, self.served = request_timeout, startup_timeout, 0
        scratch.mkdir(parents=True, exist_ok=True)
        self.session_path = scratch / "worker-session.json"
        self.session_path.write_text(json.dumps(session, indent=2))
        self.stderr = open(scratch / "worker.stderr.log", "ab")
        ready = self.start()
        self.identity = {"backend": "trtmc", "worker": str(worker), "bundle": session["bundle"], "isolate_requests": isolate,
                         **{k: ready[k] for k in ("operation", "task", "selected_task", "timing_scope",
                                                  "asset_loading_included", "load_ms")}}

    def start(self):
        self.process = subprocess.Popen([str(self.worker), "--serve", str(self.session_path)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=self.stderr, text=True, bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self.pump, daemon=True).start()
        self.available = True
        try:
            ready = self.read(self.startup_timeout, "worker startup")
            if ready.get("event") != "ready":
                raise BackendUnavailable(f"worker failed to load: {ready.get('error', ready)}")
        except BackendUnavailable:
            self.close()
            raise
        return ready

    def pump(self):
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def read(self, timeout, label):
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            self.retire()
            raise BackendUnavailable(f"{label} timed out after {timeout:.0f}s")
        if line is None:
            self.retire()
            raise BackendUnavailable(f"worker exited during {label} (code {self.process.poll()})")
        try:
            return json.loads(line)
        except json.JSONDecodeError:
            self.retire()
            raise BackendUnavailable(f"worker emitted a non-protocol line: {line[:200]!r}")

    def write(self, message):
        try:
            self.process.stdin.write(json.dumps(message) + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as error:
            self.retire()
            raise BackendUnavailable(f"worker exited: {error}")

    def invoke(self, request, artifact_base):
        if self.isolate and self.served:
            self.stop()
            self.start()
        if not self.available:
            raise BackendUnavailable("worker is no longer available")
        self.served += 1
        message_id = uuid.uuid4().hex
        self.write({"id": message_id, "request": request, "artifact_base": str(artifact_base), "full_observation": self.full})
        reply = self.read(self.request_timeout, "worker request")
        if reply.get("id") != message_id:
            self.retire()
            raise BackendUnavailable("worker protocol desynchronized")
        if not reply.get("ok"):
            raise BackendError(str(reply.get("error", "worker request failed")))
        observation = dict(reply["observation"])
        return observation, float(observation.pop("runtime_e2e_wall_ms"))

    def retire(self):
        self.available = False
        if self.process.poll() is None:
            self.process.kill()

    def stop(self):
        if self.process.poll() is None:
            try:
                self.write({"id": "shutdown", "type": "shutdown"})
                self.process.wait(timeout=30)
            except (BackendUnavailable, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()

    def close(self):
        self.stop()
        self.stderr.close()


def number(value):
    """openai.py _number: form fields arrive as strings."""
    if isinstance(value, str):
        return float(value) if "." in value else int(value)
    return value


def check_fields(body, allowed):
    unknown = sorted(set(body) - allowed - TRANSPORT)
    if unknown:
        raise RequestError(f"unsupported fields: {', '.join(unknown)}")
    if int(body.get("n", 1)) != 1:
        raise RequestError("only n=1 is supported")


def image_request(body, base):
    """openai.py image_generation."""
    check_fields(body, IMAGE_FIELDS)
    request = {**base, "prompt": str(body.get("prompt", ""))}
    if body.get("size"):
        try:
            width, height = (int(v) for v in str(body["size"]).lower().split("x"))
        except ValueError:
            raise RequestError("size must be WIDTHxHEIGHT")
        request.update(width=width, height=height)
    for source, target in (("num_inference_steps", "num_steps"), ("seed", "seed"), ("guidance_scale", "guidance_scale"),
                           ("negative_prompt", "negative_prompt"), ("num_frames", "num_frames")):
        if body.get(source) is not None:
            request[target] = number(body[source]) if target != "negative_prompt" else body[source]
    return request


def transcription_request(audio, filename, fields, base):
    """openai.py transcription: the upload inline as a $file, materialized with every other request's."""
    check_fields(fields, TRANSCRIPTION_FIELDS)
    suffix = "." + filename.rsplit(".", 1)[-1] if "." in filename else ".wav"
    request = {**base, "audio_path": {"$file": {"suffix": suffix, "b64": base64.b64encode(audio).decode()}}}
    if fields.get("language"):
        request["language"] = fields["language"]
    return request


def server_paths(value, key=""):
    """files.py server_path_fields: request members naming server files (only the base request may)."""
    if isinstance(value, dict):
        return [k for name, item in value.items() for k in server_paths(item, name)]
    if isinstance(value, list):
        return [k for item in value for k in server_paths(item, key)]
    return [key] if isinstance(value, str) and (key.endswith("_path") or key.endswith("_paths")) else []


def materialize(value, inputs):
    """files.py materialize_files: each {"$file": {"suffix", "b64"}} becomes inputs/input-NNNN<suffix>;
    a reference with sibling keys, a suffix longer than 16 or holding "/" or "..", or invalid base64
    is a ValueError (400)."""
    counter = iter(range(1_000_000))

    def visit(item):
        if isinstance(item, dict):
            if "$file" in item:
                return write_file(item, inputs, next(counter))
            return {k: visit(v) for k, v in item.items()}
        if isinstance(item, list):
            return [visit(v) for v in item]
        return item

    return visit(value)


def write_file(reference, inputs, index):
    if set(reference) != {"$file"}:
        raise ValueError("$file references cannot carry sibling fields")
    body = reference["$file"]
    if not isinstance(body, dict) or not isinstance(body.get("b64"), str):
        raise ValueError("$file requires a base64 'b64' string")
    suffix = body.get("suffix", "")
    if not isinstance(suffix, str) or len(suffix) > 16 or "/" in suffix or ".." in suffix:
        raise ValueError("$file suffix must be a short file extension")
    try:
        data = base64.b64decode(body["b64"], validate=True)
    except binascii.Error as error:
        raise ValueError(f"$file contains invalid base64: {error}") from error
    inputs.mkdir(parents=True, exist_ok=True)
    path = inputs / f"input-{index:04d}{suffix}"
    path.write_bytes(data)
    return str(path)


def media_digest(workdir):
    """digests.py media_frames + image_digest for the double's one-frame images: the worker's output*.png."""
    pngs = sorted(p for p in workdir.glob("output*.png") if ".input." not in p.name)
    return digest.image_digest(pngs[0].read_bytes()) if pngs else None


def create_app(worker, opts, info, base):
    from fastapi import FastAPI, Request
    from fastapi.responses import JSONResponse
    from starlette.concurrency import run_in_threadpool

    app = FastAPI(title="TRTMC performance serving")
    scratch, records = Path(opts["--scratch"]), Path(opts["--records"])
    records.parent.mkdir(parents=True, exist_ok=True)
    keep, full = bool(opts.get("--keep-artifacts")), bool(opts.get("--full-observations"))
    max_queue, model_name = int(opts.get("--max-queue", "64")), opts.get("--model-name") or info["profile"]
    lock, write_lock, state = asyncio.Lock(), threading.Lock(), {"available": True, "waiting": 0}
    operation = worker.operation

    def error(status, code, message, request_id):
        kind = "server_error" if status >= 500 else "rate_limit_error" if status == 429 else "invalid_request_error"
        return JSONResponse({"error": {"message": message, "type": kind, "code": code}}, status_code=status,
                            headers={"X-Request-ID": request_id} if request_id else None)

    async def lane(call):
        if lock.locked() and state["waiting"] >= max_queue:
            raise Saturated("execution lane and queue are full")
        arrived = time.perf_counter()
        state["waiting"] += 1
        try:
            await lock.acquire()
        finally:
            state["waiting"] -= 1
        try:
            started = time.perf_counter()
            result = await run_in_threadpool(call)
            return result, (started - arrived) * 1000.0, (time.perf_counter() - started) * 1000.0
        finally:
            lock.release()

    async def execute(request_id, route, build):
        workdir = scratch / request_id
        try:
            workdir.mkdir(parents=True, exist_ok=True)
            request = build(workdir / "inputs")
            (observation, model_call_ms), queue_ms, handler_ms = await lane(lambda: worker.invoke(request, workdir / "output"))
            if operation == "generate_image" and "media_digest" not in observation:
                found = media_digest(workdir)
                if found is not None:
                    observation["media_digest"] = found
        except BackendUnavailable:
            state["available"] = False
            raise
        finally:
            if not keep:
                shutil.rmtree(workdir, ignore_errors=True)
        timing = {"queue_ms": queue_ms, "model_call_ms": model_call_ms, "handler_ms": handler_ms}
        reported = observation if full else compact(observation)
        line = {"request_id": request_id, "route": route, "operation": operation, "backend": info["backend"],
                "time": time.time(), "timing": timing, "observation": reported}
        with write_lock, open(records, "a", encoding="utf-8") as out:
            out.write(json.dumps(line, default=str) + "\n")
        return {"timing": timing, "observation": observation, "reported": reported}

    def respond(body, result, request_id):
        body["trtmc_timing"], body["trtmc_observation"] = result["timing"], result["reported"]
        return JSONResponse(body, headers={"X-Request-ID": request_id,
                                           "Server-Timing": f"model;dur={float(result['timing']['model_call_ms']):.3f}"})

    async def guarded(request, route, operations, handler):
        incoming = request.headers.get("x-request-id", "")
        request_id = incoming if REQUEST_ID.match(incoming) else uuid.uuid4().hex
        if operation not in operations:
            return error(404, "route_not_served", f"{route} is not served for operation {operation!r}", request_id)
        if not state["available"]:
            return error(503, "backend_unavailable", "backend is no longer available", request_id)
        try:
            return await handler(request_id)
        except (ValueError, json.JSONDecodeError) as failure:
            return error(400, "invalid_request", str(failure), request_id)
        except BackendError as failure:
            return error(422, "backend_rejected_request", str(failure), request_id)
        except Saturated as failure:
            response = error(429, "server_busy", str(failure), request_id)
            response.headers["Retry-After"] = "1"
            return response
        except BackendUnavailable as failure:
            return error(503, "backend_unavailable", str(failure), request_id)
        except Exception as failure:  # noqa: BLE001 - a failed call keeps its request id
            return error(500, "backend_failed", f"{type(failure).__name__}: {failure}", request_id)

    @app.post("/v1/tasks/{name}")
    async def task(name: str, request: Request):
        async def handle(request_id):
            if name != operation:
                raise RequestError(f"this server serves {operation!r}, not {name!r}")
            body = await request.json()
            if set(body) - {"request", "model"} or not isinstance(body.get("request", {}), dict):
                raise RequestError('body must be {"request": {...operation request...}}')
            local = server_paths(body.get("request", {}))
            if local:
                raise RequestError(f"send {', '.join(sorted(set(local)))} inline as "
                                   '{"$file": {"suffix": ..., "b64": ...}}, not as a server path')
            result = await execute(request_id, f"/v1/tasks/{name}", lambda inputs: materialize({**base, **body.get("request", {})}, inputs))
            text = str(result["observation"].get("text", operation))
            return respond({"id": request_id, "object": "task.result", "operation": operation, "text": text}, result, request_id)
        return await guarded(request, "/v1/tasks", (operation,), handle)

    def unserved(route, operations):
        async def handler(request: Request):
            async def never(_):
                raise RequestError(f"the contract double serves no {route}")
            return await guarded(request, route, operations, never)
        return handler

    for route, operations in (("/v1/completions", ("generate",)), ("/v1/chat/completions", ("generate",)),
                              ("/v1/embeddings", ("embed", "encode")), ("/v1/ranking", ("rerank",))):
        app.post(route)(unserved(route, operations))

    @app.post("/v1/audio/transcriptions")
    async def transcriptions(request: Request):
        async def handle(request_id):
            form = await request.form()
            upload = form.get("file")
            if upload is None or isinstance(upload, str):
                raise RequestError("multipart field 'file' is required")
            fields = {k: v for k, v in form.items() if k != "file"}
            audio, filename = await upload.read(), upload.filename or "audio.wav"
            mapped = transcription_request(audio, filename, fields, base)
            result = await execute(request_id, "/v1/audio/transcriptions", lambda inputs: materialize(mapped, inputs))
            return respond({"text": result["observation"].get("text", "")}, result, request_id)
        return await guarded(request, "/v1/audio/transcriptions", ("transcribe",), handle)

    @app.post("/v1/images/generations")
    async def images(request: Request):
        async def handle(request_id):
            mapped = image_request(await request.json(), base)
            result = await execute(request_id, "/v1/images/generations", lambda inputs: materialize(mapped, inputs))
            artifact = result["observation"].get("artifact") or result["observation"].get("path") or ""
            return respond({"created": int(time.time()), "data": [{"url": f"file://{artifact}" if artifact else ""}],
                            "inference_time_s": float(result["timing"]["model_call_ms"]) / 1000.0}, result, request_id)
        return await guarded(request, "/v1/images/generations", ("generate_image",), handle)

    app.post("/v1/videos")(unserved("/v1/videos", ("generate_image",)))

    @app.get("/v1/videos/{job_id}")
    async def get_video(job_id: str):  # noqa: ARG001 - the double runs no video jobs
        return error(404, "not_found", "unknown video job", None)

    @app.get("/health/live")
    async def live():
        return {"status": "live"}

    @app.get("/health/ready")
    async def ready():
        if not state["available"]:
            return JSONResponse({"status": "unavailable"}, status_code=503)
        return {"status": "ready", "operation": operation}

    @app.get("/v1/models")
    async def models():
        return {"object": "list", "data": [{"id": model_name, "object": "model", "owned_by": "trtmc"}]}

    @app.get("/v1/serving/info")
    async def serving_info():
        return {**info, "max_queue": max_queue, "base_request": dict(base)}

    return app


def serve(opts, manifest, testcase, operation, request):
    """cli.py serve for the trtmc backend: the worker loads before uvicorn starts, so /health/ready
    answers only once the model is ready."""
    import uvicorn

    bundle = str(Path(opts["--bundle"]))
    session = {"schema_version": 2, "case_name": testcase, "bundle": bundle, "runtime_root": opts["--runtime-root"],
               "operation": operation, "request": request,
               "measurement": {"warmup": 0, "iterations": 1, "timing_scope": "public_task_call_wall"}}
    worker = Worker(Path(opts["--worker"]), session, Path(opts["--scratch"]) / "_worker", bool(opts.get("--full-observations")),
                    bool(opts.get("--isolate-requests")), float(opts.get("--request-timeout", "900")))
    # cli.py info; platform.py fingerprint/host_details as a CPU without torch reports them.
    info = {**worker.identity, "profile": manifest["name"], "testcase": testcase, "family": manifest.get("family", ""),
            "platform": {"packages": {}, "cuda": None, "cudnn": None, "gpu_arch": "cpu"},
            "host": {"hostname": socket.gethostname(), "python": platform.python_version(), "machine": platform.machine()}}
    try:
        uvicorn.run(create_app(worker, opts, info, request), host=opts.get("--host", "127.0.0.1"),
                    port=int(opts.get("--port", "8000")), log_level="warning")
    finally:
        worker.close()
    return 0
