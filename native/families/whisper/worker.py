"""The whisper family's worker: one warm faster-whisper model behind a framed JSON protocol.

Frames on stdin/stdout are a 4-byte big-endian length followed by that many bytes of UTF-8
JSON. The first request is {"op": "load", ...}; the reply is {"ok": true, "op": "ready",
"versions": {...}, "kernels": {...}, "load_ms": ...} (kernels: the instruction set and GEMM
backends CTranslate2 logged that it selected). Then {"op": "transcribe", "id": n,
"sample_rate": 16000, "pcm_f32le": "<base64>"} -> {"ok": true, "id": n, "text": ..., "worker_ms": ...}. A request
the worker cannot serve gets {"ok": false, "id": n, "error": ...}; EOF on stdin ends it.

The model and transcribe() settings come from the bundle header, unchanged: the upstream
transcription (upstream.py) passes the same dictionaries to the same calls.
"""

import base64
import importlib.metadata
import json
import os
import struct
import sys
import time


def versions():
    return {p: importlib.metadata.version(p) for p in ("faster-whisper", "ctranslate2")}


def read_frame(stream):
    head = stream.read(4)
    if len(head) < 4:
        return None
    (n,) = struct.unpack(">I", head)
    body = stream.read(n)
    if len(body) < n:
        return None
    return json.loads(body)


def write_frame(stream, obj):
    body = json.dumps(obj).encode()
    stream.write(struct.pack(">I", len(body)) + body)
    stream.flush()


def transcript(model, audio, options):
    segments, _ = model.transcribe(audio, **options)
    return "".join(s.text for s in segments).strip()


def main():
    # The protocol owns the real stdout; anything a library prints goes to stderr instead.
    proto_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    proto_in = sys.stdin.buffer
    load = read_frame(proto_in)
    if load is None or load.get("op") != "load":
        write_frame(proto_out, {"ok": False, "error": "first frame must be a load request"})
        return 2
    start = time.perf_counter()
    try:
        import numpy as np
        from kernels import load_model

        model, kernels = load_model(load["model_dir"], load["model_options"])
    except Exception as e:  # the Go side reports this as a load failure with the message
        write_frame(proto_out, {"ok": False, "error": f"{type(e).__name__}: {e}"})
        return 3
    options = load["transcribe_options"]
    # Warm up on one second of silence, so that the first request does not pay for CTranslate2's
    # lazy initialization (seen: 3-10x the steady call time). Decoding is stateless across calls
    # (no conditioning on earlier text), so this cannot change any later transcript.
    transcript(model, np.zeros(16000, dtype=np.float32), options)
    write_frame(proto_out, {"ok": True, "op": "ready", "versions": versions(), "kernels": kernels, "pid": os.getpid(),
                            "load_ms": (time.perf_counter() - start) * 1000})
    while True:
        req = read_frame(proto_in)
        if req is None:
            return 0
        rid = req.get("id")
        try:
            if req.get("op") != "transcribe" or req.get("sample_rate") != 16000:
                raise ValueError(f"unsupported request op={req.get('op')!r} sample_rate={req.get('sample_rate')!r}")
            audio = np.frombuffer(base64.b64decode(req["pcm_f32le"]), dtype="<f4")
            t0 = time.perf_counter()
            text = transcript(model, audio, options)
            write_frame(proto_out, {"ok": True, "id": rid, "text": text,
                                    "worker_ms": (time.perf_counter() - t0) * 1000})
        except Exception as e:
            write_frame(proto_out, {"ok": False, "id": rid, "error": f"{type(e).__name__}: {e}"})


if __name__ == "__main__":
    sys.exit(main())
