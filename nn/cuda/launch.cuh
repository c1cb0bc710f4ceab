// What every CUDA op file (nn/cuda/NAME.cu) shares: the error checks, which
// turn a CUDA, cuBLAS or cuDNN failure into a CudaError naming the call and
// the place, the launch shape, and the grid-stride loop.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstddef>
#include <string>

#include "nn/cuda/cuda_error.h"

namespace sweep::nn::cuda {

constexpr int kThreads = 256;
constexpr int kReduceThreads = 256;  // fixed: the reduction order depends on it

inline unsigned Blocks(size_t n) {
  size_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b > 65535u * 32u ? 65535u * 32u : (b == 0 ? 1 : b));
}

#define SWEEP_CUDA(expr) ::sweep::nn::cuda::CheckCuda((expr), #expr, __FILE__, __LINE__)
#define SWEEP_CUBLAS(expr) ::sweep::nn::cuda::CheckCublas((expr), #expr, __FILE__, __LINE__)
#define SWEEP_CUDNN(expr) ::sweep::nn::cuda::CheckCudnn((expr), #expr, __FILE__, __LINE__)

// Whether the process's CUDA context is still usable after an error: a
// sticky error (an illegal address, a failed launch, ECC) makes every later
// call fail too, so a device sync tells them apart. An error the call's own
// arguments caused (an invalid value, a shape cuDNN does not support) leaves
// the context usable: the trial fails and the runner goes on.
inline bool ContextLost() {
  cudaGetLastError();  // clear a non-sticky error, if that is what it was
  return cudaDeviceSynchronize() != cudaSuccess;
}

inline void CheckCuda(cudaError_t e, const char* what, const char* file, int line) {
  if (e == cudaSuccess) return;
  throw CudaError(std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e) + " (" + what +
                      " at " + file + ":" + std::to_string(line) + ")",
                  e != cudaErrorMemoryAllocation && ContextLost());
}

inline void CheckCublas(cublasStatus_t s, const char* what, const char* file, int line) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  throw CudaError("cuBLAS error " + std::to_string(static_cast<int>(s)) + " (" + what + " at " +
                      file + ":" + std::to_string(line) + ")",
                  s != CUBLAS_STATUS_ALLOC_FAILED && ContextLost());
}

inline void CheckCudnn(cudnnStatus_t s, const char* what, const char* file, int line) {
  if (s == CUDNN_STATUS_SUCCESS) return;
  throw CudaError(std::string("cuDNN: ") + cudnnGetErrorString(s) + " (" + what + " at " + file +
                      ":" + std::to_string(line) + ")",
                  s != CUDNN_STATUS_ALLOC_FAILED && ContextLost());
}

#define GRID_STRIDE(i, n)                                                 \
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < (n); \
       i += size_t{blockDim.x} * gridDim.x)

// out[j] = sum over i < outer, k < inner of x[(i * groups + j) * inner + k],
// one block per group, in a fixed order (matmul.cu; bias gradients use it).
void GroupSum(const float* x, float* out, int outer, int groups, int inner, cudaStream_t stream);

}  // namespace sweep::nn::cuda
