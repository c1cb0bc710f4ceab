// Summing a split's metrics; see evaluation.h.
#include "nn/evaluation.h"

#include <algorithm>

namespace sweep::nn {

EvaluationSum::EvaluationSum(const Splits& data)
    : data_(data),
      truth_(static_cast<size_t>(data.outputs())),
      predicted_(truth_.size()),
      hit_(truth_.size()) {}

void EvaluationSum::AddClass(const float* z, int32_t label) {
  const int k = data_.outputs();
  const int arg = static_cast<int>(std::max_element(z, z + k) - z);
  truth_[static_cast<size_t>(label)]++;
  predicted_[static_cast<size_t>(arg)]++;
  hit_[static_cast<size_t>(arg)] += arg == label;
  ++n_;
}

void EvaluationSum::AddProbabilities(const float* p, int32_t label) {
  loss_ -= std::log(std::clamp(static_cast<double>(p[label]), 1e-15, 1.0));
  AddClass(p, label);
}

void EvaluationSum::AddTarget(double prediction, double target) {
  const double scale = data_.target_stddev, shift = data_.target_mean;
  const double y = target * scale + shift, p = prediction * scale + shift;
  sq_ += (p - y) * (p - y);
  abs_ += std::fabs(p - y);
  // The targets' spread for R^2 by Welford's update: sum(y^2) - sum(y)^2/n
  // cancels to nothing for targets far from 0 (a price of 1e8 +- 1).
  const double d = y - y_mean_;
  y_mean_ += d / static_cast<double>(++n_);
  y_m2_ += d * (y - y_mean_);
}

Evaluation EvaluationSum::Done() const {
  Evaluation e;
  if (n_ == 0) {
    e.loss = std::nan("");
    return e;
  }
  const double n = static_cast<double>(n_);
  e.loss = loss_ / n;
  if (data_.problem == Problem::kRegression) {
    e.rmse = std::sqrt(sq_ / n);
    e.mae = abs_ / n;
    e.r2 = y_m2_ > 0 ? 1 - sq_ / y_m2_ : std::nan("");
    return e;
  }
  int64_t hits = 0;
  double f1 = 0;
  int present = 0;
  for (size_t c = 0; c < truth_.size(); ++c) {
    hits += hit_[c];
    if (truth_[c] + predicted_[c] == 0) continue;
    ++present;
    f1 += 2.0 * static_cast<double>(hit_[c]) / static_cast<double>(truth_[c] + predicted_[c]);
  }
  e.accuracy = static_cast<double>(hits) / n;
  e.f1 = present ? f1 / present : std::nan("");
  return e;
}

}  // namespace sweep::nn
