// Optimizers (SGD with momentum/Nesterov, Adam, AdamW) over a model's flat
// parameter buffer, and learning-rate schedules. Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nn/model.h"

namespace sweep::nn {

enum class OptimizerKind { kSgd, kAdam, kAdamW };

struct OptimizerConfig {
  OptimizerKind kind = OptimizerKind::kSgd;
  float momentum = 0.f;
  bool nesterov = false;
  float weight_decay = 0.f;
  float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
};

class Optimizer {
 public:
  Optimizer(Model* model, OptimizerConfig config);
  void Step(float lr) {
    Begin();
    Update(lr, 0, model_->param_count());
  }
  // A step in parts: Begin once, then Update disjoint ranges (from any
  // thread, one range each).
  void Begin() { ++t_; }
  void Update(float lr, size_t begin, size_t end);
  int64_t steps() const { return t_; }
  // Optimizer state for checkpoints: moment buffers then nothing else.
  std::vector<float> SaveState() const;
  void LoadState(const std::vector<float>& state, int64_t steps);
  size_t state_size() const { return m_.size() + v_.size(); }

 private:
  Model* model_;
  OptimizerConfig c_;
  Tensor m_, v_;  // SGD uses v_ (velocity); Adam uses both
  int64_t t_ = 0;
};

enum class Schedule { kConstant, kStep, kCosine };

// Learning rate at fractional epoch `epoch` (0 at the start): linear warm-up
// over `warmup_epochs`, then constant, step (x0.1 at 50% and 75% of training)
// or cosine decay to 0 at `total_epochs`.
float LearningRate(Schedule s, float base_lr, double epoch, double total_epochs,
                   double warmup_epochs);

}  // namespace sweep::nn
