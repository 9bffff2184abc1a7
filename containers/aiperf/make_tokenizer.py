"""Seeds an offline HuggingFace cache with a tokenizer for AIPerf (run in the AIPerf image build).

AIPerf 0.13.0 counts tokens in prompts and responses. Its `builtin` tokenizer downloads tiktoken's
o200k_base file at first use, and a hub name needs the hub; neither is reachable on an offline
runner. With HF_HUB_OFFLINE=1, AIPerf resolves a tokenizer name only from the HF cache
(snapshot_download with local_files_only), so this writes the repository "trtmc-qual/byte-tokenizer"
into HF_HOME's cache layout: byte-level pre-tokenization over a 256-symbol alphabet with no merges,
so every text tokenizes without unknowns and one token is one UTF-8 byte (the reports say so).

Usage: make_tokenizer.py HF_HOME
"""
import json
import sys
from pathlib import Path

from tokenizers import Tokenizer, decoders, models, pre_tokenizers

REPO = "trtmc-qual/byte-tokenizer"
REVISION = "0" * 40  # a fixed snapshot id: the content is generated, not downloaded
repo_dir = Path(sys.argv[1]) / "hub" / ("models--" + REPO.replace("/", "--"))
out = repo_dir / "snapshots" / REVISION
out.mkdir(parents=True, exist_ok=True)
(repo_dir / "refs").mkdir(exist_ok=True)
(repo_dir / "refs" / "main").write_text(REVISION)
alphabet = pre_tokenizers.ByteLevel.alphabet()
vocab = {symbol: i for i, symbol in enumerate(sorted(alphabet))}
vocab["<|endoftext|>"] = len(vocab)
tok = Tokenizer(models.BPE(vocab=vocab, merges=[]))
tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
tok.decoder = decoders.ByteLevel()
tok.save(str(out / "tokenizer.json"))
(out / "tokenizer_config.json").write_text(json.dumps({
    "tokenizer_class": "PreTrainedTokenizerFast",
    "eos_token": "<|endoftext|>",
    "bos_token": None,
    "model_max_length": 1 << 20,
}, indent=1))
(out / "config.json").write_text(json.dumps({"model_type": "gpt2", "vocab_size": len(vocab)}))
print(f"seeded {REPO} ({len(vocab)} symbols) at {out}")
