"""Parity oracle: reads JSON lines {"ref": str, "hyp": str}, prints jiwer's H S D I per line."""
import json
import sys

import jiwer

for line in sys.stdin:
    pair = json.loads(line)
    out = jiwer.process_words(pair["ref"], pair["hyp"])
    print(out.hits, out.substitutions, out.deletions, out.insertions)
