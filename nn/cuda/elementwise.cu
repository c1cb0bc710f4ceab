// CUDA element-wise products: inverted dropout and Mul. CPU twin:
// nn/cpu/elementwise.cc.
#include "nn/cuda/cuda_backend.cuh"
#include "nn/cuda/launch.cuh"

namespace sweep::nn::cuda {

namespace {

__device__ uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The same mask as the CPU backend: element i keeps iff SplitMix64(seed +
// i * golden) >= p * 2^64.
__global__ void DropoutKernel(float keep, uint64_t threshold, uint64_t seed, const float* x,
                              float* y, float* mask, size_t n) {
  GRID_STRIDE(i, n) {
    float m = SplitMix64(seed + i * 0x9e3779b97f4a7c15ULL) >= threshold ? keep : 0.f;
    mask[i] = m;
    y[i] = x[i] * m;
  }
}

__global__ void MulKernel(const float* a, const float* b, float* y, size_t n) {
  GRID_STRIDE(i, n) { y[i] = a[i] * b[i]; }
}

}  // namespace

void CudaBackend::DropoutForward(float p, uint64_t seed, const float* x, float* y, float* mask,
                                 size_t n) {
  const float keep = 1.f / (1.f - p);
  const uint64_t threshold = static_cast<uint64_t>(static_cast<double>(p) * 18446744073709551616.0);
  DropoutKernel<<<Blocks(n), kThreads, 0, stream_>>>(keep, threshold, seed, x, y, mask, n);
  SWEEP_CUDA(cudaGetLastError());
}
void CudaBackend::Mul(const float* a, const float* b, float* y, size_t n) {
  MulKernel<<<Blocks(n), kThreads, 0, stream_>>>(a, b, y, n);
  SWEEP_CUDA(cudaGetLastError());
}

}  // namespace sweep::nn::cuda
