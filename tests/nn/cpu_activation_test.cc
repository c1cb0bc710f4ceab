// The CPU backend's activations against their plain definitions, bit for
// bit: ReLU's gradient (a select written as a bit mask, so that it
// vectorises), with -0, infinities and NaN in the input and the gradient.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "nn/cpu/ops.h"
#include "nn/random_floats.h"

namespace sweep::nn {
namespace {

// Gradients with the values a select must pass through untouched.
std::vector<float> Gradients(size_t n, uint64_t seed) {
  std::vector<float> dy = RandomFloats(n, seed);
  const float odd[] = {-0.f, 0.f, std::numeric_limits<float>::infinity(),
                       -std::numeric_limits<float>::infinity(),
                       std::numeric_limits<float>::quiet_NaN()};
  for (size_t i = 0; i < n; i += 7) dy[i] = odd[(i / 7) % 5];
  return dy;
}

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(CpuElementwiseTest, ReluGradientIsTheSelectBitForBit) {
  for (size_t n : {size_t{1}, size_t{13}, size_t{1000}, size_t{300000}}) {
    // Inputs with the edge cases too: 0 and -0 are not > 0, nor is NaN.
    std::vector<float> x = Gradients(n, 1), dy = Gradients(n, uint64_t{1} << 40);  // streams apart
    for (size_t i = 3; i < n; i += 11) x[i] = (i / 11) % 2 ? -0.f : 0.f;
    std::vector<float> want(n);
    for (size_t i = 0; i < n; ++i) want[i] = x[i] > 0.f ? dy[i] : 0.f;
    // threads > 1 takes the OpenMP path for n over 262,144.
    for (int threads : {1, 2}) {
      std::vector<float> got(n, 42.f);
      cpu::ActivationBackward(Activation::kRelu, 0.f, x.data(), dy.data(), got.data(), n, threads);
      EXPECT_TRUE(SameBits(got, want)) << "n " << n << ", threads " << threads;
    }
  }
}

}  // namespace
}  // namespace sweep::nn
