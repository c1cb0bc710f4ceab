// The checked public face of every layer.
#include "nn/layer.h"

#include <cstdio>
#include <cstdlib>

namespace sweep::nn {

namespace {
// A shape mismatch is a programming error in the model builder: abort loudly.
void CheckShape(const char* what, const std::string& layer, const std::vector<int>& got,
                const std::vector<int>& want) {
  if (got.size() != want.size() + 1 || !std::equal(want.begin(), want.end(), got.begin() + 1)) {
    std::fprintf(stderr, "nn: %s of %s has shape %s, expected [n, %s]\n", what, layer.c_str(),
                 ShapeString(got).c_str(), ShapeString(want).c_str());
    std::abort();
  }
}
}  // namespace

void Layer::Forward(const Context& ctx, const Tensor& x, Tensor* y) {
  CheckShape("input", Name(), x.shape(), in_);
  std::vector<int> ys = {x.dim(0)};
  ys.insert(ys.end(), out_.begin(), out_.end());
  y->Resize(ctx.backend, ys);
  DoForward(ctx, x, y);
}

void Layer::Backward(const Context& ctx, const Tensor& x, const Tensor& y, const Tensor& dy,
                     Tensor* dx) {
  CheckShape("output gradient", Name(), dy.shape(), out_);
  if (dx) dx->Resize(ctx.backend, x.shape());
  DoBackward(ctx, x, y, dy, dx);
}

}  // namespace sweep::nn
