// 2-D convolution, weights [oc, c, k, k] then bias [oc].
#include <cmath>

#include "nn/layer.h"

namespace sweep::nn {
namespace {

class Conv2d : public Layer {
 public:
  Conv2d(int oc, int k, int stride, int pad, WeightInit init) : init_(init) {
    g_.oc = oc;
    g_.k = k;
    g_.stride = stride;
    g_.pad = pad;
  }
  std::string Name() const override {
    return "Conv2d(" + std::to_string(g_.oc) + ", k" + std::to_string(g_.k) + ", s" +
           std::to_string(g_.stride) + ", p" + std::to_string(g_.pad) + ")";
  }
  LayerInfo Info() const override {
    LayerInfo i;
    i.kind = LayerInfo::kConv2d;
    i.outputs = g_.oc;
    i.kernel = g_.k;
    i.stride = g_.stride;
    i.pad = g_.pad;
    return i;
  }
  std::vector<int> Setup(const std::vector<int>& in) override {
    in_ = in;
    g_.c = in[0];
    g_.h = in[1];
    g_.w = in[2];
    out_ = {g_.oc, g_.OutH(), g_.OutW()};
    return out_;
  }
  size_t WeightCount() const { return static_cast<size_t>(g_.oc) * g_.c * g_.k * g_.k; }
  size_t ParamCount() const override { return WeightCount() + g_.oc; }
  void Init(float* p, float*, Rng* rng) override {
    double fan_in = static_cast<double>(g_.c) * g_.k * g_.k,
           fan_out = static_cast<double>(g_.oc) * g_.k * g_.k;
    double bound = InitBound(init_, fan_in, fan_out);
    for (size_t i = 0; i < WeightCount(); ++i)
      p[i] = static_cast<float>((2 * rng->Uniform() - 1) * bound);
  }

 protected:
  void DoForward(const Context& ctx, const Tensor& x, Tensor* y) override {
    Window g = g_;
    g.n = x.dim(0);
    workspace_.Resize(ctx.backend, {static_cast<int>(ctx.backend->ConvWorkspace(g))});
    ctx.backend->Conv2dForward(g, x.data(), params_, params_ + WeightCount(), y->data(),
                               workspace_.data());
  }
  void DoBackward(const Context& ctx, const Tensor& x, const Tensor&, const Tensor& dy,
                  Tensor* dx) override {
    Window g = g_;
    g.n = x.dim(0);
    ctx.backend->Conv2dBackward(g, x.data(), params_, dy.data(), dx ? dx->data() : nullptr, grads_,
                                grads_ + WeightCount(), workspace_.data());
  }

 private:
  Window g_;
  WeightInit init_;
  Tensor workspace_;  // the forward pass's im2col columns, reused by backward
};

}  // namespace

std::unique_ptr<Layer> MakeConv2d(int oc, int k, int stride, int pad, WeightInit init) {
  return std::make_unique<Conv2d>(oc, k, stride, pad, init);
}

}  // namespace sweep::nn
