// Optimizer updates and learning-rate schedules.
#include "nn/optimizer.h"

#include <cmath>

namespace sweep::nn {

Optimizer::Optimizer(Model* model, OptimizerConfig config) : model_(model), c_(config) {
  int n = static_cast<int>(std::max<size_t>(model->param_count(), 1));
  v_.Resize(model->backend(), {n});
  model->backend()->Zero(v_.data(), v_.size());
  if (c_.kind != OptimizerKind::kSgd) {
    m_.Resize(model->backend(), {n});
    model->backend()->Zero(m_.data(), m_.size());
  }
}

void Optimizer::Update(float lr, size_t begin, size_t end) {
  Backend* b = model_->backend();
  size_t n = end - begin;
  float* p = model_->params() + begin;
  const float* g = model_->grads() + begin;
  if (c_.kind == OptimizerKind::kSgd) {
    b->SgdStep(p, g, v_.data() + begin, n, lr, c_.momentum, c_.nesterov, c_.weight_decay);
  } else {
    b->AdamStep(p, g, m_.data() + begin, v_.data() + begin, n, lr, c_.beta1, c_.beta2, c_.eps,
                c_.weight_decay, c_.kind == OptimizerKind::kAdamW, t_);
  }
}

std::vector<float> Optimizer::SaveState() const {
  std::vector<float> out = m_.ToHost();
  std::vector<float> v = v_.ToHost();
  out.insert(out.end(), v.begin(), v.end());
  return out;
}

void Optimizer::LoadState(const std::vector<float>& state, int64_t steps) {
  std::vector<float> m(state.begin(), state.begin() + static_cast<long>(m_.size()));
  std::vector<float> v(state.begin() + static_cast<long>(m_.size()), state.end());
  if (m_.size() > 0) m_.FromHost(m);
  v_.FromHost(v);
  t_ = steps;
}

float LearningRate(Schedule s, float base_lr, double epoch, double total_epochs,
                   double warmup_epochs) {
  if (warmup_epochs > 0 && epoch < warmup_epochs)
    return static_cast<float>(base_lr * (epoch + 1e-9) / warmup_epochs);
  switch (s) {
    case Schedule::kStep: {
      double f = epoch / total_epochs;
      return static_cast<float>(base_lr * (f >= 0.75 ? 0.01 : f >= 0.5 ? 0.1 : 1.0));
    }
    case Schedule::kCosine: {
      double span = std::max(1e-9, total_epochs - warmup_epochs);
      double f = std::min(1.0, (epoch - warmup_epochs) / span);
      return static_cast<float>(base_lr * 0.5 * (1 + std::cos(M_PI * f)));
    }
    default:
      return base_lr;
  }
}

}  // namespace sweep::nn
