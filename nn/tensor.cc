// Tensor memory management.
#include "nn/tensor.h"

namespace sweep::nn {

std::string ShapeString(const std::vector<int>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

Tensor& Tensor::operator=(Tensor&& o) noexcept {
  if (this != &o) {
    Release();
    backend_ = o.backend_;
    data_ = o.data_;
    capacity_ = o.capacity_;
    shape_ = std::move(o.shape_);
    o.data_ = nullptr;
    o.capacity_ = 0;
  }
  return *this;
}

void Tensor::Resize(Backend* b, std::vector<int> shape) {
  size_t n = ShapeSize(shape);
  if (b != backend_ || n > capacity_) {
    Release();
    backend_ = b;
    data_ = b->Alloc(n);
    capacity_ = n;
  }
  shape_ = std::move(shape);
}

std::vector<float> Tensor::ToHost() const {
  std::vector<float> out(size());
  if (!out.empty()) backend_->ToHost(data_, out.data(), out.size());
  return out;
}

void Tensor::FromHost(const std::vector<float>& v) {
  backend_->FromHost(v.data(), data_, std::min(v.size(), size()));
}

void Tensor::Release() {
  if (backend_ && data_) backend_->Free(data_);
  data_ = nullptr;
  capacity_ = 0;
}

}  // namespace sweep::nn
