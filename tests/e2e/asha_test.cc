// ASHA end to end on the synthetic learning curves: trials stop exactly at
// rungs, every stop is explained, and resource is saved.
#include <gtest/gtest.h>

#include "e2e/harness.h"

namespace sweep::e2e {
namespace {

TEST(E2eAshaTest, StopsAtRungsAndExplainsWhy) {
  TempDir dir;
  std::string study = dir.Write(
      "a.yaml",
      "name: asha\nobjective: {metric: value, goal: minimize}\n"
      "task: {synthetic: {function: curve, steps: 27}}\n"
      "algorithm: {type: asha, max_trials: 30, asha: {min_resource: 1, reduction_factor: 3}}\n"
      "seed: 4\nparameters:\n  x1: {type: float, min: 0, max: 1}\n  x2: {type: float, min: 0, max: "
      "1}\n");
  std::string db = dir.File("a.db"), out;
  ASSERT_EQ(
      RunSweep({"run", study, "--db", db, "--local-runners", "2", "--progress", "plain"}, &out), 0)
      << out;
  int64_t stopped = QueryInt(db, "SELECT count(*) FROM trials WHERE status='stopped'");
  int64_t completed = QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed'");
  EXPECT_EQ(stopped + completed, 30);
  EXPECT_GT(stopped, 10);
  EXPECT_GE(completed, 1);
  // Every stopped trial ended exactly at the rung where it was stopped.
  EXPECT_EQ(
      QueryInt(db, "SELECT count(*) FROM trials WHERE status='stopped' AND step NOT IN (1, 3, 9)"),
      0);
  EXPECT_EQ(QueryInt(db,
                     "SELECT count(*) FROM trials t JOIN decisions d ON d.trial_id = t.id "
                     "WHERE t.status='stopped' AND d.decision='stop' AND d.step = t.step"),
            stopped);
  // Far less resource than 30 full trials.
  EXPECT_LT(QueryInt(db, "SELECT count(*) FROM reports"), 30 * 27 / 2);
  int64_t victim =
      QueryInt(db, "SELECT number FROM trials WHERE status='stopped' ORDER BY id LIMIT 1");
  ASSERT_EQ(RunSweep({"why", std::to_string(victim), "--db", db}, &out), 0) << out;
  EXPECT_NE(out.find("stop: stopped at rung"), std::string::npos) << out;
  EXPECT_NE(out.find("above cutoff"), std::string::npos) << out;
}

}  // namespace
}  // namespace sweep::e2e
