// Model-based search under parameter constraints: TPE, the GP and auto
// propose only points that satisfy them, from the start-up draws on, and
// still find the constrained optimum.
#include <gtest/gtest.h>

#include <cmath>

#include "tuner/model_study.h"

namespace sweep {
namespace {

const char* kSpace =
    "  x: {type: float, min: 0, max: 1}\n"
    "  y: {type: float, min: 0, max: 1}\n"
    "parameter_constraints: [\"x + y <= 0.6\"]\n";

TEST(ConstrainedProposals, TpeGpAndAutoProposeOnlyFeasiblePoints) {
  for (const char* alg : {"{type: tpe, max_trials: 40}", "{type: gp, max_trials: 30}",
                          "{type: auto, max_trials: 30}"}) {
    ModelStudy f(alg, kSpace);
    Scheduler& s = f.Start();
    double best = INFINITY;
    while (auto spec = s.NextTrial()) {
      double x = X(*spec, "x"), y = X(*spec, "y");
      EXPECT_LE(x + y, 0.6 + 1e-12) << alg << " trial " << spec->number << ": " << spec->origin;
      // The unconstrained minimum (0.5, 0.5) is infeasible: the constrained
      // one is on the line x + y = 0.6, at (0.3, 0.3), 0.08.
      double v = (x - 0.5) * (x - 0.5) + (y - 0.5) * (y - 0.5);
      best = std::min(best, v);
      f.Add(TrialStatus::kCompleted, {{"x", NumberValue(x)}, {"y", NumberValue(y)}}, v);
    }
    EXPECT_EQ(f.table.size(), alg[7] == 't' ? 40 : 30) << alg;
    EXPECT_LT(best, 0.09) << alg;
  }
}

}  // namespace
}  // namespace sweep
