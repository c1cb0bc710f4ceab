// The knobs of a gradient-boosted tree model (model: gbdt), as the train
// task reads them (task.train: rounds, eta, max_depth, ...; docs/train.md).
#pragma once

#include <cstdint>

namespace sweep::nn {

struct TreeConfig {
  int rounds = 100;  // trees in all
  double eta = 0.3;
  int max_depth = 6;
  int max_leaves = 0;  // 0: no limit
  double min_child_weight = 1;
  double subsample = 1, colsample_bytree = 1;
  double reg_alpha = 0, reg_lambda = 1;
  uint64_t seed = 0;
  int threads = 1;
};

}  // namespace sweep::nn
