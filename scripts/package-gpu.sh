#!/usr/bin/env bash
# Packs what scripts/gpu-check.sh needs on a GPU machine that has the CUDA
# driver, toolkit and PyTorch but none of our Debian packages, and no network:
#   gpu-bundle/sweep-gpu.tar.xz  bin/ (sweep, cuda_backend_test, train_bench,
#                                the CUDA and oneDNN modules) and lib/, every
#                                shared library they load except glibc's own
#                                and the CUDA family (libcuda, cudart, cuBLAS,
#                                cuDNN, NCCL come from that machine: its
#                                toolkit or the nvidia-* wheels of PyTorch);
#                                lib/fallback/ holds libstdc++, libgcc_s and
#                                libz, used only where the machine lacks them
#                                (gpu-check.sh asks ldconfig)
#   gpu-bundle/fashion-mnist/    the data set, for the real sweeps
# Compressed, so that the bundle, the data set and the tree fit the 64 MiB a
# device call carries.
# Usage: scripts/package-gpu.sh   (after scripts/build.sh on a machine with CUDA)
set -euo pipefail
cd "$(dirname "$0")/.."
for f in build/cli/sweep build/tests/cuda_backend_test build/bench/train_bench \
  build/nn/libsweep_nn_cuda.so build/nn/libsweep_nn_dnnl.so; do
  [ -e "$f" ] || { echo "missing $f: build with the CUDA toolkit present first" >&2; exit 1; }
done
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib/fallback"
cp build/cli/sweep build/tests/cuda_backend_test build/bench/train_bench "$stage/bin/"
# The binaries dlopen the modules from beside themselves.
cp build/nn/libsweep_nn_cuda.so build/nn/libsweep_nn_dnnl.so "$stage/bin/"
strip --strip-debug "$stage"/bin/* 2>/dev/null || true
# glibc's own libraries must come from the machine (they import
# GLIBC_PRIVATE symbols of its libc), and so must the CUDA family.
skip='^(linux-vdso|ld-linux|libc\.|libm\.|libdl\.|libpthread\.|librt\.|libresolv\.|libnsl\.|libutil\.|libanl\.|libnss_|libmvec\.|libcuda\.|libcudart|libcublas|libcudnn|libnccl|libnvrtc|libnvJitLink)'
fallback='^(libstdc\+\+|libgcc_s|libz\.)'
for f in "$stage"/bin/*; do
  ldd "$f" | awk '/=> \// {print $1, $3}' | while read -r name path; do
    [[ "$name" =~ $skip ]] && continue
    dest="$stage/lib"
    [[ "$name" =~ $fallback ]] && dest="$stage/lib/fallback"
    # (not cp -n: from coreutils 9.2 it fails when the file is there)
    [ -e "$dest/$name" ] || cp -L "$path" "$dest/$name"
  done
done
strip --strip-unneeded "$stage"/lib/*.so* 2>/dev/null || true
rm -rf gpu-bundle
mkdir -p gpu-bundle/fashion-mnist
tar -C "$stage" -cf - bin lib | xz -T2 -6 > gpu-bundle/sweep-gpu.tar.xz
data=/usr/share/datasets/fashion-mnist
if [ -d "$data" ]; then
  cp "$data"/*.gz gpu-bundle/fashion-mnist/
else
  echo "no $data (apt-get install dataset-fashion-mnist): the check's sweeps will be skipped" >&2
fi
du -sh "$stage/bin" "$stage/lib" gpu-bundle/sweep-gpu.tar.xz gpu-bundle
