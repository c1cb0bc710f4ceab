// CUDA matrix products: GEMM (cuBLAS), the bias a fully connected layer adds
// and its gradient, and the grouped sum that bias gradients use. CPU twin:
// nn/cpu/matmul.cc.
#include <cublas_v2.h>

#include "nn/cuda/cuda_backend.cuh"
#include "nn/cuda/launch.cuh"

namespace sweep::nn::cuda {

namespace {

__global__ void AddBiasKernel(float* y, const float* bias, size_t rows, size_t cols) {
  GRID_STRIDE(i, rows * cols) { y[i] += bias[i % cols]; }
}

// out[j] = sum over i < outer, k < inner of x[(i * groups + j) * inner + k]:
// one block per group j, a fixed tree order.
__global__ void GroupSumKernel(const float* x, float* out, int outer, int groups, int inner) {
  __shared__ double part[kReduceThreads];
  const int j = blockIdx.x;
  double s = 0;
  const size_t total = static_cast<size_t>(outer) * inner;
  for (size_t t = threadIdx.x; t < total; t += kReduceThreads) {
    size_t i = t / inner, k = t % inner;
    s += x[(i * groups + j) * inner + k];
  }
  part[threadIdx.x] = s;
  __syncthreads();
  for (int w = kReduceThreads / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[j] = static_cast<float>(part[0]);
}

}  // namespace

void GroupSum(const float* x, float* out, int outer, int groups, int inner, cudaStream_t stream) {
  GroupSumKernel<<<groups, kReduceThreads, 0, stream>>>(x, out, outer, groups, inner);
  SWEEP_CUDA(cudaGetLastError());
}

// Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T.
void CudaBackend::Gemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a,
                       const float* b, float beta, float* c) {
  int lda = trans_a ? m : k, ldb = trans_b ? k : n;
  SWEEP_CUBLAS(cublasSgemm(blas_, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N,
                           trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &alpha, b, ldb, a, lda,
                           &beta, c, n));
}
void CudaBackend::AddBias(float* y, const float* bias, int rows, int cols) {
  size_t n = static_cast<size_t>(rows) * cols;
  AddBiasKernel<<<Blocks(n), kThreads, 0, stream_>>>(y, bias, rows, cols);
  SWEEP_CUDA(cudaGetLastError());
}
void CudaBackend::BiasGrad(const float* dy, float* dbias, int rows, int cols) {
  GroupSum(dy, dbias, rows, cols, 1, stream_);
}

}  // namespace sweep::nn::cuda
