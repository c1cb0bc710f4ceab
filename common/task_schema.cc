// The task schema tables: synthetic function inputs and task metrics.
#include "common/task_schema.h"

namespace sweep {

const std::vector<SyntheticFunctionInfo>& SyntheticFunctions() {
  static const std::vector<SyntheticFunctionInfo> kFunctions = {
      {pb::SYNTHETIC_FUNCTION_BRANIN, "branin", 2, false},
      {pb::SYNTHETIC_FUNCTION_HARTMANN6, "hartmann6", 6, false},
      {pb::SYNTHETIC_FUNCTION_ROSENBROCK, "rosenbrock", 2, true},
      {pb::SYNTHETIC_FUNCTION_CURVE, "curve", 1, true},
      {pb::SYNTHETIC_FUNCTION_ACKLEY, "ackley", 1, true},
      {pb::SYNTHETIC_FUNCTION_LEVY, "levy", 1, true},
      {pb::SYNTHETIC_FUNCTION_ZDT1, "zdt1", 2, true, 2},
      {pb::SYNTHETIC_FUNCTION_ZDT2, "zdt2", 2, true, 2},
      {pb::SYNTHETIC_FUNCTION_DTLZ2, "dtlz2", 3, true, 3},
  };
  return kFunctions;
}

const SyntheticFunctionInfo* FindSyntheticFunction(pb::SyntheticFunction function) {
  for (const auto& f : SyntheticFunctions())
    if (f.function == function) return &f;
  return nullptr;
}

const std::vector<TaskMetricInfo>& TaskMetricTable() {
  static const std::vector<TaskMetricInfo> kMetrics = {
      {pb::Task::kSynthetic, {"value"}, {}, {}},
      {pb::Task::kTrain,
       {"train_loss", "val_loss", "val_accuracy", "val_f1", "samples_per_s", "epoch_seconds",
        "cpu_threads"},
       {"test_loss", "test_accuracy", "test_f1"},
       "classification"},
      {pb::Task::kTrain,
       {"train_loss", "val_loss", "val_rmse", "val_mae", "val_r2", "samples_per_s", "epoch_seconds",
        "cpu_threads"},
       {"test_loss", "test_rmse", "test_mae", "test_r2"},
       "regression"},
  };
  return kMetrics;
}

std::vector<std::string> MetricsOfTask(const pb::Task& task) {
  std::vector<std::string> out;
  if (task.has_synthetic()) {
    const SyntheticFunctionInfo* fn = FindSyntheticFunction(task.synthetic().function());
    if (fn && fn->objectives > 1) {
      for (int i = 1; i <= fn->objectives; ++i) out.push_back("f" + std::to_string(i));
      return out;
    }
  }
  const std::string problem =
      task.train().has_problem() ? task.train().problem() : "classification";
  for (const auto& m : TaskMetricTable()) {
    if (m.kind != task.kind_case()) continue;
    if (!m.problem.empty() && m.problem != problem) continue;
    for (auto n : m.per_step) out.emplace_back(n);
    for (auto n : m.final_only) out.emplace_back(n);
  }
  return out;
}

}  // namespace sweep
