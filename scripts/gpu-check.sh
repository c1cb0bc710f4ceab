#!/usr/bin/env bash
# One prepared check for a machine with an NVIDIA GPU, inside an overall
# deadline (GPU_CHECK_SECONDS, default 390 s; every step has its own timeout
# and is skipped when it would pass the deadline), in priority order:
#   1. facts (GPU, driver, compute mode, glibc, PyTorch, cuDNN) and a probe:
#      one short CUDA epoch; if that fails the check stops and says why
#   2. the `gpu` tests (cuda_backend_test)
#   3. samples/s for the bench/train MLP and CNN against PyTorch, the same
#      warm epochs on both sides (each side's median of epochs 2-4)
#   4. a real sweep of examples/fashion_mnist_cnn.yaml with GPU runners
#   5. packing K = 1, 2, 4, 8 MLP trials (separate processes, PACK_EPOCHS
#      epochs each, default 20) on GPU 0: all samples over the wall time,
#      and the sum of each process's last-epoch rate; then under MPS
#   6. the same sweep on the CPU, for its wall time and accuracy (for
#      comparison: its timeout does not fail the check)
#   7. compute-sanitizer memcheck over the op tests (reported, not gating)
# GPU_CHECK_STEPS picks steps 2-7 (default: "tests bench sweep pack cpu
# sanitizer"); the facts and the probe always run.
# Writes at most 5 files to $OUT, each as it goes (a timeout keeps them):
# summary.md, details.log, gpu_tests.log, sweep_gpu.log, sweep_cpu.log.
#
# Runs where the machine has the CUDA driver, toolkit and PyTorch but none of
# our Debian packages: build here (scripts/build.sh), pack with
# scripts/package-gpu.sh and carry gpu-bundle/. Our libraries go on
# LD_LIBRARY_PATH for our binaries only, never for Python; the CUDA libraries
# (cudart, cuBLAS, cuDNN, NCCL) come from that machine: /usr/local/cuda or
# the nvidia-* wheels PyTorch installed.
# Usage: OUT=/tmp/out scripts/gpu-check.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-/tmp/gpu-check}"
mkdir -p "$OUT"
S="$OUT/summary.md"
D="$OUT/details.log"
: > "$S"
: > "$D"
deadline=$((SECONDS + ${GPU_CHECK_SECONDS:-390}))
status=0
STEPS=" ${GPU_CHECK_STEPS:-tests bench sweep pack cpu sanitizer} "
PACK_EPOCHS=${PACK_EPOCHS:-20}
want() { [[ "$STEPS" == *" $1 "* ]]; }
say() { echo "$*" | tee -a "$S"; }
log() { echo "$*" >> "$D"; }
# step T CMD...: runs CMD with timeout T, cut to the time left; skipped (rc
# 125) when under 15 s are left.
step() {
  local t=$1 left=$((deadline - SECONDS))
  shift
  if [ "$left" -lt 15 ]; then
    say "skipped (overall deadline): $*"
    return 125
  fi
  [ "$t" -gt "$left" ] && t=$left
  timeout -k 5 "$t" "$@"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -f gpu-bundle/sweep-gpu.tar.xz ]; then
  tar -C "$work" -xJf gpu-bundle/sweep-gpu.tar.xz
  BIN="$work/bin"
  LIBS="$work/lib"
else  # a build on this machine
  mkdir -p "$work/bin"
  for f in build/cli/sweep build/tests/cuda_backend_test build/bench/train_bench \
    build/nn/libsweep_nn_cuda.so build/nn/libsweep_nn_dnnl.so; do
    ln -s "$PWD/$f" "$work/bin/"
  done
  BIN="$work/bin"
  LIBS=""
fi
DATA=""
for d in "$PWD/gpu-bundle/fashion-mnist" /usr/share/datasets/fashion-mnist; do
  [ -f "$d/train-images-idx3-ubyte.gz" ] && { DATA=$d; break; }
done
PY=$(command -v python3 || true)
TORCH_LIBS=""
if [ -n "$PY" ]; then
  TORCH_LIBS=$("$PY" - <<'PYEOF' 2>/dev/null
import glob, os, site
dirs = []
for base in site.getsitepackages() + [site.getusersitepackages()]:
    dirs += sorted(glob.glob(os.path.join(base, "nvidia", "*", "lib")))
print(":".join(dirs))
PYEOF
)
fi
# For our binaries only (Python keeps the machine's own libraries); no empty
# entries, which would mean the current folder.
OURS_LD=$(echo "$LIBS:/usr/local/cuda/lib64:$TORCH_LIBS:${LIBS:+$LIBS/fallback}" | tr -s ':' | sed 's/^://; s/:$//')
OURS=(env LD_LIBRARY_PATH="$OURS_LD" SWEEP_CUDA_MODULE="$BIN/libsweep_nn_cuda.so"
  SWEEP_DNNL_MODULE="$BIN/libsweep_nn_dnnl.so" NCCL_SOCKET_IFNAME=lo NCCL_DEBUG=WARN
  OPENBLAS_NUM_THREADS=1)
# The fallbacks (libstdc++, libgcc_s, libz) only where the machine's own will
# not do: LD_LIBRARY_PATH comes before the system's folders, so a fallback
# there always wins. Each is set aside, and put back if anything then misses
# a library or a symbol version.
if [ -n "$LIBS" ]; then
  for f in "$LIBS"/fallback/*; do
    [ -e "$f" ] || continue
    mv "$f" "$f.unused"
    if "${OURS[@]}" ldd "$BIN"/* 2>&1 | grep -q "not found"; then mv "$f.unused" "$f"; fi
  done
fi
# The last "samples_per_s" of a train_bench output, or the median of its
# epochs 2.. (warm) when there are 3 or more.
sps() {
  grep -o '"samples_per_s": [0-9.]*' | awk '{v[NR] = $2} END {
    if (NR == 0) exit; if (NR < 3) {print v[NR]; exit}
    n = 0; for (i = 2; i <= NR; i++) w[++n] = v[i];
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (w[j] < w[i]) {t = w[i]; w[i] = w[j]; w[j] = t}
    print (n % 2) ? w[(n + 1) / 2] : (w[n / 2] + w[n / 2 + 1]) / 2 }'
}

say "# gpu-check $(date -u +%FT%TZ)"
say ""
say '```'
nvidia-smi --query-gpu=name,driver_version,memory.total,compute_mode --format=csv,noheader 2>&1 | tee -a "$S"
say "$(ldd --version 2>&1 | head -1)"
[ -n "$PY" ] && say "$("$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())' 2>&1 | tail -1)"
say "$(grep -m1 'model name' /proc/cpuinfo), $(nproc) cores"
say "OpenBLAS core: $(env OPENBLAS_VERBOSE=2 "${OURS[@]}" "$BIN/train_bench" --help 2>&1 | grep -i -m1 core)"
say "LD for ours: $OURS_LD (fallbacks used: $(ls "$LIBS/fallback" 2>/dev/null | grep -v unused | tr '\n' ' '))"
say '```'
missing=$("${OURS[@]}" ldd "$BIN"/* 2>&1 | grep -E "not found|version .* not found" | sort -u)
if [ -n "$missing" ]; then
  say "FAIL: shared libraries not found:"
  say "$missing"
  exit 1
fi

say ""
say "## probe: one CUDA epoch of the MLP"
probe=$(step 60 "${OURS[@]}" "$BIN/train_bench" --backend cuda --synthetic --model mlp --epochs 1 2>&1)
log "== probe"$'\n'"$probe"
if ! echo "$probe" | grep -q samples_per_s; then
  say "FAIL: the CUDA probe did not train; the check stops here:"
  say '```'
  say "$(echo "$probe" | tail -20)"
  say '```'
  exit 1
fi
say "$(echo "$probe" | tail -1)"

if want tests; then
say ""
say "## gpu tests"
step 150 "${OURS[@]}" "$BIN/cuda_backend_test" > "$OUT/gpu_tests.log" 2>&1
rc=$?
grep -E '^\[  (PASSED|FAILED) +\]|^\[  SKIPPED \]|Failure|NCCL|no CUDA' "$OUT/gpu_tests.log" | tee -a "$S"
[ $rc -eq 0 ] || { say "gpu tests FAILED (rc $rc); see gpu_tests.log"; status=1; }
if grep -qE '^\[  PASSED  \] 0 tests' "$OUT/gpu_tests.log"; then
  say "gpu tests did not run on a GPU (all skipped)"
  status=1
fi
if [ $rc -ne 0 ]; then
  # Which part is at fault: each test alone, then with OpenBLAS's generic
  # AVX2 kernels in place of the ones it picked for this CPU.
  say ""
  say "| test | alone | OPENBLAS_CORETYPE=Haswell |"
  say "|---|---|---|"
  for t in $("${OURS[@]}" "$BIN/cuda_backend_test" --gtest_list_tests 2>/dev/null | awk '/^  / {print $1}'); do
    a=$(step 40 "${OURS[@]}" "$BIN/cuda_backend_test" --gtest_filter="CudaTest.$t" 2>&1)
    ra=$?
    log "== $t alone (rc $ra)"$'\n'"$(echo "$a" | tail -15)"
    rb=""
    if [ $ra -ne 0 ]; then
      b=$(step 40 "${OURS[@]}" OPENBLAS_CORETYPE=Haswell "$BIN/cuda_backend_test" --gtest_filter="CudaTest.$t" 2>&1)
      rb="rc $?"
      log "== $t Haswell ($rb)"$'\n'"$(echo "$b" | tail -15)"
    fi
    say "| $t | rc $ra | $rb |"
  done
fi
fi

if want bench; then
say ""
say "## samples/s, batch 128, SGD momentum 0.9, synthetic 28x28 data: median of warm epochs 2-4"
say ""
say "PyTorch fed from host memory per batch (as sweep) and from a data set already on the GPU."
say ""
say "| model | sweep (CUDA) | PyTorch, host | PyTorch, on GPU | sweep / host | sweep / on GPU |"
say "|---|---|---|---|---|---|"
for m in mlp cnn; do
  o=$(step 90 "${OURS[@]}" "$BIN/train_bench" --backend cuda --synthetic --model "$m" --epochs 4 2>&1)
  log "== bench sweep $m"$'\n'"$o"
  t=""
  [ -n "$PY" ] && t=$(step 120 "$PY" bench/gpu/torch_gpu.py "$m" 2>&1)
  log "== bench torch $m"$'\n'"$t"
  a=$(echo "$o" | sps)
  b=$(echo "$t" | grep '"mode": "host"' | sps)
  c=$(echo "$t" | grep '"mode": "device"' | sps)
  r=$([ -n "$a" ] && [ -n "$b" ] && awk "BEGIN {printf \"%.2f\", $a / $b}")
  q=$([ -n "$a" ] && [ -n "$c" ] && awk "BEGIN {printf \"%.2f\", $a / $c}")
  say "| $m | ${a:-error} | ${b:-error} | ${c:-error} | ${r:-} | ${q:-} |"
  [ -n "$r" ] || status=1
done
fi

# run_sweep NAME FLAGS...: the CNN example on the carried data set. The
# CPU run is for comparison only: its timeout does not fail the check.
run_sweep() {
  local name=$1
  shift
  if [ -z "$DATA" ]; then
    say "skipped: no Fashion-MNIST here"
    return
  fi
  sed "s#dataset: fashion-mnist#data_dir: $DATA#" examples/fashion_mnist_cnn.yaml > "$work/$name.yaml"
  local t0=$SECONDS
  step 150 "${OURS[@]}" "$BIN/sweep" run "$work/$name.yaml" --db "$work/$name.db" "$@" --progress plain \
    > "$OUT/sweep_$name.log" 2>&1
  local rc=$? wall=$((SECONDS - t0))
  "${OURS[@]}" "$BIN/sweep" trials --db "$work/$name.db" >> "$OUT/sweep_$name.log" 2>&1
  local done_n best
  done_n=$("${OURS[@]}" "$BIN/sweep" trials --db "$work/$name.db" --status completed --format csv 2>/dev/null | tail -n +2 | wc -l)
  best=$("${OURS[@]}" "$BIN/sweep" best --db "$work/$name.db" --format json 2>/dev/null | tr -d '\n' | grep -o '"test_accuracy": *[0-9.]*' | head -1)
  say "| $name | $* | rc $rc | ${wall} s | $done_n completed | best: ${best:-none} |"
  [ $rc -eq 0 ] || { [ "$name" = cpu ] && [ $rc -eq 124 ]; } || status=1
}

if want sweep; then
say ""
say "## a real sweep: examples/fashion_mnist_cnn.yaml (4 trials x 8 epochs)"
say ""
say "| run | flags | exit | wall | trials | best trial's test accuracy |"
say "|---|---|---|---|---|---|"
run_sweep gpu --gpus 0 --trials-per-gpu 4
fi

if want pack; then
say ""
say "## packing: K MLP trials at once on GPU 0 (separate processes, $PACK_EPOCHS epochs each)"
say ""
say "Throughput: all samples trained over the wall time from the first start to the last end"
say "(process starts included, so it understates); also the sum of each process's last-epoch rate."
say ""
say "| K | MPS | wall s | samples/s (wall) | vs K=1 | sum of last-epoch rates | vs K=1 |"
say "|---|---|---|---|---|---|---|"
pack() {
  local k=$1 mps=$2 t0 t1 pids=() i
  t0=$(date +%s%N)
  for i in $(seq 1 "$k"); do
    step 120 "${OURS[@]}" "$BIN/train_bench" --backend cuda --synthetic --model mlp \
      --epochs "$PACK_EPOCHS" > "$work/pack_$i" 2>&1 &
    pids+=($!)
  done
  for i in "${pids[@]}"; do wait "$i"; done
  t1=$(date +%s%N)
  local sum=0 ok=0 v
  for i in $(seq 1 "$k"); do
    cat "$work/pack_$i" >> "$D"
    [ "$(grep -c samples_per_s "$work/pack_$i")" -eq "$PACK_EPOCHS" ] || continue
    v=$(grep -o '"samples_per_s": [0-9.]*' "$work/pack_$i" | tail -1 | awk '{print $2}')
    ok=$((ok + 1))
    sum=$(awk "BEGIN {print $sum + $v}")
  done
  if [ "$ok" -ne "$k" ]; then
    say "| $k | $mps | error: $((k - ok)) of $k did not finish (details.log) | | | | |"
    status=1
    return
  fi
  local wall wall_rate
  wall=$(awk "BEGIN {printf \"%.2f\", ($t1 - $t0) / 1e9}")
  wall_rate=$(awk "BEGIN {printf \"%.0f\", $k * $PACK_EPOCHS * 60000 / $wall}")
  if [ "$k" -eq 1 ]; then
    base_wall=$wall_rate
    base_sum=$sum
  fi
  local rw=n/a rs=n/a
  [ -n "$base_wall" ] && rw=$(awk "BEGIN {printf \"%.2f\", $wall_rate / $base_wall}")
  [ -n "$base_sum" ] && rs=$(awk "BEGIN {printf \"%.2f\", $sum / $base_sum}")
  say "| $k | $mps | $wall | $wall_rate | $rw | $(printf %.0f "$sum") | $rs |"
}
base_wall=""
base_sum=""
for k in 1 2 4 8; do pack "$k" no; done
MPS=$(command -v nvidia-cuda-mps-control || ls /usr/local/nvidia/bin/nvidia-cuda-mps-control 2>/dev/null || true)
if [ -n "$MPS" ] && [ $((deadline - SECONDS)) -gt 60 ]; then
  export CUDA_MPS_PIPE_DIRECTORY="$work/mps-pipe" CUDA_MPS_LOG_DIRECTORY="$work/mps-log"
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  if timeout 15 "$MPS" -d >> "$D" 2>&1; then
    sleep 1
    base_wall=""
    base_sum=""
    for k in 1 2 4 8; do pack "$k" yes; done
    echo quit | timeout 15 "$MPS" >> "$D" 2>&1
    cat "$CUDA_MPS_LOG_DIRECTORY"/control.log >> "$D" 2>/dev/null
  else
    say "MPS: the control daemon did not start (details.log)"
  fi
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
else
  say "MPS: not measured (${MPS:-no nvidia-cuda-mps-control}; $((deadline - SECONDS)) s left)"
fi
fi

if want cpu; then
say ""
say "## the same sweep on the CPU ($(nproc) cores, 4 local runners)"
say ""
say "| run | flags | exit | wall | trials | best trial's test accuracy |"
say "|---|---|---|---|---|---|"
run_sweep cpu --local-runners 4
fi

want sanitizer && {
say ""
say "## compute-sanitizer memcheck on the op tests"
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
if [ -n "$CS" ]; then
  cs=$(step 90 "${OURS[@]}" "$CS" --tool memcheck --error-exitcode 9 "$BIN/cuda_backend_test" \
    --gtest_filter='CudaTest.*-CudaTest.OutOfMemory*:CudaTest.Nccl*:CudaTest.DataParallel*' 2>&1)
  rc=$?
  log "== compute-sanitizer (rc $rc)"$'\n'"$cs"
  say "rc $rc: $(echo "$cs" | grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED) +\]' | tr '\n' ' ')"
else
  say "not run: no compute-sanitizer"
fi
}

say ""
say "gpu-check: $([ $status -eq 0 ] && echo PASSED || echo FAILED) in $SECONDS s"
exit $status
