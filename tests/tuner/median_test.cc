// The median stopping rule with scripted report sequences, asserting every decision.
#include "tuner/algorithms/median.h"

#include <gtest/gtest.h>

#include <tuple>

#include "tests/tuner/scheduler_script.h"

namespace sweep {
namespace {

TEST(MedianTest, StopsTrialsWorseThanTheMedianRunningAverage) {
  Fixture f("{type: median, max_trials: 20, median: {grace_period: 2, min_trials: 2}}");
  // Two reference trials: running averages at step 2 are 0.5 and 0.7.
  for (auto [n, a, b] : {std::tuple{0, 0.6, 0.4}, std::tuple{1, 0.8, 0.6}}) {
    EXPECT_EQ(f.Decide(n, 1, a), "continue");
    EXPECT_EQ(f.Decide(n, 2, b), "continue");  // fewer than min_trials others at step 2
  }
  EXPECT_EQ(f.Decide(2, 1, 0.9), "continue");  // grace period
  EXPECT_EQ(f.Decide(2, 2, 0.65), "stop");     // best 0.65 > median(0.5, 0.7) = 0.6
  EXPECT_EQ(
      f.last_reason,
      "stopped at step 2: best value 0.65 above the median running average 0.6 of 2 other trials");
  EXPECT_EQ(f.Decide(3, 1, 0.9), "continue");
  EXPECT_EQ(f.Decide(3, 2, 0.55), "continue");  // best 0.55 < median(0.5, 0.7, 0.775) = 0.7
}

}  // namespace
}  // namespace sweep
