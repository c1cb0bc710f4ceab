#!/usr/bin/env bash
# One prepared check for a machine with an NVIDIA GPU (a few minutes): the
# `gpu` tests, then the GPU benchmark (sweep vs PyTorch samples/s for the
# bench/train MLP and CNN; packing K = 1, 2, 4, 8 trials on one GPU; a real
# sweep with GPU runners). Writes $OUT/summary.md plus the raw outputs.
#
# It runs where the machine has the CUDA driver, toolkit and PyTorch but none
# of our Debian packages: build here with scripts/build.sh, pack with
# scripts/package-gpu.sh, and carry gpu-bundle/ (binaries and their non-CUDA
# libraries, ~55 MB). CUDA libraries (cudart, cuBLAS, cuDNN, NCCL) come from
# that machine: /usr/local/cuda or the nvidia-* packages PyTorch installed.
# Usage: OUT=/tmp/out scripts/gpu-check.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-/tmp/gpu-check}"
mkdir -p "$OUT"
S="$OUT/summary.md"
: > "$S"
say() { echo "$*" | tee -a "$S"; }

if [ -d gpu-bundle/bin ]; then
  BIN=gpu-bundle/bin
  LIBS="$PWD/gpu-bundle/lib"
else
  BIN=build/cli
  LIBS=""
fi
TESTBIN="$BIN/cuda_backend_test"; [ -x "$TESTBIN" ] || TESTBIN=build/tests/cuda_backend_test
BENCH="$BIN/train_bench"; [ -x "$BENCH" ] || BENCH=build/bench/train_bench
MOD="$BIN/libsweep_nn_cuda.so"; [ -f "$MOD" ] || MOD=build/nn/libsweep_nn_cuda.so
# CUDA libraries of this machine: the toolkit, then PyTorch's nvidia-* wheels.
PY=$(command -v python3 || true)
TORCH_LIBS=""
if [ -n "$PY" ]; then
  TORCH_LIBS=$("$PY" - <<'PYEOF' 2>/dev/null
import glob, os, site
dirs = []
for base in site.getsitepackages() + [site.getusersitepackages()]:
    dirs += glob.glob(os.path.join(base, "nvidia", "*", "lib"))
    dirs += glob.glob(os.path.join(base, "torch", "lib"))
print(":".join(dirs))
PYEOF
)
fi
export LD_LIBRARY_PATH="${LIBS}:/usr/local/cuda/lib64:/usr/local/cuda/lib:${TORCH_LIBS}:${LD_LIBRARY_PATH:-}"

say "# gpu-check $(date -u +%FT%TZ)"
say ""
say '```'
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | tee -a "$S"
say '```'
missing=$(ldd "$BIN/sweep" "$TESTBIN" "$BENCH" "$MOD" 2>&1 | grep "not found" | sort -u)
if [ -n "$missing" ]; then
  say "FAIL: shared libraries not found:"
  say "$missing"
  exit 1
fi

status=0
say ""
say "## gpu tests"
timeout 240 "$TESTBIN" --gtest_output=json:"$OUT/gpu_tests.json" > "$OUT/gpu_tests.log" 2>&1
rc=$?
grep -E "^\[  (PASSED|FAILED|SKIPPED) \]|Failure|NCCL all-reduce" "$OUT/gpu_tests.log" | tee -a "$S"
[ $rc -eq 0 ] || { say "gpu tests FAILED (rc $rc); see gpu_tests.log"; status=1; }
if grep -q "^\[  PASSED  \] 0 tests" "$OUT/gpu_tests.log"; then
  say "gpu tests did not run on a GPU (all skipped): this check needs a visible CUDA device"
  status=1
fi

say ""
say "## samples/s, one epoch, batch 128, SGD momentum 0.9 (synthetic 28x28 data)"
say ""
say "| model | sweep (CUDA) | PyTorch | ratio |"
say "|---|---|---|---|"
for m in mlp cnn; do
  ours=$(timeout 120 "$BENCH" --backend cuda --synthetic --model "$m" 2>"$OUT/bench_$m.err" | tail -1)
  echo "$ours" > "$OUT/bench_$m.json"
  theirs=""
  [ -n "$PY" ] && theirs=$(timeout 180 "$PY" bench/gpu/torch_gpu.py "$m" 2>"$OUT/torch_$m.err" | tail -1)
  echo "$theirs" > "$OUT/torch_$m.json"
  a=$(echo "$ours" | sed -n 's/.*"samples_per_s": \([0-9.]*\).*/\1/p')
  b=$(echo "$theirs" | sed -n 's/.*"samples_per_s": \([0-9.]*\).*/\1/p')
  r=$([ -n "$a" ] && [ -n "$b" ] && awk "BEGIN {printf \"%.2f\", $a / $b}")
  say "| $m | ${a:-error} | ${b:-error} | ${r:-} |"
done

say ""
say "## packing: K MLP trials at once on GPU 0 (separate processes)"
say ""
say "| K | wall s | samples/s in all | vs K=1 |"
say "|---|---|---|---|"
base=""
for k in 1 2 4 8; do
  start=$(date +%s.%N)
  pids=()
  for i in $(seq 1 "$k"); do
    timeout 240 "$BENCH" --backend cuda --synthetic --model mlp > "$OUT/pack_${k}_$i.json" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  end=$(date +%s.%N)
  ok=$(cat "$OUT"/pack_"${k}"_*.json | grep -c samples_per_s)
  if [ "$ok" -ne "$k" ]; then
    say "| $k | error: $((k - ok)) of $k runs failed (pack_${k}_*.json) | | |"
    status=1
    continue
  fi
  tput=$(awk "BEGIN {printf \"%.0f\", $k * 60000 / ($end - $start)}")
  [ -z "$base" ] && base=$tput
  say "| $k | $(awk "BEGIN {printf \"%.1f\", $end - $start}") | $tput | $(awk "BEGIN {printf \"%.2f\", $tput / $base}") |"
done

say ""
say "## a sweep with GPU runners (--gpus 0 --trials-per-gpu 2)"
tmp=$(mktemp -d)
cat > "$tmp/s.yaml" <<'YAML'
name: gpu-smoke
objective: {metric: val_accuracy, goal: maximize}
task:
  train: {model: mlp, epochs: 2, validation: 50000, data_dir: DATA}
algorithm: {type: random, max_trials: 4}
seed: 1
parameters:
  lr: {type: float, min: 0.01, max: 0.1, log: true}
YAML
if [ -d /usr/share/datasets/fashion-mnist ]; then
  sed -i "s#DATA#/usr/share/datasets/fashion-mnist#" "$tmp/s.yaml"
  timeout 180 "$BIN/sweep" run "$tmp/s.yaml" --db "$tmp/s.db" --gpus 0 --trials-per-gpu 2 \
    --progress plain > "$OUT/sweep.log" 2>&1
  rc=$?
  grep -E "joined|best trial|final metrics|study" "$OUT/sweep.log" | tee -a "$S"
  [ $rc -eq 0 ] || { say "sweep FAILED (rc $rc); see sweep.log"; status=1; }
else
  say "skipped: no Fashion-MNIST on this machine (runner flags are covered by the tests above)"
fi
rm -rf "$tmp"
say ""
say "gpu-check: $([ $status -eq 0 ] && echo PASSED || echo FAILED)"
exit $status
