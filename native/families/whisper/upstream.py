"""Upstream transcription for the whisper family: faster-whisper's own transcribe() on the clip
files, standalone (faster-whisper decodes the WAVs itself), with the model and transcribe()
settings the bundle records, in a process with the kernel settings the bundle pins. Prints one
JSON object: versions, the kernels CTranslate2 selected, and {clip id: transcript}.

usage: python upstream.py MODEL_DIR SETTINGS_JSON CLIP.wav...
"""

import importlib.metadata
import json
import os
import sys

from kernels import load_model


def main():
    model_dir, settings = sys.argv[1], json.loads(sys.argv[2])
    model, kernels = load_model(model_dir, settings["model_options"])
    out = {}
    for path in sys.argv[3:]:
        segments, _ = model.transcribe(path, **settings["transcribe_options"])
        out[os.path.splitext(os.path.basename(path))[0]] = "".join(s.text for s in segments).strip()
    versions = {p: importlib.metadata.version(p) for p in ("faster-whisper", "ctranslate2")}
    json.dump({"versions": versions, "kernels": kernels, "transcripts": out}, sys.stdout)


if __name__ == "__main__":
    main()
