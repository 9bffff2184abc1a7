"""faster-whisper called directly, for the whisper family's benchmark: the same model files and
settings as the worker, no protocol. Loads the model, decodes the clips (untimed), transcribes
one clip to warm up, then times ROUNDS passes over the clips. Prints JSON figures.

usage: python bench.py MODEL_DIR SETTINGS_JSON ROUNDS CLIP.wav...
"""

import json
import resource
import sys
import time

from faster_whisper import WhisperModel, decode_audio


def main():
    model_dir, settings, rounds = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
    t0 = time.perf_counter()
    model = WhisperModel(model_dir, **settings["model_options"])
    load_s = time.perf_counter() - t0
    clips = [decode_audio(p) for p in sys.argv[4:]]
    opts = settings["transcribe_options"]

    def run(audio):
        segments, _ = model.transcribe(audio, **opts)
        return "".join(s.text for s in segments).strip()

    run(clips[0])
    t0 = time.perf_counter()
    for _ in range(rounds):
        for c in clips:
            run(c)
    wall = time.perf_counter() - t0
    audio_s = rounds * sum(len(c) for c in clips) / 16000
    json.dump({"load_s": load_s, "wall_s": wall, "audio_s": audio_s,
               "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}, sys.stdout)


if __name__ == "__main__":
    main()
