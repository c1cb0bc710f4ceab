// Element-wise layers: activations, dropout and flatten.
#include "nn/layer.h"

namespace sweep::nn {
namespace {

class ActivationLayer : public Layer {
 public:
  ActivationLayer(Activation a, float slope) : a_(a), slope_(slope) {}
  LayerInfo Info() const override {
    LayerInfo i;
    i.kind = LayerInfo::kActivation;
    i.activation = a_;
    i.slope = slope_;
    return i;
  }
  std::string Name() const override {
    switch (a_) {
      case Activation::kRelu:
        return "ReLU";
      case Activation::kLeakyRelu:
        return "LeakyReLU";
      case Activation::kTanh:
        return "Tanh";
      default:
        return "GELU";
    }
  }
  std::vector<int> Setup(const std::vector<int>& in) override { return in_ = out_ = in; }

 protected:
  void DoForward(const Context& ctx, const Tensor& x, Tensor* y) override {
    ctx.backend->ActivationForward(a_, slope_, x.data(), y->data(), x.size());
  }
  void DoBackward(const Context& ctx, const Tensor& x, const Tensor&, const Tensor& dy,
                  Tensor* dx) override {
    if (dx) ctx.backend->ActivationBackward(a_, slope_, x.data(), dy.data(), dx->data(), x.size());
  }

 private:
  Activation a_;
  float slope_;
};

class Dropout : public Layer {
 public:
  explicit Dropout(float p) : p_(p) {}
  std::string Name() const override { return "Dropout(" + std::to_string(p_).substr(0, 4) + ")"; }
  LayerInfo Info() const override {
    LayerInfo i;
    i.kind = LayerInfo::kDropout;
    return i;
  }
  std::vector<int> Setup(const std::vector<int>& in) override { return in_ = out_ = in; }

 protected:
  void DoForward(const Context& ctx, const Tensor& x, Tensor* y) override {
    if (!ctx.training || p_ <= 0.f) {
      ctx.backend->Copy(x.data(), y->data(), x.size());
      active_ = false;
      return;
    }
    mask_.Resize(ctx.backend, x.shape());
    ctx.backend->DropoutForward(p_, ctx.seed, x.data(), y->data(), mask_.data(), x.size());
    active_ = true;
  }
  void DoBackward(const Context& ctx, const Tensor& x, const Tensor&, const Tensor& dy,
                  Tensor* dx) override {
    if (!dx) return;
    if (active_)
      ctx.backend->Mul(dy.data(), mask_.data(), dx->data(), x.size());
    else
      ctx.backend->Copy(dy.data(), dx->data(), x.size());
  }

 private:
  float p_;
  bool active_ = false;
  Tensor mask_;
};

class Flatten : public Layer {
 public:
  std::string Name() const override { return "Flatten"; }
  LayerInfo Info() const override {
    LayerInfo i;
    i.kind = LayerInfo::kFlatten;
    return i;
  }
  std::vector<int> Setup(const std::vector<int>& in) override {
    in_ = in;
    out_ = {static_cast<int>(ShapeSize(in))};
    return out_;
  }

 protected:
  void DoForward(const Context& ctx, const Tensor& x, Tensor* y) override {
    ctx.backend->Copy(x.data(), y->data(), x.size());
  }
  void DoBackward(const Context& ctx, const Tensor& x, const Tensor&, const Tensor& dy,
                  Tensor* dx) override {
    if (dx) ctx.backend->Copy(dy.data(), dx->data(), x.size());
  }
};

}  // namespace

std::unique_ptr<Layer> MakeActivation(Activation a, float slope) {
  return std::make_unique<ActivationLayer>(a, slope);
}
std::unique_ptr<Layer> MakeDropout(float p) { return std::make_unique<Dropout>(p); }
std::unique_ptr<Layer> MakeFlatten() { return std::make_unique<Flatten>(); }

}  // namespace sweep::nn
