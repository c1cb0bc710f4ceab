// Synthetic objectives at their documented optima.
#include "trial_runner/synthetic.h"

#include <gtest/gtest.h>

#include <cmath>

namespace sweep {
namespace {

TEST(SyntheticTest, KnownOptima) {
  EXPECT_NEAR(Branin(-M_PI, 12.275), 0.397887, 1e-5);
  EXPECT_NEAR(Branin(M_PI, 2.275), 0.397887, 1e-5);
  EXPECT_NEAR(Branin(9.42478, 2.475), 0.397887, 1e-5);
  EXPECT_GT(Branin(0, 0), 1.0);
  EXPECT_NEAR(Hartmann6({0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573}), -3.32237, 1e-4);
  EXPECT_DOUBLE_EQ(Rosenbrock({1, 1, 1, 1}), 0.0);
  EXPECT_GT(Rosenbrock({0, 0}), 0.5);
}

TEST(SyntheticTest, CurveSlowStartersEndBest) {
  std::vector<double> slow = {0.7}, fast = {0.1};
  EXPECT_GT(Curve(slow, 1), Curve(fast, 1));    // worse early
  EXPECT_LT(Curve(slow, 50), Curve(fast, 50));  // better late
  EXPECT_NEAR(Curve(slow, 1e6), 0.1, 1e-9);     // final value at the optimum
  for (int t = 1; t < 30; ++t) EXPECT_LT(Curve(slow, t + 1), Curve(slow, t));  // monotone
}

}  // namespace
}  // namespace sweep
