// Algorithms with scripted report sequences, asserting every decision.
#include "tuner/scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "search_spaces/samplers.h"
#include "search_spaces/study_parser.h"
#include "search_spaces/validate.h"
#include "tuner/algorithms/asha.h"
#include "tuner/algorithms/hyperband.h"

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
  // "continue", "promote" (continue with a reason), "pause" or "stop".
  std::string Decide(int64_t n, int64_t step, double v) {
    Action a = s->OnReport(n, step, v);
    last_reason = a.reason;
    if (a.decision == Decision::kStop) return "stop";
    if (a.decision == Decision::kPause) return "pause";
    return a.reason.empty() ? "continue" : "promote";
  }
  // Directives as "number:continue" / "number:stop" / "number:spawn<-parent@step".
  std::vector<std::string> Directives() {
    std::vector<std::string> out;
    for (const auto& d : s->TakeDirectives()) {
      if (d.spawn) {
        out.push_back(std::to_string(d.number) + ":spawn<-" + std::to_string(d.spawn->parent) +
                      "@" + std::to_string(d.spawn->parent_step));
      } else {
        out.push_back(std::to_string(d.number) + ":" + DecisionName(d.decision));
      }
    }
    return out;
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
            "promoted at rung 0 (step 1) of bracket 2: value 0.1 within cutoff 0.3, rank 1 of "
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

TEST(HyperbandTest, ARungWhoseTrialsAllFailResolvesTheBracket) {
  Fixture f("{type: hyperband, max_trials: 9, hyperband: {reduction_factor: 3}}", "minimize", 9);
  for (int n = 0; n < 9; ++n) f.s->NextTrial();
  EXPECT_FALSE(f.s->NextTrial().has_value());  // max_trials holds only bracket s=2
  for (int n = 0; n < 9; ++n) f.s->OnEnd(n, 0);
  EXPECT_TRUE(f.s->Exhausted());
}

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
  EXPECT_EQ(f.Decide(3, 2, 0.9), "stop");  // the worst, last in: exploited
  EXPECT_EQ(f.last_reason,
            "exploited at generation 1 (step 2): value 0.9, rank 4 of 4 (bottom quantile); "
            "replaced by trial number 4, a copy of number 1 (0.1)");
  auto dirs = f.s->TakeDirectives();
  ASSERT_EQ(dirs.size(), 4u);  // three resumes and one new trial
  auto spawn = std::find_if(dirs.begin(), dirs.end(), [](const auto& d) { return d.spawn; });
  ASSERT_NE(spawn, dirs.end());
  int resumes = 0;
  for (const auto& d : dirs)
    if (!d.spawn) {
      EXPECT_EQ(d.decision, Decision::kContinue);
      ++resumes;
    }
  EXPECT_EQ(resumes, 3);
  const TrialSpec& child = *spawn->spawn;
  EXPECT_EQ(child.number, 4);
  EXPECT_EQ(child.parent, 1);
  EXPECT_EQ(child.parent_step, 2);
  // Explore: x1 is the parent's times 0.8 or 1.2 (resample_prob 0).
  auto parent_params = *MakeRandomSampler(*f.space, f.study.seed())->Point(1);
  double px = parent_params[0].value().number(), cx = child.params.params(0).value().number();
  EXPECT_TRUE(std::abs(cx - std::min(1.0, px * 0.8)) < 1e-12 ||
              std::abs(cx - std::min(1.0, px * 1.2)) < 1e-12)
      << px << " -> " << cx;
  EXPECT_NE(spawn->reason.find("copy of trial number 1 at step 2"), std::string::npos);
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
    EXPECT_FALSE(d.spawn.has_value());
    EXPECT_EQ(d.decision, Decision::kContinue);
    if (d.number == 0) {
      EXPECT_NE(d.reason.find("not exploited: no top member has a committed checkpoint"),
                std::string::npos)
          << d.reason;
    }
  }
  std::sort(numbers.begin(), numbers.end());
  EXPECT_EQ(numbers, (std::vector<int64_t>{0, 1, 2}));
}

}  // namespace
}  // namespace sweep
