// Layers: a checked public face (Forward/Backward verify shapes) over
// per-layer bodies that call only Backend operations. Parameters live in the
// model's one flat buffer; a layer holds views into it (llm.c style), so one
// all-reduce or one checkpoint write covers every weight.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/rng.h"
#include "nn/tensor.h"

namespace sweep::nn {

// What a layer computes, for readers outside the network (the ONNX export):
// its kind and hyper-parameters. Parameters follow the layer's own layout
// (Linear: W [out, in] then b [out]; Conv2d: W [oc, c, k, k] then b [oc];
// BatchNorm: gamma [c], beta [c]; state: running mean [c], variance [c]).
struct LayerInfo {
  enum Kind {
    kLinear,
    kConv2d,
    kMaxPool,
    kAvgPool,
    kGlobalAvgPool,
    kActivation,
    kDropout,
    kBatchNorm,
    kFlatten
  };
  Kind kind = kLinear;
  int outputs = 0;                      // Linear: units; Conv2d: channels
  int kernel = 0, stride = 1, pad = 0;  // Conv2d, pools
  Activation activation = Activation::kRelu;
  float slope = 0;  // leaky ReLU
  float eps = 0;    // batch norm
};

struct Context {
  Backend* backend = nullptr;
  bool training = true;
  uint64_t seed = 0;  // per-step randomness key (dropout)
};

class Layer {
 public:
  virtual ~Layer() = default;
  virtual std::string Name() const = 0;
  virtual LayerInfo Info() const = 0;
  // Sets the layer up for per-sample input shape `in`; returns the output's.
  virtual std::vector<int> Setup(const std::vector<int>& in) = 0;
  virtual size_t ParamCount() const { return 0; }
  virtual size_t StateCount() const { return 0; }  // non-trained state (batch-norm statistics)
  // Fills initial parameters and state (host memory).
  virtual void Init(float* params, float* state, Rng* rng) {}

  void Bind(float* params, float* grads, float* state) {
    params_ = params;
    grads_ = grads;
    state_ = state;
  }
  // x: [n, in...] -> y: [n, out...].
  void Forward(const Context& ctx, const Tensor& x, Tensor* y);
  // Writes (does not accumulate) parameter gradients; writes dx unless null.
  void Backward(const Context& ctx, const Tensor& x, const Tensor& y, const Tensor& dy, Tensor* dx);
  const std::vector<int>& in_shape() const { return in_; }
  const std::vector<int>& out_shape() const { return out_; }

 protected:
  virtual void DoForward(const Context& ctx, const Tensor& x, Tensor* y) = 0;
  virtual void DoBackward(const Context& ctx, const Tensor& x, const Tensor& y, const Tensor& dy,
                          Tensor* dx) = 0;
  float* params_ = nullptr;
  float* grads_ = nullptr;
  float* state_ = nullptr;
  std::vector<int> in_, out_;
};

// Uniform weight initialisation: He (bound sqrt(6 / fan_in)), Xavier
// (sqrt(6 / (fan_in + fan_out))), or PyTorch's default for Linear and Conv2d
// (1 / sqrt(fan_in)). Biases start at zero.
enum class WeightInit { kHe, kXavier, kFanIn };

inline double InitBound(WeightInit init, double fan_in, double fan_out) {
  switch (init) {
    case WeightInit::kHe:
      return std::sqrt(6.0 / fan_in);
    case WeightInit::kXavier:
      return std::sqrt(6.0 / (fan_in + fan_out));
    default:
      return std::sqrt(1.0 / fan_in);
  }
}

std::unique_ptr<Layer> MakeLinear(int out, WeightInit init);
std::unique_ptr<Layer> MakeConv2d(int out_channels, int kernel, int stride, int pad,
                                  WeightInit init);
std::unique_ptr<Layer> MakeMaxPool2d(int kernel, int stride);
std::unique_ptr<Layer> MakeAvgPool2d(int kernel, int stride);
std::unique_ptr<Layer> MakeGlobalAvgPool();
std::unique_ptr<Layer> MakeActivation(Activation a, float slope = 0.01f);
std::unique_ptr<Layer> MakeDropout(float p);
std::unique_ptr<Layer> MakeBatchNorm(float momentum = 0.1f, float eps = 1e-5f);
std::unique_ptr<Layer> MakeFlatten();

}  // namespace sweep::nn
