// Algorithms with scripted report sequences, asserting every decision.
#include "tuner/scheduler.h"

#include <gtest/gtest.h>

#include <cmath>

#include "search_spaces/study_parser.h"
#include "search_spaces/validate.h"

namespace sweep {
namespace {

struct Fixture {
  pb::Study study;
  std::unique_ptr<SearchSpace> space;
  std::unique_ptr<Scheduler> s;
  explicit Fixture(const std::string& algorithm, const std::string& goal = "minimize",
                   int steps = 9) {
    auto p = ParseStudyYaml(
        "name: t\nobjective: {metric: value, goal: " + goal +
            "}\ntask: {synthetic: {function: curve, steps: " + std::to_string(steps) +
            "}}\nalgorithm: " + algorithm + "\nparameters:\n  x1: {type: float, min: 0, max: 1}\n",
        "t.yaml");
    EXPECT_TRUE(p.ok()) << p.status().message();
    Status st = ValidateStudy(&*p);
    EXPECT_TRUE(st.ok()) << st.message();
    study = p->study;
    space = std::make_unique<SearchSpace>(*SearchSpace::Create(study));
    s = MakeScheduler(study, *space, 0, 0);
  }
  // "continue", "promote" (continue with a reason) or "stop".
  std::string Decide(int64_t n, int64_t step, double v) {
    Action a = s->OnReport(n, step, v);
    last_reason = a.reason;
    if (a.decision == Decision::kStop) return "stop";
    return a.reason.empty() ? "continue" : "promote";
  }
  std::string last_reason;
};

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
  EXPECT_EQ(f.Decide(0, 9, 0.2), "continue");  // max resource: no rung
}

TEST(AshaTest, MaximizeFlipsTheOrder) {
  Fixture f("{type: asha, max_trials: 20, asha: {reduction_factor: 2}}", "maximize", 8);
  EXPECT_EQ(f.Decide(0, 1, 0.8), "promote");
  EXPECT_EQ(f.Decide(1, 1, 0.9), "promote");  // 1 of 2, keep 1
  EXPECT_EQ(f.Decide(2, 1, 0.7), "stop");
  EXPECT_EQ(f.last_reason, "stopped at rung 0 (step 1): value 0.7 below cutoff 0.9, rank 3 of 3");
}

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

TEST(BudgetTest, NoNewTrialOnceTheResourceIsSpent) {
  Fixture f("{type: random, max_trials: 100, budget: 5}");
  ASSERT_TRUE(f.s->NextTrial().has_value());
  for (int step = 1; step <= 4; ++step) f.s->OnReport(0, step, 1.0);
  EXPECT_FALSE(f.s->Exhausted());
  f.s->OnReport(0, 5, 1.0);
  EXPECT_TRUE(f.s->Exhausted());
  EXPECT_FALSE(f.s->NextTrial().has_value());
}

}  // namespace
}  // namespace sweep
