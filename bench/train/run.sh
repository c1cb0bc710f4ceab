#!/usr/bin/env bash
# bench/train: training samples/s and test accuracy after one epoch (batch
# 128, SGD momentum 0.9, lr 0.05) for the benchmark MLP and CNN, sweep's nn/
# against PyTorch (Debian's python3-torch on libopenblas0-pthread), 1 and 2
# threads each, in one run on one machine; plus the OpenBLAS SGEMM peak.
# Usage: bench/train/run.sh [mlp] [cnn]
set -euo pipefail
cd "$(dirname "$0")/../.."
models=("$@")
[ ${#models[@]} -eq 0 ] && models=(mlp cnn)
scripts/install-deps.sh python3-torch libopenblas0-pthread
scripts/build.sh >/dev/null
for t in 1 2; do build/bench/sgemm_peak "$t"; done
for m in "${models[@]}"; do
  for t in 1 2; do
    build/bench/train_bench --model "$m" --threads "$t"
    [ "$t" -gt 1 ] && build/bench/train_bench --model "$m" --threads "$t" --blas-threads
    /usr/bin/python3 bench/train/torch_train.py "$m" "$t"
  done
done
