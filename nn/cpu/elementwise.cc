// CPU element-wise products: inverted dropout and Mul. CUDA twin:
// nn/cuda/elementwise.cu.
#include <cstddef>
#include <cstdint>

#include "common/rng.h"
#include "nn/cpu/ops.h"

namespace sweep::nn::cpu {

void DropoutForward(float p, uint64_t seed, const float* x, float* y, float* mask, size_t n) {
  const float keep = 1.f / (1.f - p);
  const uint64_t threshold = static_cast<uint64_t>(static_cast<double>(p) * 18446744073709551616.0);
#pragma omp parallel for schedule(static) if (n > 65536)
  for (size_t i = 0; i < n; ++i) {
    mask[i] = SplitMix64(seed + i * 0x9e3779b97f4a7c15ULL) >= threshold ? keep : 0.f;
    y[i] = x[i] * mask[i];
  }
}

void Mul(const float* a, const float* b, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = a[i] * b[i];
}

}  // namespace sweep::nn::cpu
