// A sequential network over one backend, with every parameter, gradient and
// statistic in flat buffers, plus the losses: softmax cross-entropy for
// classes, squared error for a regression's single output.
// Not thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "nn/layer.h"

namespace sweep::nn {

class Model {
 public:
  Model(Backend* backend, std::vector<int> input_shape)
      : backend_(backend), input_shape_(std::move(input_shape)) {}
  void Add(std::unique_ptr<Layer> layer) { layers_.push_back(std::move(layer)); }
  // Sets up shapes, allocates the flat buffers and initialises from `seed`.
  // With `share`, this model is a replica: it uses share's parameters (same
  // architecture) and keeps its own gradients, statistics and activations.
  void Finalize(uint64_t seed, Model* share = nullptr);

  // Runs the network; returns the logits [n, classes].
  const Tensor& Forward(const Tensor& x, bool training, uint64_t step_seed);
  // Softmax cross-entropy on the last Forward's logits. With `backward`,
  // zeroes and fills the gradients. Returns the summed loss; adds to *correct.
  double Loss(const int32_t* labels, bool backward, int64_t* correct);
  // Squared error of the last Forward's single output per example against
  // `targets` (host memory); with `backward`, fills the gradients of the
  // mean. Returns the summed squared error.
  double SquaredError(const float* targets, bool backward);
  // The last Forward's outputs [n, outputs], copied to the host.
  void Outputs(std::vector<float>* host) const;

  Backend* backend() { return backend_; }
  float* params() { return params_ptr_; }
  float* grads() { return grads_.data(); }
  float* state() { return state_.data(); }
  size_t param_count() const { return param_count_; }
  size_t state_count() const { return state_count_; }
  // The layers, for readers such as the ONNX export; a layer's parameters
  // and state start at param_offset(i) and state_offset(i) of the flat
  // buffers.
  size_t layer_count() const { return layers_.size(); }
  const Layer& layer(size_t i) const { return *layers_[i]; }
  size_t param_offset(size_t i) const;
  size_t state_offset(size_t i) const;
  const std::vector<int>& input_shape() const { return input_shape_; }
  int classes() const { return static_cast<int>(ShapeSize(layers_.back()->out_shape())); }
  std::string Summary() const;
  // Layers that hold parameters or state, with their sizes: what a
  // checkpoint must match.
  std::string Layout() const;

 private:
  Backend* backend_;
  std::vector<int> input_shape_;
  std::vector<std::unique_ptr<Layer>> layers_;
  Tensor params_, grads_, state_;
  float* params_ptr_ = nullptr;  // params_ or the shared model's
  size_t param_count_ = 0, state_count_ = 0;
  std::vector<Tensor> acts_;  // acts_[i]: output of layer i
  std::vector<Tensor> grads_act_;
  Tensor dlogits_;
  const Tensor* input_ = nullptr;
  uint64_t step_seed_ = 0;
  std::vector<int32_t> label_buffer_;
  std::vector<float> host_out_;
  // Backpropagates dlogits_ through every layer that needs it.
  void Backward();
};

}  // namespace sweep::nn
