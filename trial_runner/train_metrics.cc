// The train task's metrics; see train_metrics.h.
#include "trial_runner/train_metrics.h"

#include <cmath>
#include <iterator>
#include <utility>

namespace sweep {

pb::Metric M(const std::string& name, double v) {
  pb::Metric m;
  m.set_name(name);
  m.set_value(v);
  return m;
}

void AddEvaluation(const std::string& prefix, const nn::Evaluation& e,
                   std::vector<pb::Metric>* out) {
  const std::pair<const char*, double> all[] = {{"loss", e.loss}, {"accuracy", e.accuracy},
                                                {"f1", e.f1},     {"rmse", e.rmse},
                                                {"mae", e.mae},   {"r2", e.r2}};
  for (const auto& [name, v] : all)
    if (std::isfinite(v)) out->push_back(M(prefix + name, v));
}

nn::Evaluation MeanEvaluation(const std::vector<nn::Evaluation>& folds) {
  nn::Evaluation mean;
  double* const fields[] = {&mean.loss, &mean.accuracy, &mean.f1, &mean.rmse, &mean.mae, &mean.r2};
  for (double* f : fields) *f = 0;
  for (const nn::Evaluation& e : folds) {
    const double values[] = {e.loss, e.accuracy, e.f1, e.rmse, e.mae, e.r2};
    for (size_t i = 0; i < std::size(fields); ++i) *fields[i] += values[i];
  }
  for (double* f : fields) *f /= static_cast<double>(folds.size());
  return mean;
}

}  // namespace sweep
