// Study validation of what a study optimises: `objective` or `objectives`
// (2 to 4), outcome `constraints` on reported metrics, and
// `parameter_constraints` (compiled here, then sampled: a space where random
// draws find almost no feasible point is refused).
#include <algorithm>
#include <cmath>
#include <set>

#include "common/nearest_word.h"
#include "common/objectives.h"
#include "common/rng.h"
#include "common/task_schema.h"
#include "search_spaces/parameter_constraints.h"
#include "search_spaces/space.h"
#include "search_spaces/validate_internal.h"

namespace sweep::validate_internal {

namespace {

// The algorithms that search with several objectives today.
bool SearchesSeveralObjectives(pb::AlgorithmType type) {
  return type == pb::ALGORITHM_TYPE_RANDOM || type == pb::ALGORITHM_TYPE_GRID ||
         type == pb::ALGORITHM_TYPE_QUASIRANDOM || type == pb::ALGORITHM_TYPE_TPE ||
         type == pb::ALGORITHM_TYPE_AUTO || type == pb::ALGORITHM_TYPE_NSGA2 ||
         type == pb::ALGORITHM_TYPE_ASHA;
}

// A metric a study chooses between trials by (`role`: an objective or a
// constraint) at `path`.
void CheckChosenMetric(const pb::Study& study, const std::string& path, const std::string& m,
                       const std::string& role, Checker* c) {
  if (m.empty()) {
    c->Fail(path, "is required");
    return;
  }
  auto metrics = MetricsOfTask(study.task());
  if (!metrics.empty() && std::find(metrics.begin(), metrics.end(), m) == metrics.end()) {
    c->Fail(path, "'" + m + "' is not reported by this task" + DidYouMean(m, metrics) +
                      " (it reports: " + JoinWords(metrics, 100) + ")");
  }
  // The test set is for the final, unbiased estimate: a metric on it that
  // chooses between trials leaks it into the result.
  if (study.task().has_train() && m.rfind("test_", 0) == 0) {
    c->Fail(path, "'" + m + "' is measured on the test set, which must never choose between " +
                      "trials; use the validation set's val_" + m.substr(5) +
                      " (every trial still reports " + m + ")");
  }
  if (study.task().has_train() && study.task().train().has_validation() &&
      study.task().train().validation() == 0 && m.rfind("val_", 0) == 0) {
    c->Fail("task.train.validation", "is 0, so there is no validation set and '" + m + "' (" +
                                         role + ") is never measured; keep a validation set, " +
                                         "or choose train_loss");
  }
}

void CheckObjective(const pb::Study& study, const pb::Objective& o, const std::string& path,
                    Checker* c) {
  CheckChosenMetric(study, path + ".metric", o.metric(), path + ".metric", c);
  if (o.goal() == pb::GOAL_UNSPECIFIED)
    c->Fail(path + ".goal", "is required (minimize or maximize)");
}

void CheckOutcomeConstraints(const pb::Study& study, Checker* c) {
  if (study.constraints_size() > 16)
    c->Fail("constraints",
            "has " + std::to_string(study.constraints_size()) + " entries; at most 16");
  for (int i = 0; i < study.constraints_size(); ++i) {
    const pb::OutcomeConstraint& k = study.constraints(i);
    std::string path = "constraints[" + std::to_string(i) + "]";
    CheckChosenMetric(study, path + ".metric", k.metric(), "a constraint", c);
    if (!k.has_min() && !k.has_max())
      c->Fail(path, "needs min, max or both, e.g. {metric: memory_mb, max: 16000}");
    for (auto [name, has, v] :
         {std::tuple{"min", k.has_min(), k.min()}, std::tuple{"max", k.has_max(), k.max()}}) {
      if (has && !std::isfinite(v)) c->Fail(path + "." + name, "must be a finite number");
    }
    if (k.has_min() && k.has_max() && k.min() > k.max())
      c->Fail(path, "min " + Num(k.min()) + " is above max " + Num(k.max()) +
                        ": no trial could be feasible");
  }
}

}  // namespace

void CheckObjectives(const pb::Study& study, Checker* c) {
  const int n = study.objectives_size();
  if (study.has_objective() && n > 0) {
    c->Fail("objectives", "and objective are exclusive: give one objective, or 2 to 4 objectives");
  } else if (!study.has_objective() && n == 0) {
    c->Fail("objective",
            "is required, e.g. objective: {metric: value, goal: minimize} (or objectives: a list "
            "of 2 to 4)");
  } else if (n == 1) {
    c->Fail("objectives", "has one entry; a single objective is written objective: {...}");
  } else if (n > 4) {
    c->Fail("objectives", "has " + std::to_string(n) + " entries; at most 4");
  }
  if (study.has_objective()) CheckObjective(study, study.objective(), "objective", c);
  std::set<std::string> seen;
  for (int i = 0; i < n; ++i) {
    std::string path = "objectives[" + std::to_string(i) + "]";
    CheckObjective(study, study.objectives(i), path, c);
    if (!study.objectives(i).metric().empty() && !seen.insert(study.objectives(i).metric()).second)
      c->Fail(path + ".metric", "'" + study.objectives(i).metric() + "' is an objective already");
  }
  if (n > 1 && !SearchesSeveralObjectives(study.algorithm().type())) {
    c->Fail("algorithm.type",
            study.algorithm().type() == pb::ALGORITHM_TYPE_PBT
                ? "pbt optimises one objective (it copies the best members); give one objective"
                : "searches one objective; with several, use tpe (MOTPE), nsga2, asha "
                  "(multi-objective ASHA), auto, random, grid or quasirandom (multi-objective "
                  "Hyperband, BOHB and the median rule are not built: docs/objectives.md)");
  }
  CheckOutcomeConstraints(study, c);
}

void CheckParameterConstraints(const pb::Study& study, Checker* c) {
  if (study.parameter_constraints_size() > 16)
    c->Fail("parameter_constraints",
            "has " + std::to_string(study.parameter_constraints_size()) + " entries; at most 16");
  bool ok = true;
  for (int i = 0; i < study.parameter_constraints_size(); ++i) {
    Status st = ParameterConstraints::Check(study, study.parameter_constraints(i));
    if (!st.ok()) {
      c->Fail("parameter_constraints[" + std::to_string(i) + "]", st.message());
      ok = false;
    }
  }
  if (!ok || study.parameter_constraints_size() == 0) return;
  auto space = SearchSpace::Create(study);
  if (!space.ok()) return;  // the parameters' own checks say why
  // Samplers redraw a point that breaks a constraint, up to kFeasibleDraws
  // times: a space where few random draws are feasible would make them fail.
  int feasible = 0;
  std::vector<int> broken(static_cast<size_t>(study.parameter_constraints_size()), 0);
  for (uint64_t k = 0; k < kFeasibleDraws; ++k) {
    Rng rng(HashKey({study.seed(), k, 0xc0517ULL}));
    Params p = space->Sample([&](int) { return rng.Uniform(); });
    int b = space->constraints()->FirstBroken(p);
    if (b < 0)
      ++feasible;
    else
      ++broken[static_cast<size_t>(b)];
  }
  if (feasible >= kFeasibleDraws / 1000) return;
  size_t worst = std::max_element(broken.begin(), broken.end()) - broken.begin();
  c->Fail("parameter_constraints",
          std::to_string(feasible) + " of " + std::to_string(kFeasibleDraws) +
              " random points of the space satisfy them (at least " +
              std::to_string(kFeasibleDraws / 1000) + " must); '" +
              study.parameter_constraints(static_cast<int>(worst)) + "' rules out the most (" +
              std::to_string(broken[worst]) + "): narrow the parameters' ranges to fit it");
}

}  // namespace sweep::validate_internal
