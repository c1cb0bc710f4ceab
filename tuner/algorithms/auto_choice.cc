#include "tuner/algorithms/auto_choice.h"

#include <string>

namespace sweep {

AutoChoice ChooseAuto(const pb::Study& study) {
  AutoChoice c;
  if (study.objectives_size() > 1) {
    c.reason = "tpe throughout: the study has " + std::to_string(study.objectives_size()) +
               " objectives, which TPE splits by Pareto rank (MOTPE) and the GP does not model";
    return c;
  }
  if (study.constraints_size() > 0) {
    c.reason =
        "tpe throughout: the study has outcome constraints, which TPE learns from (an infeasible "
        "trial counts as bad) and the GP does not";
    return c;
  }
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
  // Mostly categorical spaces stay with the GP: on HPOLib's four tables with
  // every parameter categorical it beat TPE on all four (bench/RESULTS.md).
  c.gp_trials = kAutoGpTrials;
  c.reason = "gp for the first " + std::to_string(kAutoGpTrials) +
             " trials, then tpe: " + std::to_string(numeric) + " numeric and " +
             std::to_string(categorical) +
             " categorical parameters, where the GP learned faster than TPE on every benchmark "
             "while its cost (the cube of the trials) is small";
  return c;
}

}  // namespace sweep
