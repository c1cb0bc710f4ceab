// Sequential model over flat parameter buffers.
#include "nn/model.h"

#include <limits>
#include <stdexcept>
#include <string>

namespace sweep::nn {

void Model::Finalize(uint64_t seed, Model* share) {
  std::vector<int> shape = input_shape_;
  for (auto& l : layers_) {
    shape = l->Setup(shape);
    param_count_ += l->ParamCount();
    state_count_ += l->StateCount();
  }
  // Tensors are indexed by int: a model past that would wrap, not fail.
  constexpr size_t kMost = std::numeric_limits<int>::max();
  if (param_count_ > kMost || state_count_ > kMost) {
    throw std::length_error("the model has " + std::to_string(param_count_) +
                            " parameters, more than one tensor holds (" + std::to_string(kMost) +
                            "); make its layers narrower");
  }
  if (!share) params_.Resize(backend_, {static_cast<int>(std::max<size_t>(param_count_, 1))});
  params_ptr_ = share ? share->params() : params_.data();
  grads_.Resize(backend_, {static_cast<int>(std::max<size_t>(param_count_, 1))});
  state_.Resize(backend_, {static_cast<int>(std::max<size_t>(state_count_, 1))});
  std::vector<float> host_p(std::max<size_t>(param_count_, 1), 0.f), host_s(state_.size(), 0.f);
  size_t po = 0, so = 0;
  for (size_t i = 0; i < layers_.size(); ++i) {
    Rng rng(HashKey({seed, 0x1417ULL, i}));
    layers_[i]->Init(host_p.data() + po, host_s.data() + so, &rng);
    layers_[i]->Bind(params_ptr_ + po, grads_.data() + po, state_.data() + so);
    po += layers_[i]->ParamCount();
    so += layers_[i]->StateCount();
  }
  if (!share) params_.FromHost(host_p);
  state_.FromHost(host_s);
  acts_.resize(layers_.size());
  grads_act_.resize(layers_.size());
}

const Tensor& Model::Forward(const Tensor& x, bool training, uint64_t step_seed) {
  Context ctx{backend_, training, 0};
  input_ = &x;
  step_seed_ = step_seed;
  const Tensor* in = &x;
  for (size_t i = 0; i < layers_.size(); ++i) {
    ctx.seed = HashKey({step_seed, i});
    layers_[i]->Forward(ctx, *in, &acts_[i]);
    in = &acts_[i];
  }
  return acts_.back();
}

double Model::Loss(const int32_t* labels, bool backward, int64_t* correct) {
  const Tensor& logits = acts_.back();
  int n = logits.dim(0);
  double loss = 0;
  int64_t right = 0;
  if (backward) dlogits_.Resize(backend_, logits.shape());
  backend_->SoftmaxCrossEntropy(logits.data(), labels, n, classes(),
                                backward ? dlogits_.data() : nullptr, &loss, &right);
  if (correct) *correct += right;
  if (backward) Backward();
  return loss;
}

double Model::SquaredError(const float* targets, bool backward) {
  const Tensor& out = acts_.back();
  const int n = out.dim(0);
  // One output per example: the loss and its gradient are computed on the
  // host, the same on every backend (n floats each way).
  host_out_.resize(static_cast<size_t>(n));
  backend_->ToHost(out.data(), host_out_.data(), host_out_.size());
  double loss = 0;
  for (int i = 0; i < n; ++i) {
    const double d = static_cast<double>(host_out_[i]) - targets[i];
    loss += d * d;
    host_out_[i] = static_cast<float>(2 * d / n);  // d(mean loss)/d(output)
  }
  if (backward) {
    dlogits_.Resize(backend_, out.shape());
    backend_->FromHost(host_out_.data(), dlogits_.data(), host_out_.size());
    Backward();
  }
  return loss;
}

void Model::Outputs(std::vector<float>* host) const {
  const Tensor& out = acts_.back();
  host->resize(out.size());
  backend_->ToHost(out.data(), host->data(), host->size());
}

void Model::Backward() {
  // Every layer with parameters writes its whole gradient: no zeroing needed.
  Context ctx{backend_, true, 0};
  const Tensor* dy = &dlogits_;
  // Layers before the first one with parameters need no gradients at all,
  // and that layer needs no input gradient (25% of an MLP's work).
  size_t first = 0;
  while (first < layers_.size() && layers_[first]->ParamCount() == 0) ++first;
  for (size_t i = layers_.size(); i-- > first;) {
    ctx.seed = HashKey({step_seed_, i});
    const Tensor& x = i == 0 ? *input_ : acts_[i - 1];
    layers_[i]->Backward(ctx, x, acts_[i], *dy, i == first ? nullptr : &grads_act_[i]);
    dy = &grads_act_[i];
  }
}

size_t Model::param_offset(size_t i) const {
  size_t o = 0;
  for (size_t k = 0; k < i; ++k) o += layers_[k]->ParamCount();
  return o;
}

size_t Model::state_offset(size_t i) const {
  size_t o = 0;
  for (size_t k = 0; k < i; ++k) o += layers_[k]->StateCount();
  return o;
}

std::string Model::Layout() const {
  std::string out;
  for (const auto& l : layers_) {
    if (l->ParamCount() == 0 && l->StateCount() == 0) continue;
    out += l->Name() + ":" + std::to_string(l->ParamCount()) + "/" +
           std::to_string(l->StateCount()) + ";";
  }
  return out;
}

std::string Model::Summary() const {
  std::string out;
  for (const auto& l : layers_)
    out += "  " + l->Name() + " -> " + ShapeString(l->out_shape()) + "\n";
  out += "  parameters: " + std::to_string(param_count_) + "\n";
  return out;
}

}  // namespace sweep::nn
