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
  EXPECT_NEAR(Ackley(std::vector<double>(10, 0.0)), 0.0, 1e-12);
  // Ackley at (1, 0): -20 e^(-0.2 sqrt(1/2)) - e^((1 + 1) / 2) + 20 + e.
  EXPECT_NEAR(Ackley({1, 0}), -20 * std::exp(-0.2 * std::sqrt(0.5)) - M_E + 20 + M_E, 1e-12);
  EXPECT_NEAR(Levy(std::vector<double>(10, 1.0)), 0.0, 1e-12);
  // Levy at (0, 0): w = 0.75; sin²(0.75π) + 0.0625 (1 + 10 sin²(0.75π + 1)) + 0.0625 (1 +
  // sin²(1.5π)).
  double s1 = std::sin(0.75 * M_PI), s2 = std::sin(0.75 * M_PI + 1), s3 = std::sin(1.5 * M_PI);
  EXPECT_NEAR(Levy({0, 0}), s1 * s1 + 0.0625 * (1 + 10 * s2 * s2) + 0.0625 * (1 + s3 * s3), 1e-12);
}

TEST(SyntheticTest, CurveSlowStartersEndBest) {
  std::vector<double> slow = {0.7}, fast = {0.1};
  EXPECT_GT(Curve(slow, 1), Curve(fast, 1));    // worse early
  EXPECT_LT(Curve(slow, 50), Curve(fast, 50));  // better late
  EXPECT_NEAR(Curve(slow, 1e6), 0.1, 1e-9);     // final value at the optimum
  for (int t = 1; t < 30; ++t) EXPECT_LT(Curve(slow, t + 1), Curve(slow, t));  // monotone
}

// Records what a task sends, as the runner would forward it.
class Recorder : public TaskContext {
 public:
  void Report(int64_t step, const std::vector<pb::Metric>& m) override {
    reports.emplace_back(step, m.at(0).value());
  }
  void Checkpoint(int64_t step, std::string bytes) override {
    checkpoints.emplace_back(step, std::move(bytes));
  }
  bool StopRequested() const override { return false; }
  int64_t CommittedStep() const override { return 0; }
  void Log(std::string) override {}
  std::vector<std::pair<int64_t, double>> reports;
  std::vector<std::pair<int64_t, std::string>> checkpoints;
};

pb::Assign CurveAssign(double x1, int steps) {
  pb::Assign a;
  a.mutable_task()->mutable_synthetic()->set_function(pb::SYNTHETIC_FUNCTION_CURVE);
  a.mutable_task()->mutable_synthetic()->set_steps(steps);
  auto* p = a.add_params();
  p->set_name("x1");
  p->mutable_value()->set_number(x1);
  return a;
}

TEST(SyntheticTest, CurveResumesFromItsCheckpointAtADecisionStep) {
  pb::Assign a = CurveAssign(0.3, 6);
  a.add_decision_steps(2);
  a.add_decision_steps(4);
  Recorder whole;
  RunSyntheticTask(a, &whole);
  ASSERT_EQ(whole.reports.size(), 6u);
  ASSERT_EQ(whole.checkpoints.size(), 2u);  // only at decision steps
  EXPECT_EQ(whole.checkpoints[0].first, 2);
  // Resumed from step 2's checkpoint: steps 3..6, bit-identical.
  pb::Assign resumed = a;
  resumed.set_checkpoint(whole.checkpoints[0].second);
  resumed.set_checkpoint_step(2);
  Recorder rest;
  TaskResult r = RunSyntheticTask(resumed, &rest);
  ASSERT_EQ(rest.reports.size(), 4u);
  EXPECT_EQ(rest.reports.front().first, 3);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(rest.reports[i].second, whole.reports[i + 2].second);
  EXPECT_EQ(r.outcome, pb::TRIAL_OUTCOME_COMPLETED);
  // Another configuration from the same state carries on from that value
  // (PBT's exploit), not from its own start.
  pb::Assign other = CurveAssign(0.9, 6);
  other.set_checkpoint(whole.checkpoints[0].second);
  Recorder child;
  RunSyntheticTask(other, &child);
  EXPECT_LT(child.reports.front().second, whole.reports[1].second);
  EXPECT_LT(child.reports.front().second, CurveStart({0.9}));
  // Garbage is refused with a reason.
  other.set_checkpoint("not a checkpoint");
  Recorder bad;
  TaskResult refused = RunSyntheticTask(other, &bad);
  EXPECT_EQ(refused.outcome, pb::TRIAL_OUTCOME_FAILED);
  EXPECT_NE(refused.error.find("cannot resume"), std::string::npos);
}

// Only trials that cannot block or take long run on the runner's socket
// thread; everything else keeps the worker, so the heartbeat never stops.
TEST(SyntheticTest, RunsOnSocketThreadOnlyForInstantTrials) {
  pb::Assign a = CurveAssign(0.3, 10);
  EXPECT_TRUE(RunsOnSocketThread(a));
  pb::Assign slow = a;
  slow.mutable_task()->mutable_synthetic()->set_step_ms(1);
  EXPECT_FALSE(RunsOnSocketThread(slow));
  pb::Assign rung = a;
  rung.add_decision_steps(3);  // waits for the tuner's decision
  EXPECT_FALSE(RunsOnSocketThread(rung));
  pb::Assign crash = a;
  crash.mutable_task()->mutable_synthetic()->set_crash_prob(0.5);
  EXPECT_FALSE(RunsOnSocketThread(crash));
  pb::Assign hang = a;
  hang.mutable_task()->mutable_synthetic()->set_hang_prob(0.5);
  EXPECT_FALSE(RunsOnSocketThread(hang));
  pb::Assign longer = a;
  longer.mutable_task()->mutable_synthetic()->set_steps(kInstantMaxSteps + 1);
  EXPECT_FALSE(RunsOnSocketThread(longer));
  pb::Assign train;
  train.mutable_task()->mutable_train();
  EXPECT_FALSE(RunsOnSocketThread(train));
}

}  // namespace
}  // namespace sweep
