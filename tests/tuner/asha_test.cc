// ASHA with scripted report sequences, asserting every decision.
#include "tuner/algorithms/asha.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/tuner/scheduler_script.h"

namespace sweep {
namespace {

TEST(AshaTest, RungsFollowTheReductionFactor) {
  Fixture f("{type: asha, max_trials: 10, asha: {min_resource: 1, reduction_factor: 3}}",
            "minimize", 81);
  EXPECT_EQ(AshaRungs(f.study), (std::vector<int64_t>{1, 3, 9, 27}));
  EXPECT_EQ(f.s->DecisionSteps(0), (std::vector<int64_t>{1, 3, 9, 27}));
  Fixture g(
      "{type: asha, max_trials: 10, asha: {min_resource: 2, reduction_factor: 2, grace_period: 4}}",
      "minimize", 20);
  EXPECT_EQ(AshaRungs(g.study), (std::vector<int64_t>{2, 4, 8, 16}));
  EXPECT_EQ(g.s->DecisionSteps(0), (std::vector<int64_t>{4, 8, 16}));
}

TEST(AshaTest, KeepsTheTopThirdOfEachRungSoFar) {
  Fixture f("{type: asha, max_trials: 20, asha: {min_resource: 1, reduction_factor: 3}}");
  EXPECT_EQ(f.Decide(0, 1, 0.50), "promote");  // 1 of 1
  EXPECT_EQ(f.Decide(1, 1, 0.60), "stop");     // 2 of 2, keep 1
  EXPECT_EQ(f.last_reason, "stopped at rung 0 (step 1): value 0.6 above cutoff 0.5, rank 2 of 2");
  EXPECT_EQ(f.Decide(2, 1, 0.40), "promote");  // 1 of 3
  EXPECT_EQ(f.last_reason, "promoted at rung 0 (step 1): value 0.4 within cutoff 0.4, rank 1 of 3");
  EXPECT_EQ(f.Decide(3, 1, 0.45), "stop");      // 2 of 4, keep 1
  EXPECT_EQ(f.Decide(4, 1, 0.70), "stop");      // 5 of 5
  EXPECT_EQ(f.Decide(5, 1, 0.42), "promote");   // 2 of 6, keep 2
  EXPECT_EQ(f.Decide(0, 2, 0.45), "continue");  // not a rung
  EXPECT_EQ(f.Decide(0, 3, 0.30), "promote");   // rung 1: 1 of 1
  EXPECT_EQ(f.Decide(2, 3, 0.35), "stop");      // rung 1: 2 of 2
  // A replayed report (resume rebuilds state by replay) or a re-run trial
  // gets its first decision again and changes nothing.
  EXPECT_EQ(f.Decide(1, 1, 0.60), "stop");
  EXPECT_EQ(f.last_reason, "stopped at rung 0 (step 1): value 0.6 above cutoff 0.5, rank 2 of 2");
  EXPECT_EQ(f.Decide(1, 1, 0.10), "stop");     // even if the re-run did better
  EXPECT_EQ(f.Decide(6, 1, 0.41), "promote");  // 2 of 7, keep 2: the replay did not add an 8th
  EXPECT_EQ(f.Decide(7, 1, std::nan("")), "stop");
  // A re-run of that step (the tuner asks DecisionAt) is stopped again.
  ASSERT_TRUE(f.s->DecisionAt(7, 1).has_value());
  EXPECT_EQ(f.s->DecisionAt(7, 1)->decision, Decision::kStop);
  EXPECT_EQ(f.Decide(0, 9, 0.2), "continue");  // max resource: no rung
}

TEST(AshaTest, MaximizeFlipsTheOrder) {
  Fixture f("{type: asha, max_trials: 20, asha: {reduction_factor: 2}}", "maximize", 8);
  EXPECT_EQ(f.Decide(0, 1, 0.8), "promote");
  EXPECT_EQ(f.Decide(1, 1, 0.9), "promote");  // 1 of 2, keep 1
  EXPECT_EQ(f.Decide(2, 1, 0.7), "stop");
  EXPECT_EQ(f.last_reason, "stopped at rung 0 (step 1): value 0.7 below cutoff 0.9, rank 3 of 3");
}

TEST(AshaTest, ReplayingEveryReportChangesNothing) {
  // reduction_factor 2, 8 steps: rungs at 1, 2 and 4.
  Fixture f("{type: asha, max_trials: 20, asha: {min_resource: 1, reduction_factor: 2}}",
            "minimize", 8);
  struct Report {
    int64_t n, step;
    double v;
    std::string decision, reason;
  };
  const std::vector<Report> script = {
      {0, 1, 0.5, "promote",
       "promoted at rung 0 (step 1): value 0.5 within cutoff 0.5, rank 1 of 1"},
      {1, 1, 0.4, "promote",
       "promoted at rung 0 (step 1): value 0.4 within cutoff 0.4, rank 1 of 2"},
      {2, 1, 0.6, "stop", "stopped at rung 0 (step 1): value 0.6 above cutoff 0.4, rank 3 of 3"},
      {0, 2, 0.3, "promote",
       "promoted at rung 1 (step 2): value 0.3 within cutoff 0.3, rank 1 of 1"},
      {0, 3, 0.3, "continue", ""},  // not a rung
  };
  for (const auto& r : script) {
    EXPECT_EQ(f.Decide(r.n, r.step, r.v), r.decision) << r.n << "@" << r.step;
    EXPECT_EQ(f.last_reason, r.reason);
  }
  // The tuner rebuilds its state by replaying stored reports, in order.
  for (const auto& r : script) {
    EXPECT_EQ(f.Decide(r.n, r.step, r.v), r.decision) << "replay " << r.n << "@" << r.step;
    EXPECT_EQ(f.last_reason, r.reason);
  }
  EXPECT_EQ(f.s->DecisionAt(2, 1)->decision, Decision::kStop);
  EXPECT_EQ(f.s->DecisionAt(0, 2)->decision, Decision::kContinue);
  EXPECT_FALSE(f.s->DecisionAt(1, 2).has_value());  // not decided yet
  EXPECT_FALSE(f.s->DecisionAt(0, 3).has_value());  // not a rung
  // Rung 0 still holds three results: a fourth is ranked among four, not seven.
  EXPECT_EQ(f.Decide(3, 1, 0.55), "stop");
  EXPECT_EQ(f.last_reason, "stopped at rung 0 (step 1): value 0.55 above cutoff 0.5, rank 3 of 4");
  // Rung 1 still holds one: the second is ranked among two.
  EXPECT_EQ(f.Decide(1, 2, 0.35), "stop");
  EXPECT_EQ(f.last_reason, "stopped at rung 1 (step 2): value 0.35 above cutoff 0.3, rank 2 of 2");
}

}  // namespace
}  // namespace sweep
