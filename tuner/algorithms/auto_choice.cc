#include "tuner/algorithms/auto_choice.h"

namespace sweep {

AutoChoice ChooseAuto(const pb::Study& study) {
  AutoChoice c;
  int numeric = 0, categorical = 0;
  for (const pb::Parameter& p : study.parameters()) {
    if (p.when_size() > 0) {
      c.reason = "tpe throughout: '" + p.name() +
                 "' is conditional (when:), and TPE models each branch where the GP cannot";
      return c;
    }
    if (p.type() == pb::PARAM_TYPE_CATEGORICAL) ++categorical;
    if (p.type() == pb::PARAM_TYPE_INT || p.type() == pb::PARAM_TYPE_FLOAT) ++numeric;
  }
  if (categorical > numeric) {
    c.reason = "tpe throughout: " + std::to_string(categorical) + " of the " +
               std::to_string(categorical + numeric) +
               " parameters are categorical, which TPE models better than the GP";
    return c;
  }
  c.gp_trials = kAutoGpTrials;
  c.reason = "gp for the first " + std::to_string(kAutoGpTrials) +
             " trials, then tpe: " + std::to_string(numeric) + " numeric and " +
             std::to_string(categorical) +
             " categorical parameters, where the GP learns faster while its cost (the cube of "
             "the trials) is small";
  return c;
}

}  // namespace sweep
