// Random, grid and quasi-random search: the sampling scheduler proposes
// trials and spends the budget; it never stops one.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace sweep
