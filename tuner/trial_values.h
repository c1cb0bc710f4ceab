// What a finished trial's objectives and outcome constraints came to, for
// studies that track them (common/objectives.h TracksTrialValues): each
// metric's value from the trial's final message, else its latest report.
// Pure: StudyRun supplies the reports (tuner/study_values.cc).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "proto/sweep.pb.h"
#include "storage/trial_values.h"

namespace sweep {

struct FinishedValues {
  std::vector<TrialValue> values;  // the objectives in order, then the constraints
  // Why a completed trial fails: an objective it did not report, or one
  // that is not a finite number; "" when every objective is fine.
  std::string problem;
};

// `finals`: the metrics of the trial's final message (the first of each
// name; empty when that message is not used); `reported(metric)`: the
// latest report of `metric` at or before the step the trial ended at.
FinishedValues ComputeFinishedValues(
    const pb::Study& study, const std::map<std::string, double>& finals,
    const std::function<std::optional<double>(const std::string&)>& reported);

}  // namespace sweep
