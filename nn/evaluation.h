// A model's quality on one split, summed example by example: the one place
// the train task's metrics are computed, for networks (Trainer::Evaluate)
// and trees (the gbdt task) alike.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "nn/data/examples.h"

namespace sweep::nn {

// Classification: mean cross-entropy, accuracy and macro F1 (over the
// classes in the labels or the predictions). Regression: mean squared error
// of the standardised targets, and RMSE, MAE and R^2 in the targets' own
// units. NaN where not measured.
struct Evaluation {
  double loss = 0;
  double accuracy = NAN, f1 = NAN;
  double rmse = NAN, mae = NAN, r2 = NAN;
};

class EvaluationSum {
 public:
  explicit EvaluationSum(const Splits& data);
  // Classification: one example's `scores` (outputs() of them; the highest
  // is its prediction) and its label.
  void AddClass(const float* scores, int32_t label);
  // Regression: a prediction and its target, both standardised.
  void AddTarget(double prediction, double target);
  // The loss of examples added, summed, where the model computes its own.
  void AddLoss(double sum) { loss_ += sum; }
  // Classification from probabilities: adds each example's cross-entropy
  // too (probabilities clamped at 1e-15, as scikit-learn's log_loss).
  void AddProbabilities(const float* p, int32_t label);
  Evaluation Done() const;

 private:
  const Splits& data_;
  int64_t n_ = 0;
  double loss_ = 0, sq_ = 0, abs_ = 0, y_mean_ = 0, y_m2_ = 0;
  std::vector<int64_t> truth_, predicted_, hit_;
};

}  // namespace sweep::nn
