// A TaskContext for tests that run a train task in-process: it keeps every
// step reported, the last value of each metric and each step's checkpoint.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "trial_runner/task.h"

namespace sweep {

struct StepRecorder : TaskContext {
  void Report(int64_t step, const std::vector<pb::Metric>& m) override {
    steps.push_back(step);
    for (const auto& x : m) last[x.name()] = x.value();
  }
  void Checkpoint(int64_t step, std::string bytes) override { checkpoints[step] = bytes; }
  bool StopRequested() const override { return false; }
  int64_t CommittedStep() const override { return 0; }
  void Log(std::string) override {}
  std::vector<int64_t> steps;
  std::map<std::string, double> last;
  std::map<int64_t, std::string> checkpoints;
};

}  // namespace sweep
