// CPU optimizer steps: SGD (momentum, Nesterov, weight decay) and Adam/AdamW.
// CUDA twin: nn/cuda/optimizer.cu.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "nn/cpu/ops.h"

namespace sweep::nn::cpu {

namespace {

// Serial and branch-free with non-aliasing pointers, so GCC vectorises it
// (see ReluSerial in activation.cc); the parallel loops in SgdStep are used
// only for large buffers on several threads.
void SgdSerial(float* __restrict p, const float* __restrict g, float* __restrict v, size_t n,
               float lr, float momentum, bool nesterov, float wd) {
  if (momentum == 0.f) {
    for (size_t i = 0; i < n; ++i) p[i] -= lr * (g[i] + wd * p[i]);
  } else if (nesterov) {
    for (size_t i = 0; i < n; ++i) {
      float grad = g[i] + wd * p[i];
      v[i] = momentum * v[i] + grad;
      p[i] -= lr * (grad + momentum * v[i]);
    }
  } else {
    for (size_t i = 0; i < n; ++i) {
      v[i] = momentum * v[i] + g[i] + wd * p[i];
      p[i] -= lr * v[i];
    }
  }
}

}  // namespace

void SgdStep(float* p, const float* g, float* v, size_t n, float lr, float momentum, bool nesterov,
             float weight_decay, int threads) {
  // Branch-free loops per variant, so each vectorises.
  const bool par = threads > 1 && n > 65536;
  if (!par) return SgdSerial(p, g, v, n, lr, momentum, nesterov, weight_decay);
  if (momentum == 0.f) {
#pragma omp parallel for simd schedule(static) if (par)
    for (size_t i = 0; i < n; ++i) p[i] -= lr * (g[i] + weight_decay * p[i]);
  } else if (nesterov) {
#pragma omp parallel for simd schedule(static) if (par)
    for (size_t i = 0; i < n; ++i) {
      float grad = g[i] + weight_decay * p[i];
      v[i] = momentum * v[i] + grad;
      p[i] -= lr * (grad + momentum * v[i]);
    }
  } else {
#pragma omp parallel for simd schedule(static) if (par)
    for (size_t i = 0; i < n; ++i) {
      v[i] = momentum * v[i] + g[i] + weight_decay * p[i];
      p[i] -= lr * v[i];
    }
  }
}

void AdamStep(float* p, const float* g, float* m, float* v, size_t n, float lr, float beta1,
              float beta2, float eps, float weight_decay, bool decoupled, int64_t t) {
  const float c1 = 1.f - std::pow(beta1, static_cast<float>(t)),
              c2 = 1.f - std::pow(beta2, static_cast<float>(t));
#pragma omp parallel for schedule(static) if (n > 65536)
  for (size_t i = 0; i < n; ++i) {
    float grad = g[i];
    if (decoupled)
      p[i] *= 1.f - lr * weight_decay;
    else
      grad += weight_decay * p[i];
    m[i] = beta1 * m[i] + (1.f - beta1) * grad;
    v[i] = beta2 * v[i] + (1.f - beta2) * grad * grad;
    p[i] -= lr * (m[i] / c1) / (std::sqrt(v[i] / c2) + eps);
  }
}

}  // namespace sweep::nn::cpu
