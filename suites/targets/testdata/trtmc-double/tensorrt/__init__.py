"""Contract double: a version report standing in for TensorRT's Python package, which TRTMC's
images install (Dockerfile @e9132e79 TENSORRT_VERSION=11.1.0.106) and its Dockerfile.dev.x86 checks
with tensorrt.__version__. The double's tree is on PYTHONPATH on the host and in the image alike;
TRTMC_DOUBLE_TENSORRT_VERSION makes one side report another version (the preflight's test). NOT TensorRT."""
import os

__version__ = os.environ.get("TRTMC_DOUBLE_TENSORRT_VERSION", "11.1.0.106")
