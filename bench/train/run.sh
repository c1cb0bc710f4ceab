#!/usr/bin/env bash
# bench/train: training samples/s and test accuracy after one epoch (batch
# 128, SGD momentum 0.9, lr 0.05) for the benchmark MLP and CNN, sweep's nn/
# against PyTorch 2.15 from PyPI (in bench/.venv-torch2, which this script
# makes; its CPU convolutions run on oneDNN 3) and Debian's PyTorch 1.13 (on
# libopenblas0-pthread), 1 and 2 threads each, alternating, ROUNDS times in
# one run on one machine; plus the OpenBLAS SGEMM peak.
# Usage: [THREADS="1 2"] [DEBIAN_TORCH=1] [EPOCHS=1] bench/train/run.sh [ROUNDS] [mlp] [cnn]
# THREADS picks the thread counts; DEBIAN_TORCH=0 leaves Debian's PyTorch 1.13
# (and the --blas-threads variant) out, for a quick sweep-against-2.15 run.
# EPOCHS (default 1) trains that many epochs per run and prints each epoch's
# rate: an MLP epoch lasts under a second, so one epoch is at the mercy of a
# shared VM's stalls; EPOCHS=5 gives five samples a run.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=1
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then rounds=$1; shift; fi
models=("$@")
[ ${#models[@]} -eq 0 ] && models=(mlp cnn)
read -r -a threads <<< "${THREADS:-1 2}"
epochs=${EPOCHS:-1}
debian_torch=${DEBIAN_TORCH:-1}
if [ "$debian_torch" = 1 ]; then
  scripts/install-deps.sh python3-torch libopenblas0-pthread python3-venv
else
  scripts/install-deps.sh python3-venv
fi
venv=bench/.venv-torch2
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import torch' 2>/dev/null; then
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/pip" install -q torch==2.15.0 numpy
fi
scripts/build.sh >/dev/null
for t in "${threads[@]}"; do build/bench/sgemm_peak "$t"; done
for _ in $(seq "$rounds"); do
  for m in "${models[@]}"; do
    for t in "${threads[@]}"; do
      build/bench/train_bench --model "$m" --threads "$t" --epochs "$epochs"
      if [ "$debian_torch" = 1 ] && [ "$t" -gt 1 ]; then
        build/bench/train_bench --model "$m" --threads "$t" --epochs "$epochs" --blas-threads
      fi
      "$venv/bin/python" bench/train/torch_train.py "$m" "$t" "$epochs"
      if [ "$debian_torch" = 1 ]; then /usr/bin/python3 bench/train/torch_train.py "$m" "$t" "$epochs"; fi
    done
  done
done
