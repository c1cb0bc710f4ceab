// CPU convolution on oneDNN (Debian's libdnnl, the library PyTorch's CPU
// convolutions run on): forward, backward data and backward weights with the
// bias, on nn/'s own layouts (activations NCHW, weights OIHW), so models and
// checkpoints are the same as on every other backend. oneDNN picks its
// blocked layouts and JIT kernels for this CPU; the layer's workspace keeps
// the forward pass's input in that layout for the backward pass.
// Deterministic for a fixed thread count: oneDNN splits the work by the
// thread count alone and reduces in a fixed order.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "nn/backend.h"

namespace sweep::nn::cpu {

class DnnlConv {
 public:
  DnnlConv();
  ~DnnlConv();
  DnnlConv(const DnnlConv&) = delete;
  DnnlConv& operator=(const DnnlConv&) = delete;

  // Floats of the workspace that Forward fills and Backward reads.
  size_t Workspace(const Window& g);
  void Forward(const Window& g, const float* x, const float* w, const float* b, float* y,
               float* col);
  void Backward(const Window& g, const float* x, const float* w, const float* dy, float* dx,
                float* dw, float* db, const float* col);

 private:
  struct Plan;
  using Key = std::tuple<int, int, int, int, int, int, int, int>;
  Plan& PlanFor(const Window& g);

  struct Engine;
  std::unique_ptr<Engine> e_;
  std::map<Key, std::unique_ptr<Plan>> plans_;
  // Scratch in oneDNN's layouts, kept between calls: weights, output,
  // output gradient (twice: backward weights and backward data may want
  // different layouts), input gradient, weight gradient, input.
  std::vector<float> w_, y_, dy_, dy2_, dx_, dw_, x_;
};

}  // namespace sweep::nn::cpu
