#!/usr/bin/env bash
# bench/train: training samples/s and test accuracy after one epoch (batch
# 128, SGD momentum 0.9, lr 0.05) for the benchmark MLP and CNN, sweep's nn/
# against PyTorch 2.15 from PyPI (in bench/.venv-torch2, which this script
# makes; its CPU convolutions run on oneDNN 3) and Debian's PyTorch 1.13 (on
# libopenblas0-pthread), 1 and 2 threads each, alternating, ROUNDS times in
# one run on one machine; plus the OpenBLAS SGEMM peak.
# Usage: bench/train/run.sh [ROUNDS] [mlp] [cnn]
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=1
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then rounds=$1; shift; fi
models=("$@")
[ ${#models[@]} -eq 0 ] && models=(mlp cnn)
scripts/install-deps.sh python3-torch libopenblas0-pthread python3-venv
venv=bench/.venv-torch2
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import torch' 2>/dev/null; then
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/pip" install -q torch==2.15.0 numpy
fi
scripts/build.sh >/dev/null
for t in 1 2; do build/bench/sgemm_peak "$t"; done
for r in $(seq "$rounds"); do
  for m in "${models[@]}"; do
    for t in 1 2; do
      build/bench/train_bench --model "$m" --threads "$t"
      [ "$t" -gt 1 ] && build/bench/train_bench --model "$m" --threads "$t" --blas-threads
      "$venv/bin/python" bench/train/torch_train.py "$m" "$t"
      /usr/bin/python3 bench/train/torch_train.py "$m" "$t"
    done
  done
done
