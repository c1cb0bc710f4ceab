// Fully connected layer: y = x W^T + b, W [out, in]. Any input shape is
// read as [n, product of the other dimensions], so no Flatten is needed.
#include <cmath>

#include "nn/layer.h"

namespace sweep::nn {
namespace {

class Linear : public Layer {
 public:
  Linear(int out, WeightInit init) : outputs_(out), init_(init) {}
  std::string Name() const override { return "Linear(" + std::to_string(outputs_) + ")"; }
  LayerInfo Info() const override {
    LayerInfo i;
    i.kind = LayerInfo::kLinear;
    i.outputs = outputs_;
    return i;
  }
  std::vector<int> Setup(const std::vector<int>& in) override {
    in_ = in;
    inputs_ = static_cast<int>(ShapeSize(in));
    out_ = {outputs_};
    return out_;
  }
  size_t ParamCount() const override { return static_cast<size_t>(outputs_) * inputs_ + outputs_; }
  void Init(float* p, float*, Rng* rng) override {
    double fan_in = inputs_, fan_out = outputs_;
    double bound = InitBound(init_, fan_in, fan_out);
    for (size_t i = 0; i < static_cast<size_t>(outputs_) * inputs_; ++i) {
      p[i] = static_cast<float>((2 * rng->Uniform() - 1) * bound);
    }
    // Biases start at zero (the buffer is zeroed).
  }

 protected:
  void DoForward(const Context& ctx, const Tensor& x, Tensor* y) override {
    int n = x.dim(0);
    ctx.backend->Gemm(false, true, n, outputs_, inputs_, 1.f, x.data(), params_, 0.f, y->data());
    ctx.backend->AddBias(y->data(), params_ + static_cast<size_t>(outputs_) * inputs_, n, outputs_);
  }
  void DoBackward(const Context& ctx, const Tensor& x, const Tensor&, const Tensor& dy,
                  Tensor* dx) override {
    int n = x.dim(0);
    // dW = dy^T x ; db = sum dy ; dx = dy W
    ctx.backend->Gemm(true, false, outputs_, inputs_, n, 1.f, dy.data(), x.data(), 0.f, grads_);
    ctx.backend->BiasGrad(dy.data(), grads_ + static_cast<size_t>(outputs_) * inputs_, n, outputs_);
    if (dx)
      ctx.backend->Gemm(false, false, n, inputs_, outputs_, 1.f, dy.data(), params_, 0.f,
                        dx->data());
  }

 private:
  int outputs_;
  int inputs_ = 0;
  WeightInit init_;
};

}  // namespace

std::unique_ptr<Layer> MakeLinear(int out, WeightInit init) {
  return std::make_unique<Linear>(out, init);
}

}  // namespace sweep::nn
