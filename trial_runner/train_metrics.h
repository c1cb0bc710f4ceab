// The train task's metrics as the tuner receives them, for every model
// family (common/task_schema.cc names them).
#pragma once

#include <string>
#include <vector>

#include "nn/evaluation.h"
#include "proto/sweep.pb.h"

namespace sweep {

pb::Metric M(const std::string& name, double v);

// The measured ones of an evaluation's metrics, as `prefix`loss,
// `prefix`accuracy, ...
void AddEvaluation(const std::string& prefix, const nn::Evaluation& e,
                   std::vector<pb::Metric>* out);

// Each metric's mean over the folds of a cross-validated trial (as
// scikit-learn's cross_val_score and FLAML average theirs).
nn::Evaluation MeanEvaluation(const std::vector<nn::Evaluation>& folds);

}  // namespace sweep
