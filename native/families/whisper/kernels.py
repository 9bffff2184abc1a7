"""What CTranslate2 says it runs on: the worker and upstream.py both load the model
through load_model(), which captures CTranslate2's own start-up log (the process runs with
CT2_VERBOSE=1) and reads the CPU line, the selected instruction set and the GEMM backends from
it. The log is printed to stderr unchanged afterwards; the Go side checks the selection against
the kernel settings the bundle pins."""

import os
import re
import sys
import tempfile

_FIELDS = {
    "cpu": r"\] CPU: (.+)$",
    "isa": r"Selected ISA: (\S+)",
    "mkl": r"Use Intel MKL: (\S+)",
    "sgemm_backend": r"SGEMM backend: (\S+)",
    "gemm_s8_backend": r"GEMM_S8 backend: (\S+)",
}


def load_model(model_dir, model_options):
    """WhisperModel(model_dir, **model_options), and what CTranslate2 logged about its kernels."""
    from faster_whisper import WhisperModel

    sys.stderr.flush()
    with tempfile.TemporaryFile() as log:
        saved = os.dup(2)
        os.dup2(log.fileno(), 2)
        try:
            model = WhisperModel(model_dir, **model_options)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        log.seek(0)
        text = log.read().decode(errors="replace")
    sys.stderr.write(text)
    sys.stderr.flush()
    kernels = {}
    for line in text.splitlines():
        for key, pattern in _FIELDS.items():
            found = re.search(pattern, line)
            if found and key not in kernels:
                kernels[key] = found.group(1).strip()
    kernels["numpy_dispatch"] = numpy_dispatch()
    return model, kernels


def numpy_dispatch():
    """The instruction-set targets numpy dispatches its loops to in this process ("none": its
    baseline loops only), which NPY_DISABLE_CPU_FEATURES narrows: the log-mel features depend
    on them."""
    from numpy._core import _multiarray_umath as umath

    enabled = [f for f in umath.__cpu_dispatch__ if umath.__cpu_features__.get(f)]
    return ",".join(enabled) or "none"
