// A study's objectives and outcome constraints.
#include "common/objectives.h"

#include <cmath>
#include <limits>

#include "common/number_text.h"

namespace sweep {

const pb::Objective& PrimaryObjective(const pb::Study& study) {
  return study.objectives_size() > 0 ? study.objectives(0) : study.objective();
}

std::vector<pb::Objective> ObjectivesOf(const pb::Study& study) {
  if (study.objectives_size() == 0) return {study.objective()};
  return {study.objectives().begin(), study.objectives().end()};
}

bool HasSeveralObjectives(const pb::Study& study) { return study.objectives_size() > 1; }

std::vector<double> GoalSigns(const std::vector<pb::Objective>& objectives) {
  std::vector<double> out;
  for (const pb::Objective& o : objectives) out.push_back(o.goal() == pb::GOAL_MAXIMIZE ? -1 : 1);
  return out;
}

std::vector<double> Minimised(std::vector<double> values, const std::vector<double>& signs) {
  for (size_t k = 0; k < values.size() && k < signs.size(); ++k) values[k] *= signs[k];
  return values;
}

bool TracksTrialValues(const pb::Study& study) {
  return study.objectives_size() > 0 || study.constraints_size() > 0;
}

double ConstraintViolation(const pb::OutcomeConstraint& c, std::optional<double> value) {
  if (!value || !std::isfinite(*value)) return std::numeric_limits<double>::infinity();
  double v = 0;
  if (c.has_min() && *value < c.min()) v += c.min() - *value;
  if (c.has_max() && *value > c.max()) v += *value - c.max();
  return v;
}

std::string ConstraintText(const pb::OutcomeConstraint& c) {
  std::string out;
  if (c.has_min()) out += ScreenNumber(c.min()) + " <= ";
  out += c.metric();
  if (c.has_max()) out += " <= " + ScreenNumber(c.max());
  return out;
}

}  // namespace sweep
