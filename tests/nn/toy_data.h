// A learnable toy image set for training tests: 8x8 grey images whose class
// (of 4) is the quadrant that holds a bright blob. Shared by the CPU and GPU
// training tests.
#pragma once

#include <algorithm>

#include "common/rng.h"
#include "nn/data/mnist.h"

namespace sweep::nn {

inline Splits ToyData(int n_train) {
  auto make = [](int n, uint64_t seed) {
    Examples set;
    set.n = n;
    set.h = set.w = 8;
    set.pixels.resize(static_cast<size_t>(n) * 64);
    set.labels.resize(n);
    Rng rng(seed);
    for (int i = 0; i < n; ++i) {
      int label = static_cast<int>(rng.Next() % 4);
      set.labels[i] = label;
      for (int y = 0; y < 8; ++y) {
        for (int x = 0; x < 8; ++x) {
          bool in = (y / 4) * 2 + (x / 4) == label;
          double v = (in ? 160 : 40) + 40 * rng.Normal();
          set.pixels[static_cast<size_t>(i) * 64 + y * 8 + x] =
              static_cast<uint8_t>(std::clamp(v, 0.0, 255.0));
        }
      }
    }
    return set;
  };
  Splits s;
  s.train = make(n_train, 1);
  s.validation = make(200, 2);
  s.test = make(200, 3);
  s.classes = 4;
  s.mean = 0.3f;
  s.stddev = 0.3f;
  return s;
}

}  // namespace sweep::nn
