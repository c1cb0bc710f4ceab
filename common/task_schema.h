// What each task kind takes and reports: the synthetic functions' inputs and
// the metric names per task, read by validation, the tasks and the docs.
// Immutable; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "proto/sweep.pb.h"

namespace sweep {

struct SyntheticFunctionInfo {
  pb::SyntheticFunction function;
  std::string_view name;  // as written in a study
  int inputs;             // reads parameters x1..x<inputs>
  bool variadic;          // also reads x<inputs+1>, ... where the study defines them
  int objectives = 1;     // 1: reports `value`; more: f1, f2, ...
};

// branin, hartmann6, rosenbrock, curve, ackley, levy, zdt1, zdt2, dtlz2.
const std::vector<SyntheticFunctionInfo>& SyntheticFunctions();
// nullptr for SYNTHETIC_FUNCTION_UNSPECIFIED or an unknown number.
const SyntheticFunctionInfo* FindSyntheticFunction(pb::SyntheticFunction function);

struct TaskMetricInfo {
  pb::Task::KindCase kind;
  // Reported at every step, then the ones only the final result carries.
  std::vector<std::string_view> per_step;
  std::vector<std::string_view> final_only;
  std::string_view problem;  // train: the task.train.problem these are for
};

const std::vector<TaskMetricInfo>& TaskMetricTable();

// Every metric name a task reports (per step, then final only); empty for a
// task without a kind. The train task reports a metric only where it is
// measured (R^2 of a constant target is not).
std::vector<std::string> MetricsOfTask(const pb::Task& task);

}  // namespace sweep
