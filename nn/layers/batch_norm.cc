// Batch normalisation per channel ([c] or [c, h, w] inputs). Parameters:
// gamma [c], beta [c]; state: running mean [c], running variance [c].
#include "nn/layer.h"

namespace sweep::nn {
namespace {

class BatchNorm : public Layer {
 public:
  BatchNorm(float momentum, float eps) : momentum_(momentum), eps_(eps) {}
  std::string Name() const override { return "BatchNorm"; }
  LayerInfo Info() const override {
    LayerInfo i;
    i.kind = LayerInfo::kBatchNorm;
    i.eps = eps_;
    return i;
  }
  std::vector<int> Setup(const std::vector<int>& in) override {
    in_ = out_ = in;
    c_ = in[0];
    hw_ = static_cast<int>(ShapeSize(in) / static_cast<size_t>(c_));
    return out_;
  }
  size_t ParamCount() const override { return 2 * static_cast<size_t>(c_); }
  size_t StateCount() const override { return 2 * static_cast<size_t>(c_); }
  void Init(float* p, float* state, Rng*) override {
    for (int i = 0; i < c_; ++i) {
      p[i] = 1.f;           // gamma
      state[c_ + i] = 1.f;  // running variance
    }
  }

 protected:
  void DoForward(const Context& ctx, const Tensor& x, Tensor* y) override {
    int n = x.dim(0);
    if (ctx.training) {
      mean_.Resize(ctx.backend, {c_});
      invstd_.Resize(ctx.backend, {c_});
      ctx.backend->BatchNormTrain(n, c_, hw_, momentum_, eps_, x.data(), params_, params_ + c_,
                                  y->data(), mean_.data(), invstd_.data(), state_, state_ + c_);
    } else {
      ctx.backend->BatchNormEval(n, c_, hw_, eps_, x.data(), params_, params_ + c_, state_,
                                 state_ + c_, y->data());
    }
  }
  void DoBackward(const Context& ctx, const Tensor& x, const Tensor&, const Tensor& dy,
                  Tensor* dx) override {
    bool eval = !ctx.training;
    ctx.backend->BatchNormBackward(eval, x.dim(0), c_, hw_, eps_, x.data(), params_,
                                   eval ? state_ : mean_.data(),
                                   eval ? state_ + c_ : invstd_.data(), dy.data(),
                                   dx ? dx->data() : nullptr, grads_, grads_ + c_);
  }

 private:
  float momentum_, eps_;
  int c_ = 0, hw_ = 1;
  Tensor mean_, invstd_;
};

}  // namespace

std::unique_ptr<Layer> MakeBatchNorm(float momentum, float eps) {
  return std::make_unique<BatchNorm>(momentum, eps);
}

}  // namespace sweep::nn
