// Max, average and global-average pooling over NCHW.
#include "nn/layer.h"

namespace sweep::nn {
namespace {

class Pool : public Layer {
 public:
  enum Kind { kMax, kAvg, kGlobal };
  Pool(Kind kind, int k, int stride) : kind_(kind) {
    g_.k = k;
    g_.stride = stride;
  }
  std::string Name() const override {
    if (kind_ == kGlobal) return "GlobalAvgPool";
    return std::string(kind_ == kMax ? "MaxPool2d(" : "AvgPool2d(") + std::to_string(g_.k) + ", s" +
           std::to_string(g_.stride) + ")";
  }
  LayerInfo Info() const override {
    LayerInfo i;
    i.kind = kind_ == kMax   ? LayerInfo::kMaxPool
             : kind_ == kAvg ? LayerInfo::kAvgPool
                             : LayerInfo::kGlobalAvgPool;
    i.kernel = g_.k;
    i.stride = g_.stride;
    return i;
  }
  std::vector<int> Setup(const std::vector<int>& in) override {
    in_ = in;
    g_.c = in[0];
    g_.h = in[1];
    g_.w = in[2];
    if (kind_ == kGlobal) {
      g_.k = in[1];  // square inputs: one window covers the plane
      g_.stride = 1;
    }
    out_ = kind_ == kGlobal ? std::vector<int>{g_.c} : std::vector<int>{g_.c, g_.OutH(), g_.OutW()};
    return out_;
  }

 protected:
  void DoForward(const Context& ctx, const Tensor& x, Tensor* y) override {
    Window g = g_;
    g.n = x.dim(0);
    if (kind_ == kMax) {
      argmax_.Resize(ctx.backend, y->shape());  // int32 indices in a float-sized buffer
      ctx.backend->MaxPoolForward(g, x.data(), y->data(),
                                  reinterpret_cast<int32_t*>(argmax_.data()));
    } else {
      ctx.backend->AvgPoolForward(g, x.data(), y->data());
    }
  }
  void DoBackward(const Context& ctx, const Tensor& x, const Tensor&, const Tensor& dy,
                  Tensor* dx) override {
    if (!dx) return;
    Window g = g_;
    g.n = x.dim(0);
    if (kind_ == kMax) {
      ctx.backend->MaxPoolBackward(g, dy.data(), reinterpret_cast<const int32_t*>(argmax_.data()),
                                   dx->data());
    } else
      ctx.backend->AvgPoolBackward(g, dy.data(), dx->data());
  }

 private:
  Kind kind_;
  Window g_;
  Tensor argmax_;
};

}  // namespace

std::unique_ptr<Layer> MakeMaxPool2d(int k, int stride) {
  return std::make_unique<Pool>(Pool::kMax, k, stride);
}
std::unique_ptr<Layer> MakeAvgPool2d(int k, int stride) {
  return std::make_unique<Pool>(Pool::kAvg, k, stride);
}
std::unique_ptr<Layer> MakeGlobalAvgPool() { return std::make_unique<Pool>(Pool::kGlobal, 1, 1); }

}  // namespace sweep::nn
