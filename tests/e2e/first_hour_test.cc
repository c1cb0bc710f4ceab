// End to end for what a new user meets in the first hour (issue 46): a
// set-up mistake that fails every trial stops the study after its first
// few (algorithm.fail_fast), with the cause and the fix.
#include <gtest/gtest.h>

#include <string>

#include "e2e/command_helpers.h"
#include "e2e/harness.h"

namespace sweep::e2e {
namespace {

// trial.py reports `loss`; the study asks for `los`.
std::string TypoStudy(const TempDir& dir, const std::string& name, const std::string& algorithm) {
  std::string study = PyStudy(dir, name, "", algorithm, 2);
  std::string text = FileBytes(study);
  text.replace(text.find("metric: loss"), 12, "metric: los");
  return dir.Write(name + ".yaml", text);
}

TEST(E2eFirstHourTest, AnObjectiveTypoStopsTheStudyAfterItsFirstThreeTrials) {
  TempDir dir;
  std::string db = dir.File("typo.db");
  std::string out = RunStudy(TypoStudy(dir, "typo", "{type: random, max_trials: 30}"), db, 2, 1);
  for (const char* want :
       {"sweep: study 'typo' stopped: its first 3 trials to end all failed the same way",
        "the trial reported no 'los' metric (objective.metric); it reported extra, loss; did you "
        "mean 'loss'?",
        "--retry-failed", "algorithm.fail_fast: 0"})
    EXPECT_NE(out.find(want), std::string::npos) << want << "\n" << out;
  // Three, and those running then: one on the other runner, and a few more
  // queued at the runners behind these short trials (they started anyway).
  int64_t ran = QueryInt(db, "SELECT count(*) FROM trials");
  EXPECT_GE(ran, 3);
  EXPECT_LE(ran, 10);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='failed'"), ran);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM studies WHERE status='failed'"), 1);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM events WHERE kind='fail_fast'"), 1);
  std::string studies;
  ASSERT_EQ(RunSweep({"studies", "--db", db}, &studies), 0) << studies;
  EXPECT_NE(studies.find("failed"), std::string::npos) << studies;
}

TEST(E2eFirstHourTest, FailFastZeroRunsEveryTrial) {
  TempDir dir;
  std::string db = dir.File("off.db");
  std::string out =
      RunStudy(TypoStudy(dir, "off", "{type: random, max_trials: 6, fail_fast: 0}"), db, 2, 1);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='failed'"), 6) << out;
  EXPECT_EQ(out.find("stopped:"), std::string::npos) << out;
}

// The first trial works and every later one fails: some trials succeed, so
// the study is never stopped.
TEST(E2eFirstHourTest, AStudyWhereATrialCompletedIsNeverStopped) {
  TempDir dir;
  std::string db = dir.File("mixed.db");
  std::string study = PyStudy(dir, "mixed", ", --fail-above, \"0.5\"", "{type: grid}", 2);
  std::string text = FileBytes(study);
  text.replace(text.find("x: {type: float, min: 0, max: 1}"), 32,
               "x: {type: categorical, values: [0.1, 0.6, 0.7, 0.8, 0.9, 0.95]}");
  std::string out = RunStudy(dir.Write("mixed.yaml", text), db, 1, 0);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed'"), 1) << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='failed'"), 5) << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM studies WHERE status='completed'"), 1);
}

// The fix after a typo in the objective: the study file changes (allowed,
// since no trial has a result yet) and --retry-failed runs the failed trials
// again with their parameters, as new attempts, keeping the failed
// attempts' logs.
TEST(E2eFirstHourTest, RetryFailedRunsTheFailedTrialsAgainAfterTheFix) {
  TempDir dir;
  std::string db = dir.File("fix.db");
  std::string study = TypoStudy(dir, "fix", "{type: random, max_trials: 8}");
  RunStudy(study, db, 1, 1);
  auto before = Query(db, "SELECT number, params FROM trials ORDER BY number");
  ASSERT_GE(before.size(), 3u);  // and one queued at the runner behind them
  ASSERT_LE(before.size(), 5u);
  std::string text = FileBytes(study);
  text.replace(text.find("metric: los"), 11, "metric: loss");
  dir.Write("fix.yaml", text);
  std::string out;
  ASSERT_EQ(RunSweep({"run", study, "--db", db, "--local-runners", "1", "--progress", "plain",
                      "--retry-failed"},
                     &out),
            0)
      << out;
  EXPECT_NE(out.find("objective.metric: \"los\" -> \"loss\""), std::string::npos) << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed'"), 8) << out;
  // The same three trials, same parameters, each on its second attempt.
  for (const auto& row : before) {
    std::string n = CellText(row[0]);
    EXPECT_EQ(CellText(Query(db, "SELECT params FROM trials WHERE number=" + n)[0][0]),
              CellText(row[1]));
    EXPECT_EQ(QueryInt(db, "SELECT attempts FROM trials WHERE number=" + n), 2);
    EXPECT_EQ(QueryInt(db,
                       "SELECT count(*) FROM events e JOIN trials t ON t.id=e.trial_id WHERE "
                       "e.kind='retry' AND t.number=" +
                           n),
              1);
  }
  std::string why;
  ASSERT_EQ(RunSweep({"why", "0", "--db", db}, &why), 0) << why;
  EXPECT_NE(why.find("attempt 1 failed (the trial reported no 'los' metric"), std::string::npos)
      << why;
  std::string log;
  ASSERT_EQ(RunSweep({"logs", "0", "--attempt", "1", "--db", db}, &log), 0) << log;
  EXPECT_NE(log.find("training step 1"), std::string::npos) << log;
}

// `sweep retry` names the trials; a trial that did not fail is refused.
TEST(E2eFirstHourTest, RetryNamesTheTrialsToRunAgain) {
  TempDir dir;
  std::string db = dir.File("r.db");
  std::string flag = dir.Write("failing", "");
  std::string study =
      PyStudy(dir, "r", ", --fail-above, \"0.5\", --fail-while, " + flag, "{type: grid}", 2);
  std::string text = FileBytes(study);
  text.replace(text.find("x: {type: float, min: 0, max: 1}"), 32,
               "x: {type: categorical, values: [0.1, 0.6, 0.7, 0.8]}");
  dir.Write("r.yaml", text);
  RunStudy(study, db, 1, 0);
  ASSERT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='failed'"), 3);
  std::string out;
  EXPECT_EQ(RunSweep({"retry", "r", "0", "--db", db}, &out), 1);
  EXPECT_NE(out.find("trial 0 is completed, not failed"), std::string::npos) << out;
  ASSERT_EQ(RunSweep({"retry", "r", "2", "--db", db}, &out), 0) << out;
  EXPECT_NE(out.find("1 failed trials of study 'r' run again"), std::string::npos) << out;
  std::remove(flag.c_str());  // the program is fixed
  RunStudy(study, db, 1, 0);
  EXPECT_EQ(CellText(Query(db, "SELECT status FROM trials WHERE number=2")[0][0]), "completed");
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='failed'"), 2);
}

}  // namespace
}  // namespace sweep::e2e
