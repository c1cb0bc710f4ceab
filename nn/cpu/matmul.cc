// CPU matrix products: GEMM (OpenBLAS) and the bias a fully connected layer
// adds and its gradient. CUDA twin: nn/cuda/matmul.cu.
#include <cstdint>
#include <cstring>

#include "nn/cpu/ops.h"

extern "C" {
// From OpenBLAS (cblas.h declares it, but its location varies by package).
void cblas_sgemm(int order, int trans_a, int trans_b, int m, int n, int k, float alpha,
                 const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc);
}

namespace sweep::nn::cpu {

namespace {

constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;

}  // namespace

void Gemm(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, const float* b,
          float beta, float* c) {
  cblas_sgemm(kRowMajor, ta ? kTrans : kNoTrans, tb ? kTrans : kNoTrans, m, n, k, alpha, a,
              ta ? m : k, b, tb ? k : n, beta, c, n);
}

void AddBias(float* y, const float* bias, int rows, int cols) {
#pragma omp parallel for schedule(static) if (static_cast <int64_t>(rows) * cols > 65536)
  for (int r = 0; r < rows; ++r) {
    float* row = y + static_cast<size_t>(r) * cols;
    for (int c = 0; c < cols; ++c) row[c] += bias[c];
  }
}

void BiasGrad(const float* dy, float* dbias, int rows, int cols) {
  // Row by row (contiguous, vectorised); the order of the sum is fixed.
  std::memset(dbias, 0, cols * sizeof(float));
  for (int r = 0; r < rows; ++r) {
    const float* row = dy + static_cast<size_t>(r) * cols;
#pragma omp simd
    for (int c = 0; c < cols; ++c) dbias[c] += row[c];
  }
}

}  // namespace sweep::nn::cpu
