// Hyperband's plan and its synchronous halving with scripted report
// sequences, asserting every decision and directive.
#include "tuner/algorithms/hyperband.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>

#include "tests/tuner/scheduler_script.h"

namespace sweep {
namespace {

TEST(HyperbandTest, BracketTableForR81Eta3EqualsThePapers) {
  Fixture f("{type: hyperband, hyperband: {min_resource: 1, reduction_factor: 3}}", "minimize", 81);
  HyperbandPlan plan = PlanHyperband(f.study);
  // Li et al., JMLR 2018, Table 1 (R = 81, eta = 3): n_i @ r_i per bracket.
  std::vector<std::vector<std::pair<int64_t, int64_t>>> paper = {
      {{81, 1}, {27, 3}, {9, 9}, {3, 27}, {1, 81}},
      {{34, 3}, {11, 9}, {3, 27}, {1, 81}},
      {{15, 9}, {5, 27}, {1, 81}},
      {{8, 27}, {2, 81}},
      {{5, 81}}};
  ASSERT_EQ(plan.brackets.size(), paper.size());
  for (size_t b = 0; b < paper.size(); ++b) {
    EXPECT_EQ(plan.brackets[b].s, 4 - static_cast<int>(b));
    ASSERT_EQ(plan.brackets[b].rungs.size(), paper[b].size()) << "bracket " << b;
    for (size_t i = 0; i < paper[b].size(); ++i) {
      EXPECT_EQ(plan.brackets[b].rungs[i].trials, paper[b][i].first) << b << "/" << i;
      EXPECT_EQ(plan.brackets[b].rungs[i].resource, paper[b][i].second) << b << "/" << i;
    }
  }
  EXPECT_EQ(plan.total_trials, 81 + 34 + 15 + 8 + 5);
  // Promoted trials continue from their checkpoints: 297 + 276 + 279 + 324 + 405.
  EXPECT_EQ(plan.total_resource, 1581);
  EXPECT_EQ(f.s->DecisionSteps(0), (std::vector<int64_t>{1, 3, 9, 27}));
  EXPECT_EQ(f.s->DecisionSteps(81), (std::vector<int64_t>{3, 9, 27}));
  EXPECT_EQ(f.s->DecisionSteps(142), (std::vector<int64_t>{}));
}

TEST(HyperbandTest, BudgetRepeatsWholeBracketsOnly) {
  Fixture f("{type: hyperband, budget: 2000, hyperband: {reduction_factor: 3}}", "minimize", 81);
  HyperbandPlan plan = PlanHyperband(f.study);
  ASSERT_EQ(plan.brackets.size(), 6u);  // one iteration (1581) + s=4 again (297) = 1878
  EXPECT_EQ(plan.total_resource, 1878);
  EXPECT_EQ(plan.brackets[5].s, 4);
  EXPECT_EQ(plan.brackets[5].first_trial, 143);
  Fixture g("{type: hyperband, budget: 100, hyperband: {reduction_factor: 3}}", "minimize", 81);
  EXPECT_FALSE(CheckPlan(g.study).ok());
}

TEST(HyperbandTest, SynchronousHalvingPausesUntilTheRungIsComplete) {
  // R = 9, eta = 3: bracket s=2 is 9 @ 1, 3 @ 3, 1 @ 9 (trials 0..8).
  Fixture f("{type: hyperband, hyperband: {reduction_factor: 3}}", "minimize", 9);
  for (int n = 0; n < 9; ++n) ASSERT_EQ(f.s->NextTrial()->number, n);
  for (int n = 0; n < 8; ++n) {
    EXPECT_EQ(f.Decide(n, 1, 0.1 * (9 - n)), "pause") << n;
    EXPECT_TRUE(f.Directives().empty());
  }
  EXPECT_EQ(f.last_reason,
            "paused at rung 0 (step 1) of bracket 2: value 0.2, 8 of 9 trials of the rung are in");
  // The ninth completes the rung: values 0.9..0.1 for trials 0..8; the best
  // three (8, 7, 6) continue, 8 directly, 7 and 6 by directive.
  EXPECT_EQ(f.Decide(8, 1, 0.1), "promote");
  EXPECT_EQ(f.last_reason,
            "promoted at rung 0 (step 1) of bracket 2: value 0.1 within cutoff 0.3, "
            "rank 1 of "
            "9, top 3 continue");
  auto d = f.Directives();
  std::sort(d.begin(), d.end());
  EXPECT_EQ(d, (std::vector<std::string>{"0:stop", "1:stop", "2:stop", "3:stop", "4:stop", "5:stop",
                                         "6:continue", "7:continue"}));
  // Replaying a report (a restart) or re-running a trial gives the same decision.
  EXPECT_EQ(f.Decide(3, 1, 0.6), "stop");
  EXPECT_EQ(f.Decide(6, 1, 0.3), "promote");
  EXPECT_TRUE(f.Directives().empty());
  // Rung 1: trial 7 fails before step 3, so the rung completes without it.
  EXPECT_EQ(f.Decide(6, 3, 0.05), "pause");
  f.s->OnEnd(7, 2);
  EXPECT_EQ(f.Directives(), (std::vector<std::string>{}));
  EXPECT_EQ(f.Decide(8, 3, 0.07), "stop");  // 2 of 2 in; keep n_2 = 1
  EXPECT_EQ(f.Directives(), (std::vector<std::string>{"6:continue"}));
  EXPECT_FALSE(f.s->Exhausted());  // bracket s=1 (trials 9..13) and s=0 are still to come
}

// A database written before a re-run's report stopped replacing the first
// holds promoted trials' rung-0 reports at their re-run's time, after other
// trials' rung-1 reports. Replayed in that order, the rung-1 reports wait
// until rung 0 resolves, and every decision is the in-order one (before,
// they were dropped and rung 1 never completed).
TEST(HyperbandTest, ARungReportReplayedBeforeTheRungBelowResolvedCountsOnceItHas) {
  const std::string alg = "{type: hyperband, max_trials: 9, hyperband: {reduction_factor: 3}}";
  Fixture in_order(alg, "minimize", 9), replayed(alg, "minimize", 9);
  for (int n = 0; n < 9; ++n) {
    in_order.s->NextTrial();
    replayed.s->NextTrial();
  }
  auto v = [](int n) { return 0.1 * (9 - n); };  // 8, 7, 6 are promoted
  for (int n = 0; n < 9; ++n) in_order.s->OnReport(n, 1, v(n));
  for (int n : {6, 7, 8}) in_order.s->OnReport(n, 3, v(n) / 2);
  for (int n = 0; n < 6; ++n) replayed.s->OnReport(n, 1, v(n));
  for (int n : {6, 7, 8}) {
    replayed.s->OnReport(n, 1, v(n));  // its re-run's time: after the rung-1 reports before it
    replayed.s->OnReport(n, 3, v(n) / 2);
  }
  for (int n = 0; n < 9; ++n) {
    for (int64_t step : {1, 3}) {
      auto a = in_order.s->DecisionAt(n, step), b = replayed.s->DecisionAt(n, step);
      ASSERT_EQ(a.has_value(), b.has_value()) << n << "@" << step;
      if (a) EXPECT_EQ(a->reason, b->reason) << n << "@" << step;
    }
  }
  ASSERT_TRUE(replayed.s->DecisionAt(8, 3).has_value());
  EXPECT_EQ(replayed.s->DecisionAt(8, 3)->decision, Decision::kContinue);  // the best goes on
  EXPECT_EQ(replayed.s->DecisionAt(6, 3)->decision, Decision::kStop);
  EXPECT_EQ(replayed.s->Exhausted(), in_order.s->Exhausted());
}

TEST(HyperbandTest, ARungWhoseTrialsAllFailResolvesTheBracket) {
  Fixture f("{type: hyperband, max_trials: 9, hyperband: {reduction_factor: 3}}", "minimize", 9);
  for (int n = 0; n < 9; ++n) f.s->NextTrial();
  EXPECT_FALSE(f.s->NextTrial().has_value());  // max_trials holds only bracket s=2
  for (int n = 0; n < 9; ++n) f.s->OnEnd(n, 0);
  EXPECT_TRUE(f.s->Exhausted());
}

}  // namespace
}  // namespace sweep
