// A finished trial's objectives and constraint values: from its final
// result, else its latest report; what makes a completed trial fail.
#include "tuner/trial_values.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/objectives.h"

namespace sweep {
namespace {

pb::Study TwoObjectives() {
  pb::Study s;
  for (const char* m : {"acc", "latency"}) {
    auto* o = s.add_objectives();
    o->set_metric(m);
    o->set_goal(pb::GOAL_MINIMIZE);
  }
  auto* c = s.add_constraints();
  c->set_metric("memory");
  c->set_max(100);
  auto* d = s.add_constraints();
  d->set_metric("acc");
  d->set_min(0.5);
  d->set_max(0.9);
  return s;
}

TEST(TrialValues, FinalResultFirstThenLatestReport) {
  std::map<std::string, double> finals = {{"acc", 0.7}};
  int asked = 0;
  auto v = ComputeFinishedValues(TwoObjectives(), finals, [&](const std::string& m) {
    ++asked;
    return m == "latency" ? std::optional<double>(12.5) : std::optional<double>(150);
  });
  EXPECT_EQ(v.problem, "");
  ASSERT_EQ(v.values.size(), 4u);
  EXPECT_EQ(v.values[0].kind, ValueKind::kObjective);
  EXPECT_EQ(*v.values[0].value, 0.7);
  EXPECT_EQ(*v.values[1].value, 12.5);
  EXPECT_EQ(v.values[2].kind, ValueKind::kConstraint);
  EXPECT_EQ(*v.values[2].value, 150);
  EXPECT_DOUBLE_EQ(*v.values[2].violation, 50);
  EXPECT_EQ(*v.values[3].value, 0.7);  // acc again, from the final result
  EXPECT_EQ(*v.values[3].violation, 0);
  EXPECT_EQ(asked, 2);  // latency and memory, each once
}

TEST(TrialValues, AMissingOrNonFiniteObjectiveIsTheProblem) {
  auto missing = ComputeFinishedValues(TwoObjectives(), {{"acc", 0.6}},
                                       [](const std::string&) { return std::nullopt; });
  EXPECT_EQ(missing.problem, "the trial reported no 'latency' metric (objectives[1].metric)");
  EXPECT_FALSE(missing.values[2].violation);  // memory never reported: broken
  EXPECT_EQ(ConstraintViolation(TwoObjectives().constraints(0), std::nullopt),
            std::numeric_limits<double>::infinity());
  auto nan = ComputeFinishedValues(TwoObjectives(), {{"acc", 0.6}, {"latency", std::nan("")}},
                                   [](const std::string&) { return 1.0; });
  EXPECT_EQ(nan.problem, "objective 'latency' is nan");
}

TEST(TrialValues, ViolationIsTheDistanceOutsideTheBounds) {
  pb::OutcomeConstraint c;
  c.set_metric("m");
  c.set_min(1);
  c.set_max(2);
  EXPECT_EQ(ConstraintViolation(c, 1.5), 0);
  EXPECT_EQ(ConstraintViolation(c, 0.25), 0.75);
  EXPECT_EQ(ConstraintViolation(c, 3), 1);
  EXPECT_EQ(ConstraintViolation(c, std::nan("")), std::numeric_limits<double>::infinity());
  EXPECT_EQ(ConstraintText(c), "1 <= m <= 2");
}

}  // namespace
}  // namespace sweep
