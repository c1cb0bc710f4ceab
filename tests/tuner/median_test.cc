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

TEST(MedianTest, NoTrialStopsWithinTheGracePeriod) {
  Fixture f("{type: median, max_trials: 20, median: {grace_period: 3, min_trials: 1}}");
  for (int step = 1; step <= 4; ++step) {
    EXPECT_EQ(f.Decide(0, step, 0.5), "continue") << step;  // no other trial yet
  }
  EXPECT_EQ(f.Decide(1, 1, 0.9), "continue");  // worse than 0.5, but step 1 < grace period 3
  EXPECT_EQ(f.Decide(1, 2, 0.9), "continue");  // step 2 < 3
  EXPECT_EQ(f.Decide(1, 3, 0.9), "stop");      // best 0.9 > median(0.5) of 1 other
  EXPECT_EQ(
      f.last_reason,
      "stopped at step 3: best value 0.9 above the median running average 0.5 of 1 other trials");
  EXPECT_FALSE(f.s->DecisionAt(1, 2).has_value());
  ASSERT_TRUE(f.s->DecisionAt(1, 3).has_value());
  EXPECT_EQ(f.s->DecisionAt(1, 3)->decision, Decision::kStop);
}

TEST(MedianTest, NoTrialStopsUntilMinTrialsOthersReachedTheStep) {
  Fixture f("{type: median, max_trials: 20, median: {grace_period: 1, min_trials: 2}}");
  EXPECT_EQ(f.Decide(0, 1, 0.5), "continue");  // 0 others
  EXPECT_EQ(f.Decide(1, 1, 0.9), "continue");  // 1 other (0.5) < min_trials 2: no median yet
  EXPECT_EQ(f.Decide(2, 1, 0.9), "stop");      // 2 others: best 0.9 > median(0.5, 0.9) = 0.7
  EXPECT_EQ(
      f.last_reason,
      "stopped at step 1: best value 0.9 above the median running average 0.7 of 2 other trials");
  EXPECT_EQ(f.Decide(3, 1, 0.6), "continue");  // best 0.6 < median(0.5, 0.9, 0.9) = 0.9
  // Others at a different step do not count: trial 0 alone reached step 2.
  EXPECT_EQ(f.Decide(0, 2, 0.5), "continue");
  EXPECT_EQ(f.Decide(3, 2, 0.9), "continue");  // 1 other at step 2 < min_trials 2
}

TEST(MedianTest, AReplayedReportGetsItsFirstDecisionAndChangesNothing) {
  Fixture f("{type: median, max_trials: 20, median: {grace_period: 1, min_trials: 1}}");
  EXPECT_EQ(f.Decide(0, 1, 0.5), "continue");
  EXPECT_EQ(f.Decide(1, 1, 0.9), "stop");
  EXPECT_EQ(f.Decide(0, 1, 0.5), "continue");  // replayed
  EXPECT_EQ(f.Decide(1, 1, 0.1), "stop");      // a re-run doing better is still stopped
  EXPECT_EQ(
      f.last_reason,
      "stopped at step 1: best value 0.9 above the median running average 0.5 of 1 other trials");
  // The replays added nothing: trial 2 sees the averages 0.5 and 0.9 once each.
  EXPECT_EQ(f.Decide(2, 1, 0.8), "stop");
  EXPECT_EQ(
      f.last_reason,
      "stopped at step 1: best value 0.8 above the median running average 0.7 of 2 other trials");
}

}  // namespace
}  // namespace sweep
