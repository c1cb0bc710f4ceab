// Shared by the validation files (validate*.cc) only: the error collector and
// the checks each file contributes to ValidateStudy.
#pragma once

#include <cmath>
#include <set>
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
  explicit Checker(const SourceMap& source, const std::set<std::string>* refused = nullptr)
      : source_(source), refused_(refused) {}

  void Fail(const std::string& path, const std::string& what) {
    if (!FollowsRefused(path)) errors_.push_back(source_.Where(path) + path + ": " + what);
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
  // The reader refused the value at `path`, one inside it or one around it
  // (ParsedStudy::refused), and said so: a check that finds the field
  // missing or odd would only repeat that.
  bool FollowsRefused(const std::string& path) const {
    if (refused_ == nullptr) return false;
    for (const std::string& r : *refused_) {
      auto within = [](const std::string& inner, const std::string& outer) {
        return inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 &&
               (inner[outer.size()] == '.' || inner[outer.size()] == '[');
      };
      if (path == r || within(path, r) || (!path.empty() && within(r, path))) return true;
    }
    return false;
  }

  const SourceMap& source_;
  const std::set<std::string>* refused_;
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

// validate_objectives.cc: objective or objectives, their metrics, and the
// outcome constraints.
void CheckObjectives(const pb::Study& study, Checker* c);
// validate_objectives.cc: each parameter constraint compiles, and random
// draws find feasible points. Only once the parameters are valid.
void CheckParameterConstraints(const pb::Study& study, Checker* c);

}  // namespace sweep::validate_internal
