"""The peer of BenchmarkPeerOverhead: the transcription route in FastAPI + uvicorn.

It does what trtmc-server does around a no-op Task: parse the multipart upload (file and
model fields), call the Task, answer JSON with the Task's wall time in trtmc_timing, so the
Go client can subtract it exactly as it does for trtmc-server.
"""
import time

from fastapi import FastAPI, File, Form, UploadFile

app = FastAPI()


def noop_task(audio: bytes) -> str:
    return "ok"


@app.post("/v1/audio/transcriptions")
async def transcribe(file: UploadFile = File(...), model: str = Form(...)):
    data = await file.read()
    start = time.perf_counter()
    text = noop_task(data)
    call_ms = (time.perf_counter() - start) * 1000
    return {"text": text, "trtmc_timing": {"queue_ms": 0, "model_call_ms": call_ms, "handler_ms": 0}}


@app.get("/health/ready")
async def ready():
    return {"status": "ready"}
