// ASHA and the median rule survive kill -9 of the tuner: the same command rebuilds the rungs by
// replaying the stored reports and ends with the same decisions as an
// uninterrupted run (one trial at a time, so the order is deterministic).
#include <gtest/gtest.h>
#include <signal.h>

#include <map>

#include "e2e/harness.h"

namespace sweep::e2e {
namespace {

// Per trial: its status and, for a stopped trial, the step the algorithm
// decided to stop it at (the median rule's runners do not wait for the
// decision, so where the runner actually ended depends on how fast the ack
// came back; ASHA's rungs are exact either way).
std::map<int64_t, std::string> Outcomes(const std::string& db) {
  std::map<int64_t, std::string> out;
  for (const auto& row :
       Query(db,
             "SELECT number, status, CASE WHEN status='stopped' THEN (SELECT min(step) FROM "
             "decisions d WHERE d.trial_id=t.id AND d.decision='stop') ELSE step END FROM trials "
             "t")) {
    out[std::get<int64_t>(row[0])] =
        std::get<std::string>(row[1]) + "@" + std::to_string(std::get<int64_t>(row[2]));
  }
  return out;
}

// Kills the tuner once 8 trials have ended, resumes it with the same
// command, and compares with an uninterrupted run.
void KillResumeMatches(const std::string& algorithm, const char* decided) {
  TempDir dir;
  std::string study =
      dir.Write("a.yaml",
                "name: resume\nobjective: {metric: value, goal: minimize}\n"
                "task: {synthetic: {function: curve, steps: 9, step_ms: 15}}\n"
                "algorithm: " +
                    algorithm + "\nseed: 8\nparameters:\n  x1: {type: float, min: 0, max: 1}\n");
  std::string db = dir.File("k.db"), ref = dir.File("ref.db"), out;
  std::vector<std::string> args = {"run", study,        "--db", db, "--local-runners",
                                   "1",   "--progress", "plain"};
  {
    Process tuner(args, dir.File("t.log"));
    ASSERT_TRUE(WaitFor(
        [&] {
          return QueryInt(db,
                          "SELECT count(*) FROM trials WHERE status IN ('stopped', 'completed')") >=
                 8;
        },
        60000))
        << tuner.Log();
    tuner.Signal(SIGKILL);
    tuner.Wait(5000);
  }
  ASSERT_LT(QueryInt(db, "SELECT count(*) FROM trials WHERE status IN ('stopped', 'completed')"),
            24);
  ASSERT_EQ(RunSweep(args, &out), 0) << out;
  ASSERT_EQ(
      RunSweep({"run", study, "--db", ref, "--local-runners", "1", "--progress", "plain"}, &out), 0)
      << out;
  auto a = Outcomes(db), b = Outcomes(ref);
  EXPECT_EQ(a.size(), 24u);
  EXPECT_EQ(a, b);
  EXPECT_GT(
      QueryInt(db, std::string("SELECT count(*) FROM decisions WHERE decision='") + decided + "'"),
      0);
  EXPECT_EQ(QueryInt(db, "SELECT count(DISTINCT trial_id) FROM decisions WHERE decision='stop'"),
            QueryInt(ref, "SELECT count(DISTINCT trial_id) FROM decisions WHERE decision='stop'"));
}

TEST(E2eAshaResumeTest, KilledTunerEndsWithTheSameDecisions) {
  KillResumeMatches("{type: asha, max_trials: 24, max_concurrent: 1, asha: {reduction_factor: 3}}",
                    "stop");
}

TEST(E2eMedianResumeTest, KilledTunerEndsWithTheSameDecisions) {
  KillResumeMatches(
      "{type: median, max_trials: 24, max_concurrent: 1, median: {grace_period: 2, min_trials: 3}}",
      "stop");
}

}  // namespace
}  // namespace sweep::e2e
