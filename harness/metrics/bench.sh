#!/usr/bin/env bash
# Prints the metrics benchmarks: WER over 10,000 pairs (goal < 200 ms), SSIM on 1024x1024 RGB
# (goal < 100 ms), and the time ratios against NIST sclite and scikit-image on the same inputs.
set -euo pipefail
cd "$(dirname "$0")"
go test -run '^$' -bench 'WER10kPairs|SSIM1024RGB|VersusSCLITE|VersusScikitImage' -benchmem -count 1 .
