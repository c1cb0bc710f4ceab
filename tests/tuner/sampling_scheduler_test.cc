// Random, grid and quasi-random search: the sampling scheduler proposes
// trials and spends the budget; it never stops one.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "common/values.h"
#include "tests/tuner/scheduler_script.h"

namespace sweep {
namespace {

TEST(BudgetTest, NoNewTrialOnceTheResourceIsSpent) {
  Fixture f("{type: random, max_trials: 100, budget: 5}");
  ASSERT_TRUE(f.s->NextTrial().has_value());
  for (int step = 1; step <= 4; ++step) f.s->OnReport(0, step, 1.0);
  EXPECT_FALSE(f.s->Exhausted());
  f.s->OnReport(0, 5, 1.0);
  EXPECT_TRUE(f.s->Exhausted());
  EXPECT_FALSE(f.s->NextTrial().has_value());
}

TEST(SamplingSchedulerTest, GridProposesEveryPointOnceThenIsExhausted) {
  Fixture f("{type: grid}", "minimize", 3, "  x1: {type: float, min: 0, max: 1, step: 0.5}\n");
  auto s = MakeSamplingScheduler(f.study, *f.space, 0, 0);
  EXPECT_EQ(s->Planned(), 3);
  std::set<std::string> seen;
  for (int n = 0; n < 3; ++n) {
    EXPECT_FALSE(s->Exhausted());
    auto spec = s->NextTrial();
    ASSERT_TRUE(spec.has_value());
    EXPECT_EQ(spec->number, n);
    EXPECT_EQ(spec->parent, -1);
    seen.insert(ParamsToJson(spec->params.params()));
    EXPECT_EQ(s->OnReport(n, 1, 0.5).decision, Decision::kContinue);  // it never stops a trial
  }
  EXPECT_EQ(seen.size(), 3u);
  EXPECT_TRUE(s->Exhausted());
  EXPECT_FALSE(s->NextTrial().has_value());
}

TEST(SamplingSchedulerTest, ResumingContinuesTheSequenceWhereItStopped) {
  for (const std::string type : {"random", "quasirandom", "grid"}) {
    Fixture f("{type: " + type + ", max_trials: 5, budget: 8}", "minimize", 3,
              "  x1: {type: int, min: 0, max: 9}\n  x2: {type: int, min: 0, max: 9}\n");
    auto fresh = MakeSamplingScheduler(f.study, *f.space, 0, 0);
    std::vector<std::string> points;
    for (int n = 0; n < 5; ++n) points.push_back(ParamsToJson(fresh->NextTrial()->params.params()));
    EXPECT_FALSE(fresh->NextTrial().has_value()) << type;  // max_trials
    // Two trials created and 6 steps run before a restart.
    auto resumed = MakeSamplingScheduler(f.study, *f.space, 2, 6);
    for (int n = 2; n < 5; ++n) {
      auto spec = resumed->NextTrial();
      ASSERT_TRUE(spec.has_value()) << type;
      EXPECT_EQ(spec->number, n) << type;
      EXPECT_EQ(ParamsToJson(spec->params.params()), points[n]) << type << " " << n;
    }
    EXPECT_FALSE(resumed->NextTrial().has_value()) << type;
    // The steps already run count against the budget.
    auto spent = MakeSamplingScheduler(f.study, *f.space, 2, 8);
    EXPECT_TRUE(spent->Exhausted()) << type;
    EXPECT_FALSE(spent->NextTrial().has_value()) << type;
  }
}

}  // namespace
}  // namespace sweep
