// A study's objectives and outcome constraints as every module reads them:
// `objective`, or `objectives` when the study has several (2 to 4). The
// first of several is the primary one: the trial's `value` column, the
// metric fail-fast and the progress line name.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "proto/sweep.pb.h"

namespace sweep {

// `objectives[0]` when the study has several, else `objective`.
const pb::Objective& PrimaryObjective(const pb::Study& study);
// Every objective, in the study's order (one for a single-objective study).
std::vector<pb::Objective> ObjectivesOf(const pb::Study& study);
bool HasSeveralObjectives(const pb::Study& study);
// Each objective's sign as the Pareto code (common/pareto.h) minimises it:
// -1 where it is maximised, 1 where minimised.
std::vector<double> GoalSigns(const std::vector<pb::Objective>& objectives);
// `values` (one per objective) with the maximised ones negated.
std::vector<double> Minimised(std::vector<double> values, const std::vector<double>& signs);
// Whether a finished trial's objectives and constraint values are stored
// apart from its `value` (table trial_values): several objectives, or any
// outcome constraint.
bool TracksTrialValues(const pb::Study& study);

// How far `value` lies outside constraint `c`: 0 when it holds, the
// distance to the bound it breaks otherwise, +infinity when the metric was
// not reported or is not a finite number.
double ConstraintViolation(const pb::OutcomeConstraint& c, std::optional<double> value);
// The constraint as people read it: "memory_mb <= 16000",
// "0.8 <= val_accuracy", "0 <= x <= 1".
std::string ConstraintText(const pb::OutcomeConstraint& c);

}  // namespace sweep
