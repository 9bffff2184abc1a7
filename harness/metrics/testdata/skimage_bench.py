"""Times scikit-image's SSIM on one PNG pair (in-process, imports excluded); prints seconds per call."""
import sys
import time

import numpy as np
from skimage.io import imread
from skimage.metrics import structural_similarity

a = imread(sys.argv[1])[..., :3].astype(np.uint8)
b = imread(sys.argv[2])[..., :3].astype(np.uint8)
runs = int(sys.argv[3])
structural_similarity(a, b, data_range=255, channel_axis=2)
start = time.perf_counter()
for _ in range(runs):
    structural_similarity(a, b, data_range=255, channel_axis=2)
print((time.perf_counter() - start) / runs)
