// PBT with scripted generations, asserting every decision and directive.
#include "tuner/algorithms/pbt.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "tests/tuner/scheduler_script.h"

namespace sweep {
namespace {

TEST(PbtTest, BottomQuantileCopiesATopMemberWithACommittedCheckpoint) {
  Fixture f("{type: pbt, pbt: {population: 4, perturbation_interval: 2, resample_prob: 0}}",
            "minimize", 6);
  for (int n = 0; n < 4; ++n) ASSERT_EQ(f.s->NextTrial()->number, n);
  EXPECT_FALSE(f.s->NextTrial().has_value());
  EXPECT_EQ(f.s->DecisionSteps(0), (std::vector<int64_t>{2, 4}));
  for (int n = 0; n < 4; ++n) f.s->OnCheckpoint(n, 2);
  EXPECT_EQ(f.Decide(0, 2, 0.4), "pause");
  EXPECT_EQ(f.Decide(1, 2, 0.1), "pause");  // the best
  EXPECT_EQ(f.Decide(2, 2, 0.3), "pause");
  EXPECT_EQ(f.Decide(3, 2, 0.9), "exploit");  // the worst, last in: stopped and replaced
  EXPECT_EQ(f.last_reason,
            "exploited at generation 1 (step 2): value 0.9, rank 4 of 4 (bottom quantile); "
            "replaced by trial number 4, a copy of number 1 (0.1)");
  // One decision: the stop and the new trial that takes its place.
  ASSERT_TRUE(f.last_action.replacement.has_value());
  const TrialSpec& child = f.last_action.replacement->trial;
  // (in rank order)
  EXPECT_EQ(f.Directives(), (std::vector<std::string>{"1:continue", "2:continue", "0:continue"}));
  EXPECT_EQ(child.number, 4);
  EXPECT_EQ(child.parent, 1);
  EXPECT_EQ(child.parent_step, 2);
  // Explore: x1 is the parent's times 0.8 or 1.2 (resample_prob 0).
  auto parent_params = *MakeRandomSampler(*f.space, f.study.seed())->Point(1);
  double px = parent_params[0].value().number(), cx = child.params.params(0).value().number();
  EXPECT_TRUE(std::abs(cx - std::min(1.0, px * 0.8)) < 1e-12 ||
              std::abs(cx - std::min(1.0, px * 1.2)) < 1e-12)
      << px << " -> " << cx;
  EXPECT_NE(f.last_action.replacement->reason.find("copy of trial number 1 at step 2"),
            std::string::npos);
  // The child waits only at later generations.
  EXPECT_EQ(f.s->DecisionSteps(4), (std::vector<int64_t>{4}));
  // Generation 2 (step 4) has members 0, 1, 2 and the child 4.
  EXPECT_EQ(f.Decide(4, 4, 0.05), "pause");
  EXPECT_EQ(f.Decide(3, 4, 0.5), "continue");  // not a member any more: no decision
}

TEST(PbtTest, AMemberWithoutACheckpointIsNeverASource) {
  Fixture f("{type: pbt, pbt: {population: 4, perturbation_interval: 2}}", "maximize", 6);
  for (int n = 0; n < 4; ++n) f.s->NextTrial();
  f.s->OnCheckpoint(0, 2);  // only the worst member has one
  f.Decide(0, 2, 0.1);
  f.Decide(1, 2, 0.9);
  f.Decide(2, 2, 0.5);
  EXPECT_EQ(f.Decide(3, 2, 0.6), "promote");
  // The paused members 0, 1 and 2 resume; trial 3 continued directly.
  auto dirs = f.s->TakeDirectives();
  ASSERT_EQ(dirs.size(), 3u);
  std::vector<int64_t> numbers;
  for (const auto& d : dirs) {
    numbers.push_back(d.number);
    EXPECT_FALSE(d.action.replacement.has_value());
    EXPECT_EQ(d.action.decision, Decision::kContinue);
    if (d.number == 0) {
      EXPECT_NE(d.action.reason.find("not exploited: no top member has a committed checkpoint"),
                std::string::npos)
          << d.action.reason;
    }
  }
  std::sort(numbers.begin(), numbers.end());
  EXPECT_EQ(numbers, (std::vector<int64_t>{0, 1, 2}));
}

TEST(PbtTest, AMemberThatEndedIsReplacedByAnExploitDirective) {
  Fixture f("{type: pbt, pbt: {population: 4, perturbation_interval: 2}}", "minimize", 6);
  for (int n = 0; n < 4; ++n) f.s->NextTrial();
  for (int n = 0; n < 4; ++n) f.s->OnCheckpoint(n, 2);
  f.s->OnEnd(2, 1);  // failed before generation 1
  EXPECT_EQ(f.Decide(0, 2, 0.4), "pause");
  EXPECT_EQ(f.Decide(1, 2, 0.1), "pause");
  // 3 of 4 members reported: the bottom quantile of 3 is empty, so nobody is
  // exploited, and the lost member's place goes to a copy of the best.
  EXPECT_EQ(f.Decide(3, 2, 0.9), "promote");
  auto dirs = f.s->TakeDirectives();
  ASSERT_EQ(dirs.size(), 3u);
  EXPECT_EQ(dirs[2].number, 2);
  EXPECT_EQ(dirs[2].action.decision, Decision::kExploit);
  ASSERT_TRUE(dirs[2].action.replacement.has_value());
  EXPECT_EQ(dirs[2].action.replacement->trial.number, 4);
  EXPECT_EQ(dirs[2].action.replacement->trial.parent, 1);
  EXPECT_EQ(f.s->DecisionSteps(4), (std::vector<int64_t>{4}));
}

}  // namespace
}  // namespace sweep
