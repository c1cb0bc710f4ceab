// A finished trial's objectives and constraint values.
#include "tuner/trial_values.h"

#include <cmath>

#include "common/number_text.h"
#include "common/objectives.h"

namespace sweep {

FinishedValues ComputeFinishedValues(
    const pb::Study& study, const std::map<std::string, double>& finals,
    const std::function<std::optional<double>(const std::string&)>& reported) {
  std::map<std::string, std::optional<double>> seen;
  auto value_of = [&](const std::string& metric) {
    auto it = seen.find(metric);
    if (it != seen.end()) return it->second;
    auto f = finals.find(metric);
    std::optional<double> v =
        f != finals.end() ? std::optional<double>(f->second) : reported(metric);
    seen.emplace(metric, v);
    return v;
  };
  FinishedValues out;
  const std::vector<pb::Objective> objectives = ObjectivesOf(study);
  for (size_t i = 0; i < objectives.size(); ++i) {
    TrialValue v;
    v.kind = ValueKind::kObjective;
    v.position = static_cast<int>(i);
    v.metric = objectives[i].metric();
    v.value = value_of(v.metric);
    if (out.problem.empty() && (!v.value || !std::isfinite(*v.value))) {
      std::string where = study.objectives_size() > 0
                              ? "objectives[" + std::to_string(i) + "].metric"
                              : std::string("objective.metric");
      out.problem = !v.value ? "the trial reported no '" + v.metric + "' metric (" + where + ")"
                             : "objective '" + v.metric + "' is " + ScreenNumber(*v.value);
    }
    out.values.push_back(std::move(v));
  }
  for (int i = 0; i < study.constraints_size(); ++i) {
    const pb::OutcomeConstraint& c = study.constraints(i);
    TrialValue v;
    v.kind = ValueKind::kConstraint;
    v.position = i;
    v.metric = c.metric();
    v.value = value_of(v.metric);
    double violation = ConstraintViolation(c, v.value);
    if (std::isfinite(violation)) v.violation = violation;
    out.values.push_back(std::move(v));
  }
  return out;
}

}  // namespace sweep
