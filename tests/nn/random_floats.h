// Uniform floats in [-1, 1) from a seed, for the nn/ op tests.
#pragma once

#include <cstdint>
#include <vector>

#include "common/rng.h"

namespace sweep::nn {

inline std::vector<float> RandomFloats(size_t n, uint64_t seed) {
  Rng r(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(2 * r.Uniform() - 1);
  return v;
}

}  // namespace sweep::nn
