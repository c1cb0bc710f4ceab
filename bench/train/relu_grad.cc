// bench/train/relu_grad: ReLU's gradient over the benchmark CNN's first
// block on one replica (64 images x 32 channels x 28 x 28), the loop nn/ had
// before session 18 (`x > 0 ? dy : 0`, which GCC 12 compiles to a scalar
// branch even at -O3) against nn/cpu's ActivationBackward, which writes the
// select as a bit mask. Random signs (the worst case for the branch) and
// signs in runs of 64 (closer to what a feature map has), best of 50 calls.
// Usage: build/bench/relu_grad
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "common/rng.h"
#include "nn/cpu/ops.h"

namespace {

__attribute__((noinline)) void OldReluGrad(const float* __restrict x, const float* __restrict dy,
                                           float* __restrict dx, size_t n) {
  for (size_t i = 0; i < n; ++i) dx[i] = x[i] > 0.f ? dy[i] : 0.f;
}

template <class F>
double BestMs(F f) {
  double best = 1e30;
  for (int r = 0; r < 50; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    std::chrono::duration<double, std::milli> d = std::chrono::steady_clock::now() - t0;
    best = std::min(best, d.count());
  }
  return best;
}

}  // namespace

int main() {
  const size_t n = size_t{64} * 32 * 28 * 28;
  sweep::Rng r(1);
  std::vector<float> x(n), dy(n), dx(n);
  for (auto& v : dy) v = static_cast<float>(2 * r.Uniform() - 1);
  for (int runs : {1, 64}) {
    for (size_t i = 0; i < n; i += runs) {
      float sign = r.Uniform() < 0.5 ? -1.f : 1.f;
      for (size_t k = i; k < std::min(n, i + runs); ++k)
        x[k] = sign * static_cast<float>(r.Uniform() + 0.01);
    }
    double old_ms = BestMs([&] { OldReluGrad(x.data(), dy.data(), dx.data(), n); });
    double new_ms = BestMs([&] {
      sweep::nn::cpu::ActivationBackward(sweep::nn::Activation::kRelu, 0.f, x.data(), dy.data(),
                                         dx.data(), n, 1);
    });
    std::printf("signs in runs of %2d: old %.3f ms, new %.3f ms, %.1fx\n", runs, old_ms, new_ms,
                old_ms / new_ms);
  }
}
