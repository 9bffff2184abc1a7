"""Parity oracle: for each line "A.png B.png" prints scikit-image's SSIM and PSNR (data_range=255)."""
import sys

import numpy as np
from skimage.io import imread
from skimage.metrics import peak_signal_noise_ratio, structural_similarity

for line in sys.stdin:
    a_path, b_path = line.split()
    a = imread(a_path)[..., :3].astype(np.uint8)
    b = imread(b_path)[..., :3].astype(np.uint8)
    ssim = structural_similarity(a, b, data_range=255, channel_axis=2)
    with np.errstate(divide="ignore"):
        psnr = peak_signal_noise_ratio(a, b, data_range=255)
    print(repr(float(ssim)), repr(float(psnr)))
