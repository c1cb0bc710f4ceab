#!/usr/bin/env bash
# Packs what scripts/gpu-check.sh needs on a GPU machine that has the CUDA
# driver, toolkit and PyTorch but none of our Debian packages: the binaries
# and every shared library they load except glibc and the CUDA family (libcuda,
# cudart, cuBLAS, cuDNN, NCCL come from that machine: its toolkit or the
# nvidia-* libraries PyTorch installs). Output: gpu-bundle/{bin,lib}.
# Usage: scripts/package-gpu.sh   (after scripts/build.sh on a machine with CUDA)
set -euo pipefail
cd "$(dirname "$0")/.."
for f in build/cli/sweep build/tests/cuda_backend_test build/bench/train_bench; do
  [ -x "$f" ] || { echo "missing $f: build with the CUDA toolkit present first" >&2; exit 1; }
done
rm -rf gpu-bundle
mkdir -p gpu-bundle/bin gpu-bundle/lib
cp build/cli/sweep build/tests/cuda_backend_test build/bench/train_bench gpu-bundle/bin/
# The CUDA backend and the CPU convolutions are modules the binaries dlopen;
# they go beside them.
cp build/nn/libsweep_nn_cuda.so build/nn/libsweep_nn_dnnl.so gpu-bundle/bin/
strip --strip-debug gpu-bundle/bin/* 2>/dev/null || true
skip='^(linux-vdso|ld-linux|libc\.|libm\.|libdl\.|libpthread\.|librt\.|libcuda\.|libcudart|libcublas|libcudnn|libnccl|libnvrtc|libnvJitLink)'
for f in gpu-bundle/bin/*; do
  # (ldd lists the module's CUDA libraries as "not found" here only if they are missing.)
  ldd "$f" | awk '/=> \// {print $1, $3}' | while read -r name path; do
    [[ "$name" =~ $skip ]] && continue
    cp -L -n "$path" gpu-bundle/lib/ 2>/dev/null || true
  done
done
du -sh gpu-bundle
