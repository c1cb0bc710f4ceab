// NumPy .npy arrays as examples: x of float32, float64 or uint8, shaped
// N x F (a table: F features, each standardised with the training
// statistics), N x H x W (grey images) or N x H x W x C (images, channels
// last, as NumPy and TensorFlow keep them); y with one value per example
// (any integer, float or bool type; N or N x 1). Format versions 1 to 3,
// little-endian, C order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "nn/data/examples.h"

namespace sweep::nn {

struct NpyArray {
  std::string file;
  char kind = 'f';  // 'f' float, 'u' unsigned, 'i' signed, 'b' bool
  int item = 4;     // bytes per element
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;  // little-endian elements, C order

  int64_t count() const;
  double at(size_t i) const;  // element i as a double
};

Result<NpyArray> ParseNpy(std::vector<uint8_t> bytes, const std::string& file);
Result<NpyArray> ReadNpy(const std::string& path);

// The examples of x (unnormalised: pixels as bytes, other values as they
// are) and, from y, labels (class indices into *classes, filled from the
// training set when empty) or raw regression targets.
// The same without labels (rows to predict).
Result<Examples> NpyFeatures(const NpyArray& x);

Result<Examples> NpyExamples(const NpyArray& x, const NpyArray& y, Problem problem,
                             std::vector<double>* classes);

}  // namespace sweep::nn
