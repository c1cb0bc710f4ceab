// CPU activations (ReLU, leaky ReLU, tanh, GELU), forward and backward. CUDA
// twin: nn/cuda/activation.cu.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "nn/cpu/ops.h"

namespace sweep::nn::cpu {

namespace {

// Serial element-wise kernels with non-aliasing pointers, written so that GCC
// vectorises them; OpenMP's outlined regions kept them scalar (and branchy:
// ReLU's select mispredicted on about half the elements). The parallel
// versions below are used only for large buffers on several threads.
void ReluSerial(const float* __restrict x, float* __restrict y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
void ReluGradSerial(const float* __restrict x, const float* __restrict dy, float* __restrict dx,
                    size_t n) {
  // The select as a bit mask: GCC 12, even at -O3, kept
  // `x[i] > 0.f ? dy[i] : 0.f` a scalar branch (a load under a condition),
  // many times slower on random signs (bench/train/relu_grad.cc). The same
  // bits: dy[i], or +0.
  for (size_t i = 0; i < n; ++i) {
    uint32_t g;
    std::memcpy(&g, &dy[i], sizeof g);
    g &= x[i] > 0.f ? 0xFFFFFFFFu : 0u;
    std::memcpy(&dx[i], &g, sizeof g);
  }
}

float Act(Activation a, float slope, float x) {
  switch (a) {
    case Activation::kRelu:
      return x > 0 ? x : 0.f;
    case Activation::kLeakyRelu:
      return x > 0 ? x : slope * x;
    case Activation::kTanh:
      return std::tanh(x);
    default: {
      const float c = 0.7978845608028654f;
      return 0.5f * x * (1.f + std::tanh(c * (x + 0.044715f * x * x * x)));
    }
  }
}
float ActGrad(Activation a, float slope, float x) {
  switch (a) {
    case Activation::kRelu:
      return x > 0 ? 1.f : 0.f;
    case Activation::kLeakyRelu:
      return x > 0 ? 1.f : slope;
    case Activation::kTanh: {
      float t = std::tanh(x);
      return 1.f - t * t;
    }
    default: {
      const float c = 0.7978845608028654f;
      float u = c * (x + 0.044715f * x * x * x), t = std::tanh(u);
      return 0.5f * (1.f + t) + 0.5f * x * (1.f - t * t) * c * (1.f + 3.f * 0.044715f * x * x);
    }
  }
}

}  // namespace

void ActivationForward(Activation a, float slope, const float* x, float* y, size_t n, int threads) {
  // One loop per kind, so the compiler vectorises the common ones.
  switch (a) {
    case Activation::kRelu:
      if (n <= 262144 || threads == 1) return ReluSerial(x, y, n);
#pragma omp parallel for simd schedule(static)
      for (size_t i = 0; i < n; ++i) y[i] = x[i] > 0.f ? x[i] : 0.f;
      return;
    case Activation::kLeakyRelu:
#pragma omp parallel for simd schedule(static) if (n > 262144)
      for (size_t i = 0; i < n; ++i) y[i] = x[i] > 0.f ? x[i] : slope * x[i];
      return;
    default:
#pragma omp parallel for schedule(static) if (n > 65536)
      for (size_t i = 0; i < n; ++i) y[i] = Act(a, slope, x[i]);
  }
}

void ActivationBackward(Activation a, float slope, const float* x, const float* dy, float* dx,
                        size_t n, int threads) {
  switch (a) {
    case Activation::kRelu:
      if (n <= 262144 || threads == 1) return ReluGradSerial(x, dy, dx, n);
      {
        // The same kernel on each thread's share, in blocks (64 or more).
        constexpr size_t kBlock = 4096;
#pragma omp parallel for schedule(static)
        for (size_t b = 0; b < n; b += kBlock)
          ReluGradSerial(x + b, dy + b, dx + b, n - b < kBlock ? n - b : kBlock);
      }
      return;
    case Activation::kLeakyRelu:
#pragma omp parallel for simd schedule(static) if (n > 262144)
      for (size_t i = 0; i < n; ++i) dx[i] = x[i] > 0.f ? dy[i] : slope * dy[i];
      return;
    default:
#pragma omp parallel for schedule(static) if (n > 65536)
      for (size_t i = 0; i < n; ++i) dx[i] = dy[i] * ActGrad(a, slope, x[i]);
  }
}

}  // namespace sweep::nn::cpu
