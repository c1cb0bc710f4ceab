// Shared by the validation files (validate*.cc) only: the error collector and
// the checks each file contributes to ValidateStudy.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/status.h"
#include "proto/sweep.pb.h"
#include "search_spaces/study_parser.h"

namespace sweep::validate_internal {

// Collects every problem with its file:line:column, so all are reported at
// once.
class Checker {
 public:
  explicit Checker(const SourceMap& source) : source_(source) {}

  void Fail(const std::string& path, const std::string& what) {
    errors_.push_back(source_.Where(path) + path + ": " + what);
  }
  // An error already located ("file:line:col: path: what").
  void Add(const std::string& located) { errors_.push_back(located); }
  bool ok() const { return errors_.empty(); }
  Status status() const {
    if (errors_.empty()) return Status::Ok();
    std::string all;
    for (const auto& e : errors_) all += (all.empty() ? "" : "\n") + e;
    return Status::InvalidArgument(all);
  }

 private:
  const SourceMap& source_;
  std::vector<std::string> errors_;
};

inline std::string Num(double v) { return FormatDouble(v); }

inline bool IsInteger(double v) {
  return std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9e15;
}

// validate_parameters.cc: names, types, ranges, choices and conditions.
void CheckParameters(const pb::Study& study, Checker* c);

// validate_task.cc: the task (synthetic or train), its parameters and
// objective.metric.
void CheckTask(const pb::Study& study, Checker* c);

// validate_algorithm.cc: the algorithm type, its settings and limits.
void CheckAlgorithm(const pb::Study& study, Checker* c);

}  // namespace sweep::validate_internal
