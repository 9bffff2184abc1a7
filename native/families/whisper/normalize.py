"""Whisper's English text normalization, from the whisper-normalizer package: reads a JSON list
of strings on stdin and prints the normalized list. The whisper gate reports WER to gold after
this normalization (gold_wer_normalized) beside the raw gold-wer-v1 figure."""

import importlib.metadata
import json
import sys

from whisper_normalizer.english import EnglishTextNormalizer

normalize = EnglishTextNormalizer()
json.dump({"package": "whisper-normalizer", "version": importlib.metadata.version("whisper-normalizer"),
           "texts": [normalize(t) for t in json.load(sys.stdin)]}, sys.stdout)
