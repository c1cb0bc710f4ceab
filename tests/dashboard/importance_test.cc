// PED-ANOVA finds the parameter that decides the objective, numeric or
// categorical, and counts only the trials that have a conditional one.
#include "dashboard/importance.h"

#include <gtest/gtest.h>

#include <random>

#include "common/values.h"

namespace sweep {
namespace {

pb::Study Space() {
  pb::Study s;
  s.mutable_objective()->set_metric("loss");
  s.mutable_objective()->set_goal(pb::GOAL_MINIMIZE);
  auto* x = s.add_parameters();
  x->set_name("x"), x->set_type(pb::PARAM_TYPE_FLOAT), x->set_min(0), x->set_max(1);
  auto* noise = s.add_parameters();
  noise->set_name("noise"), noise->set_type(pb::PARAM_TYPE_FLOAT), noise->set_min(1e-4),
      noise->set_max(1), noise->set_log(true);
  auto* c = s.add_parameters();
  c->set_name("c"), c->set_type(pb::PARAM_TYPE_CATEGORICAL);
  for (const char* v : {"a", "b", "c"}) c->add_values()->set_text(v);
  auto* k = s.add_parameters();
  k->set_name("k"), k->set_type(pb::PARAM_TYPE_CONSTANT), k->mutable_value()->set_integer(3);
  return s;
}

struct Draw {
  double x, noise;
  int c;
};

std::vector<TrialView> Trials(int n, double (*objective)(const Draw&), bool c_only_half = false) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<TrialView> out;
  const char* names[] = {"a", "b", "c"};
  for (int i = 0; i < n; ++i) {
    Draw d{u(rng), std::exp(std::log(1e-4) * u(rng)), static_cast<int>(u(rng) * 3)};
    TrialView t;
    t.id = i + 1, t.number = i, t.status = TrialStatus::kCompleted;
    auto add = [&](const char* name, pb::Value v) {
      auto* p = t.params.add_params();
      p->set_name(name);
      *p->mutable_value() = v;
    };
    add("x", NumberValue(d.x));
    add("noise", NumberValue(d.noise));
    if (!c_only_half || i % 2 == 0) {
      pb::Value v;
      v.set_text(names[d.c]);
      add("c", v);
    }
    t.value = objective(d);
    out.push_back(t);
  }
  return out;
}

TEST(PedAnovaTest, TheParameterThatDecidesTheObjectiveComesFirst) {
  auto trials = Trials(300, [](const Draw& d) { return (d.x - 0.3) * (d.x - 0.3); });
  Importance imp = PedAnova(Space(), trials);
  EXPECT_EQ(imp.trials, 300);
  EXPECT_EQ(imp.top, 30);
  ASSERT_EQ(imp.params.size(), 3u);  // the constant is left out
  EXPECT_EQ(imp.params[0].name, "x");
  EXPECT_GT(imp.params[0].importance, 0.8);
  double sum = 0;
  for (const auto& p : imp.params) sum += p.importance;
  EXPECT_NEAR(sum, 1.0, 1e-12);
}

TEST(PedAnovaTest, ACategoricalParameterCanMatterMost) {
  // Ties within a category keep the order the trials came in: no other
  // parameter sets the best apart.
  auto trials = Trials(300, [](const Draw& d) { return d.c * 1.0; });
  Importance imp = PedAnova(Space(), trials);
  ASSERT_FALSE(imp.params.empty());
  EXPECT_EQ(imp.params[0].name, "c");
  EXPECT_GT(imp.params[0].importance, 0.7);
}

TEST(PedAnovaTest, OnALogScaleTheSmallValuesCanBeTheGoodOnes) {
  // Good trials have noise below 1e-3: a tenth of the log range, a
  // thousandth of the linear one; PED-ANOVA sees it on the log scale.
  auto trials = Trials(300, [](const Draw& d) { return d.noise < 1e-3 ? 0.0 : 1.0 + d.x * 1e-3; });
  Importance imp = PedAnova(Space(), trials);
  EXPECT_EQ(imp.params[0].name, "noise");
}

TEST(PedAnovaTest, AConditionalParameterCountsOnlyTheTrialsThatHaveIt) {
  auto trials = Trials(
      100, [](const Draw& d) { return d.x; }, true);
  Importance imp = PedAnova(Space(), trials);
  for (const auto& p : imp.params) EXPECT_EQ(p.trials, p.name == "c" ? 50 : 100) << p.name;
}

TEST(PedAnovaTest, FewerThanFourCompletedTrialsGiveNothing) {
  auto trials = Trials(10, [](const Draw& d) { return d.x; });
  for (size_t i = 3; i < trials.size(); ++i) trials[i].status = TrialStatus::kStopped;
  Importance imp = PedAnova(Space(), trials);
  EXPECT_EQ(imp.trials, 3);
  EXPECT_TRUE(imp.params.empty());
}

TEST(PedAnovaTest, MaximizingRanksTheLargestValuesFirst) {
  pb::Study s = Space();
  s.mutable_objective()->set_goal(pb::GOAL_MAXIMIZE);
  auto trials = Trials(300, [](const Draw& d) { return d.x > 0.9 ? 1.0 : 0.0; });
  Importance imp = PedAnova(s, trials);
  EXPECT_EQ(imp.params[0].name, "x");
  EXPECT_GT(imp.params[0].importance, 0.8);
}

}  // namespace
}  // namespace sweep
