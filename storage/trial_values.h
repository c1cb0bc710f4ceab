// A finished trial's objectives and outcome-constraint values, as the
// tuner stores them (table trial_values) and readers read them: for studies
// with several objectives or with constraints (common/objectives.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sweep {

enum class ValueKind { kObjective, kConstraint };

struct TrialValue {
  ValueKind kind = ValueKind::kObjective;
  int position = 0;  // in the study's objectives, or its constraints
  std::string metric;
  std::optional<double> value;  // nullopt: the trial never reported it
  // Constraints only: how far the value lies outside its bounds (0: it
  // holds); nullopt where the value is missing or not a number, which no
  // bound holds for.
  std::optional<double> violation;
};

// One trial's row of values as the tuner loads them back: its objectives in
// the study's order (NaN: missing) and its total violation (+infinity: a
// constrained metric missing).
struct TrialValueSummary {
  std::vector<double> objectives;
  double violation = 0;
};

// The words table trial_values stores a kind as.
const char* ValueKindName(ValueKind kind);

}  // namespace sweep
