"""Drives trtmc-server through the official OpenAI Python SDK (pinned in python/constraints.txt).

Run by server/sdk_test.go: argv[1] is a JSON object (urls, key, models, clip paths). Every call a
user of the SDK would make is made, and what the SDK handed back is printed as one JSON object
of observations on stdout, under the same names as sdk_check.cjs prints for the Node SDK; the Go
test holds the expectations, so both SDKs are judged by one table.
"""

import base64
import hashlib
import json
import sys
import threading
import time
import urllib.error
import urllib.request

import openai
from openai import OpenAI

cfg = json.loads(sys.argv[1])
out = {"sdk_version": openai.__version__}


def failure(e):
    """What the SDK tells its user about a refused call."""
    if not isinstance(e, openai.APIStatusError):
        raise e
    return {"error": {"class": type(e).__name__, "status": e.status_code, "code": e.code, "type": e.type,
                      "param": e.param, "request_id": e.request_id}}


def observe(name, call):
    try:
        out[name] = call()
    except openai.APIStatusError as e:
        out[name] = failure(e)


def fetch(url, headers=None):
    """A plain download (as an <img> or curl would): no SDK, no API key unless given."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {})) as r:
            body = r.read()
            return {"status": r.status, "png": body[:8] == b"\x89PNG\r\n\x1a\n", "sha256": hashlib.sha256(body).hexdigest()}
    except urllib.error.HTTPError as e:
        return {"status": e.code, "code": json.loads(e.read())["error"]["code"]}


client = OpenAI(base_url=cfg["url"] + "/v1", api_key="unused", max_retries=0)
keyed = OpenAI(base_url=cfg["key_url"] + "/v1", api_key=cfg["key"], max_retries=0)
clip = open(cfg["clip"], "rb").read()
asr, qa, image = cfg["asr_model"], cfg["qa_model"], cfg["image_model"]


def transcribe(**kw):
    return client.audio.transcriptions.create(model=asr, file=("clip.wav", clip, "audio/wav"), **kw)


def transcribe_json():
    r = transcribe(response_format="json", language="en", temperature=0, stream=False,
                   extra_headers={"X-Request-ID": cfg["id_prefix"] + "-transcribe"})
    return {"text": r.text, "request_id": r._request_id}


observe("transcribe_json", transcribe_json)
observe("transcribe_text", lambda: {"text": transcribe(response_format="text")})


def transcribe_verbose():
    r = transcribe(response_format="verbose_json", timestamp_granularities=["segment"])
    return {"text": r.text, "language": r.language, "duration": r.duration,
            "segments": [{"start": s.start, "end": s.end, "text": s.text} for s in r.segments or []]}


observe("transcribe_verbose", transcribe_verbose)
observe("transcribe_stream", lambda: list(transcribe(stream=True)))
observe("transcribe_words", lambda: transcribe(response_format="verbose_json", timestamp_granularities=["word"]).text)
observe("transcribe_temperature", lambda: transcribe(temperature=0.7).text)

STEERING = {"seed": 7, "num_inference_steps": 6, "guidance_scale": 5.0}


def image_b64():
    r = client.images.generate(model=image, prompt=cfg["prompt"], size="128x128", extra_body=STEERING)
    data = base64.b64decode(r.data[0].b64_json)
    return {"count": len(r.data), "png": data[:8] == b"\x89PNG\r\n\x1a\n", "sha256": hashlib.sha256(data).hexdigest(),
            "created": r.created}


def image_url(c, headers=None):
    r = c.images.generate(model=image, prompt=cfg["prompt"], size="128x128", response_format="url", extra_body=STEERING)
    url = r.data[0].url
    got = {"download": fetch(url, headers)}
    if c is keyed:
        # The signature is what lets the download through: the same url with its signature
        # altered, or without it, needs the key.
        got["tampered"] = fetch(url[:-1] + ("0" if url[-1] != "0" else "1"))
        got["unsigned"] = fetch(url.split("?")[0])
        got["unsigned_with_key"] = fetch(url.split("?")[0], {"Authorization": "Bearer " + cfg["key"]})
    return got


observe("image_b64", image_b64)
observe("image_url", lambda: image_url(client))
observe("image_url_key", lambda: image_url(keyed))
observe("image_noops", lambda: {"count": len(client.images.generate(model=image, prompt=cfg["prompt"], size="128x128",
                                                                     quality="standard", style="vivid", user="sdk-user").data)})
observe("image_quality_hd", lambda: client.images.generate(model=image, prompt=cfg["prompt"], quality="hd").created)

audio_part = {"type": "input_audio", "input_audio": {"data": base64.b64encode(clip).decode(), "format": "wav"}}


def chat():
    r = client.chat.completions.create(model=qa, messages=[
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": [{"type": "text", "text": cfg["first_question"]}, audio_part]},
        {"role": "assistant", "content": "(an earlier answer)"},
        {"role": "user", "content": cfg["question"]},
    ])
    return {"content": r.choices[0].message.content, "role": r.choices[0].message.role, "created": r.created,
            "model": r.model, "object": r.object, "request_id": r._request_id}


def chat_noops():
    r = client.chat.completions.create(model=qa, n=1, modalities=["text"], user="sdk-user", response_format={"type": "text"},
                                       logprobs=False, temperature=0, max_tokens=16, messages=[
        {"role": "user", "name": "ann", "content": [{"type": "text", "text": cfg["question"]}, audio_part]}])
    return {"content": r.choices[0].message.content}


observe("chat", chat)
observe("chat_noops", chat_noops)
observe("chat_n2", lambda: client.chat.completions.create(model=qa, n=2, messages=[
    {"role": "user", "content": [{"type": "text", "text": cfg["question"]}, audio_part]}]).id)


def models_list():
    return {"models": [{"id": m.id, "created": m.created, "object": m.object, "owned_by": m.owned_by} for m in client.models.list()]}


def models_retrieve():
    m = client.models.retrieve(asr)
    return {"id": m.id, "created": m.created, "object": m.object, "owned_by": m.owned_by}


observe("models_list", models_list)
observe("models_retrieve", models_retrieve)
observe("models_retrieve_missing", lambda: client.models.retrieve("no-such-model").id)
observe("wrong_model", lambda: client.audio.transcriptions.create(model="no-such-model", file=("clip.wav", clip)).text)
observe("wrong_key", lambda: OpenAI(base_url=cfg["key_url"] + "/v1", api_key="wrong-" + cfg["key"], max_retries=0).models.list().data)
observe("keyed_models", lambda: [m.id for m in keyed.models.list()])


def tasks_running():
    with urllib.request.urlopen(cfg["url"] + "/metrics") as r:
        for line in r.read().decode().splitlines():
            if line.startswith("trtmc_task_calls_running "):
                return float(line.split()[1])
    return 0.0


def while_busy(name, call):
    """Runs call while a long transcription holds the model's one lane (the server runs with one
    lane and no queue), so that the call's first attempt is answered 429 server_busy."""
    long_clip = open(cfg["long_clip"], "rb").read()
    blocker = {}

    def block():
        try:
            blocker["text"] = client.audio.transcriptions.create(model=asr, file=("long.wav", long_clip), extra_headers={
                "X-Request-ID": cfg["id_prefix"] + "-blocker-" + name}).text
        except openai.APIStatusError as e:
            blocker.update(failure(e))

    t = threading.Thread(target=block)
    t.start()
    for _ in range(3000):  # bounded: 30 s
        if tasks_running() >= 1 or not t.is_alive():
            break
        time.sleep(0.01)
    try:
        got = call()
    except openai.APIStatusError as e:
        got = failure(e)
    t.join()
    return {"call": got, "blocker": blocker}


retrying = client.with_options(max_retries=2)
observe("busy", lambda: while_busy("busy", lambda: {"text": retrying.audio.transcriptions.create(model=asr, file=("clip.wav", clip)).text}))
observe("busy_own_id", lambda: while_busy("own", lambda: {"text": retrying.audio.transcriptions.create(
    model=asr, file=("clip.wav", clip), extra_headers={"X-Request-ID": cfg["id_prefix"] + "-busy"}).text}))

json.dump(out, sys.stdout)
