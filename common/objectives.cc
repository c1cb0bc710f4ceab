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
