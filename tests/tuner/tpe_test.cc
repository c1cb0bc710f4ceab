// TPE and BOHB proposals on scripted histories: the start-up points, the
// good/bad split (stopped trials after completed ones, failed ones left
// out), determinism, the constant liar's guarantee, conditional spaces.
#include "tuner/algorithms/tpe.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "common/values.h"
#include "search_spaces/samplers.h"
#include "search_spaces/study_parser.h"
#include "search_spaces/validate.h"
#include "tuner/model_study.h"

namespace sweep {
namespace {

using Tpe = ModelStudy;

TEST(TpeTest, StartUpProposalsAreTheHaltonPoints) {
  Tpe f("{type: tpe, max_trials: 20}");
  auto halton = MakeQuasiRandomSampler(*f.space, f.study.seed());
  Scheduler& s = f.Start();
  for (int k = 0; k < 10; ++k) {
    auto spec = s.NextTrial();
    ASSERT_TRUE(spec);
    EXPECT_EQ(spec->number, k);
    double expected = NAN;
    ASSERT_TRUE(ValueAsDouble(halton->Point(k)->Get(0).value(), &expected));
    EXPECT_EQ(X(*spec), expected);
    EXPECT_NE(spec->origin.find("start-up draw (0 of the 10"), std::string::npos) << spec->origin;
  }
}

TEST(TpeTest, AScriptedHistoryGivesADeterministicProposalInTheGoodRegion) {
  // 20 trials at x = 0, 0.05, ..., 0.95 of (x - 0.7)^2: the good two are
  // 0.7 and 0.65 (ceil(0.1 * 20) = 2).
  auto propose = [](int seed) {
    Tpe f("{type: tpe, max_trials: 100}", "  x: {type: float, min: 0, max: 1}\n", seed);
    for (int k = 0; k < 20; ++k)
      f.AddX(TrialStatus::kCompleted, k * 0.05, std::pow(k * 0.05 - 0.7, 2));
    auto spec = f.Start().NextTrial();
    EXPECT_TRUE(spec);
    EXPECT_EQ(spec->number, 20);
    EXPECT_NE(
        spec->origin.find(
            "TPE: 2 good and 18 bad trials; best good: trial 14, 13, l/g of the winning candidate"),
        std::string::npos)
        << spec->origin;
    return X(*spec);
  };
  double a = propose(5);
  EXPECT_EQ(a, propose(5));  // a pure function of seed, number and history
  EXPECT_NE(a, propose(6));
  for (int seed = 0; seed < 20; ++seed) {
    double x = propose(seed);
    EXPECT_GT(x, 0.5) << seed;
    EXPECT_LT(x, 0.9) << seed;
  }
}

TEST(TpeTest, StoppedTrialsRankAfterCompletedOnesByStepAndFailedOnesAreLeftOut) {
  Tpe f("{type: tpe, max_trials: 100, tpe: {n_startup_trials: 2, gamma: 0.75}}",
        "  x: {type: float, min: 0, max: 1}\n", 5, 9);
  f.AddX(TrialStatus::kCompleted, 0.9, 5.0, 9);
  f.AddX(TrialStatus::kCompleted, 0.8, 4.0, 9);
  f.AddX(TrialStatus::kStopped, 0.1, 0.0, 3);  // best value, but stopped early
  f.AddX(TrialStatus::kStopped, 0.3, 9.0, 5);  // reached further: ranks first of the two
  f.AddX(TrialStatus::kFailed, 0.5, std::nullopt);
  // n = 4 judged trials; ceil(0.75 * 4) = 3 good: the two completed and the
  // one stopped at step 5. The one stopped at step 3 is bad.
  auto spec = f.Start().NextTrial();
  ASSERT_TRUE(spec);
  EXPECT_NE(spec->origin.find("TPE: 3 good and 1 bad trials"), std::string::npos) << spec->origin;
  // Best first: the completed ones by value (1 then 0), then the stopped
  // trial that reached step 5 (3), not the one stopped at step 3 (2).
  EXPECT_NE(spec->origin.find("best good: trial 1, 0, 3,"), std::string::npos) << spec->origin;
}

TEST(TpeTest, LogIntegersWithASteppedGridStayOnIt) {
  // 1, 5, ..., 65 on a log scale: half a step below 1 would be negative.
  Tpe f("{type: tpe, max_trials: 100, tpe: {n_startup_trials: 3}}",
        "  n: {type: int, min: 1, max: 65, step: 4, log: true}\n");
  for (int v : {1, 5, 9, 33, 65}) f.Add(TrialStatus::kCompleted, {{"n", IntegerValue(v)}}, v);
  Scheduler& s = f.Start();
  for (int i = 0; i < 30; ++i) {
    auto spec = s.NextTrial();
    ASSERT_TRUE(spec);
    double n = X(*spec, "n");
    EXPECT_GE(n, 1) << spec->origin;
    EXPECT_LE(n, 65);
    EXPECT_EQ(static_cast<int64_t>(n - 1) % 4, 0) << n;
  }
}

TEST(TpeTest, RunningTrialsCountAsBadAndNoTwoUnfinishedTrialsShareAPoint) {
  Tpe f("{type: tpe, max_trials: 100, tpe: {n_startup_trials: 3}}",
        "  x: {type: int, min: 0, max: 3}\n");
  f.Add(TrialStatus::kCompleted, {{"x", IntegerValue(0)}}, 1.0);
  f.Add(TrialStatus::kCompleted, {{"x", IntegerValue(1)}}, 2.0);
  f.Add(TrialStatus::kCompleted, {{"x", IntegerValue(3)}}, 3.0);
  // x = 0 is by far the best, but three trials already run there and at 1, 2.
  f.Add(TrialStatus::kRunning, {{"x", IntegerValue(0)}}, std::nullopt);
  f.Add(TrialStatus::kQueued, {{"x", IntegerValue(1)}}, std::nullopt);
  f.Add(TrialStatus::kRunning, {{"x", IntegerValue(2)}}, std::nullopt);
  auto spec = f.Start().NextTrial();
  ASSERT_TRUE(spec);
  EXPECT_EQ(X(*spec), 3.0) << spec->origin;
  EXPECT_NE(spec->origin.find("(3 running, counted bad)"), std::string::npos) << spec->origin;

  // No free point left: the proposal repeats one, and says so.
  f.Add(TrialStatus::kRunning, {{"x", IntegerValue(3)}}, std::nullopt);
  auto again = f.Start().NextTrial();
  ASSERT_TRUE(again);
  EXPECT_NE(
      again->origin.find("it repeats an unfinished trial's point: 65 draws found no free one"),
      std::string::npos)
      << again->origin;
}

TEST(TpeTest, ConditionalBranchesAreModelledAsGroupsAndStayValid) {
  std::string params =
      "  opt: {type: categorical, values: [sgd, adam]}\n"
      "  momentum: {type: float, min: 0, max: 1, when: {opt: sgd}}\n"
      "  beta: {type: float, min: 0.5, max: 1, when: {opt: adam}}\n"
      "  lr: {type: float, min: 1e-4, max: 1, log: true}\n";
  for (bool multivariate : {true, false}) {
    Tpe f("{type: tpe, max_trials: 100, tpe: {multivariate: " +
              std::string(multivariate ? "true" : "false") + "}}",
          params);
    for (int k = 0; k < 30; ++k) {
      bool sgd = k % 3 == 0;
      double lr = std::pow(10, -4 + 4 * (k % 7) / 6.0);
      std::vector<std::pair<std::string, pb::Value>> p = {
          {"opt", pb::Value()},
          {sgd ? "momentum" : "beta", NumberValue(0.5 + 0.01 * k)},
          {"lr", NumberValue(lr)}};
      p[0].second.set_text(sgd ? "sgd" : "adam");
      // sgd with momentum near 0.8 is the good region.
      f.Add(TrialStatus::kCompleted, p, sgd ? std::abs(0.5 + 0.01 * k - 0.8) : 1.0 + k);
    }
    Scheduler& s = f.Start();
    int sgd = 0;
    for (int i = 0; i < 20; ++i) {
      auto spec = s.NextTrial();
      ASSERT_TRUE(spec);
      std::set<std::string> names;
      std::string opt;
      for (const auto& pv : spec->params.params()) {
        names.insert(pv.name());
        if (pv.name() == "opt") opt = pv.value().text();
      }
      ASSERT_TRUE(opt == "sgd" || opt == "adam");
      EXPECT_EQ(names.count("momentum"), opt == "sgd" ? 1u : 0u);
      EXPECT_EQ(names.count("beta"), opt == "adam" ? 1u : 0u);
      double lr = X(*spec, "lr");
      EXPECT_GE(lr, 1e-4);
      EXPECT_LE(lr, 1.0);
      sgd += opt == "sgd";
    }
    // The good trials all used sgd: the model proposes it most of the time.
    EXPECT_GE(sgd, 12) << "multivariate " << multivariate;
  }
}

TEST(TpeTest, BohbModelsTheLargestRungStepWithEnoughResults) {
  // R = 9, eta = 3: rungs at steps 1, 3, 9. One parameter: 2 results needed.
  Tpe f(
      "{type: bohb, hyperband: {min_resource: 1, reduction_factor: 3}, "
      "bohb: {random_fraction: 0}}",
      "  x: {type: float, min: 0, max: 1}\n", 5, 9);
  Scheduler& s = f.Start();
  auto first = s.NextTrial();
  ASSERT_TRUE(first);
  EXPECT_NE(first->origin.find("no rung step has 2 results yet"), std::string::npos)
      << first->origin;
  // Trials 0..3 report at step 1, trials 0 and 1 also at step 3.
  for (int n = 0; n < 4; ++n) s.OnReport(n, 1, 0.1 * n);
  s.OnReport(0, 3, 0.05);
  s.OnReport(1, 3, 0.2);
  for (int n = 0; n < 4; ++n)
    f.AddX(TrialStatus::kPaused, 0.2 * n + 0.1, std::nullopt, n < 2 ? 3 : 1);
  auto next = s.NextTrial();
  ASSERT_TRUE(next);
  EXPECT_NE(next->origin.find("BOHB: TPE on the results at step 3 (1 good, 1 bad)"),
            std::string::npos)
      << next->origin;
}

}  // namespace
}  // namespace sweep
