// A float32 buffer on one backend's device, with a shape (NCHW, row-major).
// Owns its memory; move-only. Not thread-safe.
#pragma once

#include <numeric>
#include <string>
#include <vector>

#include "nn/backend.h"

namespace sweep::nn {

inline size_t ShapeSize(const std::vector<int>& s) {
  size_t n = 1;
  for (int d : s) n *= static_cast<size_t>(d);
  return n;
}
std::string ShapeString(const std::vector<int>& s);

class Tensor {
 public:
  Tensor() = default;
  Tensor(Backend* b, std::vector<int> shape) { Resize(b, std::move(shape)); }
  ~Tensor() { Release(); }
  Tensor(Tensor&& o) noexcept { *this = std::move(o); }
  Tensor& operator=(Tensor&& o) noexcept;
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;

  // Keeps the allocation when it is large enough; contents are unspecified.
  void Resize(Backend* b, std::vector<int> shape);
  float* data() { return data_; }
  const float* data() const { return data_; }
  size_t size() const { return data_ ? ShapeSize(shape_) : 0; }
  const std::vector<int>& shape() const { return shape_; }
  int dim(int i) const { return shape_[i]; }
  // Copies to the host (tests, checkpoints).
  std::vector<float> ToHost() const;
  void FromHost(const std::vector<float>& v);

 private:
  void Release();
  Backend* backend_ = nullptr;
  float* data_ = nullptr;
  size_t capacity_ = 0;
  std::vector<int> shape_;
};

}  // namespace sweep::nn
