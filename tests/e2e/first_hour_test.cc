// End to end for what a new user meets in the first hour (issue 46): a
// set-up mistake that fails every trial stops the study after its first
// few (algorithm.fail_fast), with the cause and the fix.
#include <gtest/gtest.h>

#include <chrono>
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

// A study that worked in an earlier run is not stopped when its next
// trials all fail alike (a full disk, an edit of the program): the set-up
// was sound.
TEST(E2eFirstHourTest, AStudyWithEarlierResultsIsNeverStopped) {
  TempDir dir;
  std::string db = dir.File("w.db");
  std::string flag = dir.File("failing");
  std::string study = PyStudy(dir, "w", ", --fail-above, \"-1\", --fail-while, " + flag,
                              "{type: random, max_trials: 3}", 2);
  RunStudy(study, db, 1, 0);
  ASSERT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed'"), 3);
  dir.Write("failing", "");
  std::string text = FileBytes(study);
  text.replace(text.find("max_trials: 3"), 13, "max_trials: 9");
  dir.Write("w.yaml", text);
  std::string out = RunStudy(study, db, 1, 0);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='failed'"), 6) << out;
  EXPECT_EQ(out.find("stopped:"), std::string::npos) << out;
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

// A curve study whose trials take `steps` x `step_ms`, with `limit` as its
// algorithm.time_limit (YAML).
std::string LimitedStudy(const TempDir& dir, const std::string& name, int steps, int step_ms,
                         const std::string& limit) {
  std::string text = CurveStudyYaml(name, 1000, steps, step_ms, 3);
  text.replace(text.find("max_retries: 0}"), 15, "max_retries: 0, time_limit: " + limit + "}");
  return dir.Write(name + ".yaml", text);
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// No trial starts after the limit; those running finish. A resumed study
// counts the time its earlier runs took, and a raised limit runs more.
TEST(E2eFirstHourTest, TimeLimitStartsNoTrialAfterItAndCountsEarlierRuns) {
  TempDir dir;
  std::string db = dir.File("t.db");
  std::string study = LimitedStudy(dir, "t", 1, 200, "2s");
  std::string plan;
  ASSERT_EQ(RunSweep({"plan", study}, &plan), 0) << plan;
  EXPECT_NE(plan.find("time limit: 2s of running"), std::string::npos) << plan;
  auto start = std::chrono::steady_clock::now();
  std::string out = RunStudy(study, db, 2, 0);
  EXPECT_LT(Seconds(start), 30);
  int64_t first = QueryInt(db, "SELECT count(*) FROM trials");
  EXPECT_GE(first, 4) << out;    // 2 runners x 200 ms trials for 2 s: about 20
  EXPECT_LT(first, 200) << out;  // of 1000
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status!='completed'"), 0) << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM events WHERE kind='time_limit'"), 1) << out;
  double ran = CellText(Query(db, "SELECT run_seconds FROM studies")[0][0]).empty()
                   ? 0
                   : std::stod(CellText(Query(db, "SELECT run_seconds FROM studies")[0][0]));
  EXPECT_GE(ran, 2.0);
  EXPECT_LT(ran, 20.0);
  // Resumed: its 2 s are spent, so nothing starts.
  out = RunStudy(study, db, 2, 0);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials"), first) << out;
  // A raised limit (a change a resume accepts) runs about 2 s more.
  LimitedStudy(dir, "t", 1, 200, "4s");
  out = RunStudy(study, db, 2, 0);
  EXPECT_NE(out.find("algorithm.time_limit.after: \"2s\" -> \"4s\""), std::string::npos) << out;
  EXPECT_GT(QueryInt(db, "SELECT count(*) FROM trials"), first) << out;
}

// `hard: true`: running trials stop at the limit, stopped with the value
// they reached, instead of running their 20 steps of 300 ms.
TEST(E2eFirstHourTest, AHardTimeLimitStopsRunningTrials) {
  TempDir dir;
  std::string db = dir.File("h.db");
  std::string study = LimitedStudy(dir, "h", 20, 300, "{after: 2s, hard: true}");
  auto start = std::chrono::steady_clock::now();
  std::string out = RunStudy(study, db, 2, 1);  // no trial completed
  EXPECT_LT(Seconds(start), 5.5) << out;        // not the 6 s a trial takes
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials"), 2) << out;
  EXPECT_EQ(QueryInt(db,
                     "SELECT count(*) FROM trials WHERE status='stopped' AND step < 20 AND "
                     "value IS NOT NULL"),
            2)
      << out;
  std::string why;
  ASSERT_EQ(RunSweep({"why", "0", "--db", db}, &why), 0) << why;
  EXPECT_NE(why.find("time limit"), std::string::npos) << why;
}

// Hand-picked configurations run first, checked against the space, and
// TPE's model learns from them; a wrong name gets the nearest one.
TEST(E2eFirstHourTest, EnqueuedConfigurationsRunFirst) {
  TempDir dir;
  std::string db = dir.File("e.db");
  std::string study = dir.Write(
      "e.yaml",
      "name: e\nobjective: {metric: value, goal: minimize}\n"
      "task: {synthetic: {function: branin}}\nalgorithm: {type: tpe, max_trials: 12}\n"
      "parameters:\n  x1: {type: float, min: -5, max: 10}\n  x2: {type: float, min: 0, max: 15}\n");
  std::string out;
  EXPECT_EQ(RunSweep({"enqueue", study, "--db", db, "--params", "{\"x1\": 3.14, \"x3\": 2}"}, &out),
            1);
  EXPECT_NE(out.find("--params: 'x2' is missing (a number in [0, 15]); 'x3' is not a parameter "
                     "of the study; did you mean 'x2'?"),
            std::string::npos)
      << out;
  EXPECT_EQ(RunSweep({"enqueue", study, "--db", db, "--params", "{\"x1\": 30, \"x2\": 2}"}, &out),
            1);
  EXPECT_NE(out.find("'x1' is 30, which it never takes (a number in [-5, 10])"), std::string::npos)
      << out;
  std::string file = dir.Write("points.jsonl",
                               "# two of Branin's minima\n{\"x1\": 3.14159, \"x2\": 2.275}\n\n"
                               "{\"x1\": 9.42478, \"x2\": 2.475}\n");
  ASSERT_EQ(RunSweep({"enqueue", study, "--db", db, "--params",
                      "{\"x1\": -3.14159, \"x2\": 12.275}", "--params-file", file},
                     &out),
            0)
      << out;
  EXPECT_NE(out.find("enqueued 3 trials in study 'e' (numbers 0, 1, 2)"), std::string::npos) << out;
  RunStudy(study, db, 1, 0);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed'"), 12);
  EXPECT_EQ(CellText(Query(db, "SELECT params FROM trials WHERE number=1")[0][0]),
            "{\"x1\": 3.14159, \"x2\": 2.275}");
  // Branin's minimum is 0.397887: an enqueued minimum is the best trial.
  double best = std::stod(CellText(Query(db, "SELECT min(value) FROM trials")[0][0]));
  EXPECT_NEAR(best, 0.397887, 1e-3);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM events WHERE kind='enqueued'"), 3);
  // Not where a trial's number is its place.
  std::string grid = dir.Write("g.yaml",
                               "name: g\nobjective: {metric: value, goal: minimize}\n"
                               "task: {synthetic: {function: branin}}\nalgorithm: {type: grid}\n"
                               "parameters:\n  x1: {type: float, min: -5, max: 10, step: 5}\n"
                               "  x2: {type: float, min: 0, max: 15, step: 5}\n");
  EXPECT_EQ(RunSweep({"enqueue", grid, "--db", db, "--params", "{\"x1\": 0, \"x2\": 5}"}, &out), 1);
  EXPECT_NE(out.find("numbers its trials by their place"), std::string::npos) << out;
}

// A batch larger than the rows a table leaves for training would fail every
// trial: `sweep validate` and `sweep run` say so before anything runs.
TEST(E2eFirstHourTest, ABatchLargerThanTheTableIsCaughtBeforeAnythingRuns) {
  TempDir dir;
  std::string rows = "a,b,label\n";
  for (int i = 0; i < 32; ++i)
    rows +=
        std::to_string(i % 7) + "," + std::to_string(i % 5) + "," + std::to_string(i % 2) + "\n";
  dir.Write("small.csv", rows);
  auto study = [&](const std::string& extra_task, const std::string& params) {
    return dir.Write("small.yaml",
                     "name: small\nobjective: {metric: val_accuracy, goal: maximize}\n"
                     "task:\n  train:\n    model: mlp\n    epochs: 1\n" +
                         extra_task +
                         "    data: {csv: {train: small.csv, label: label}}\n"
                         "algorithm: {type: random, max_trials: 3}\nparameters:\n" +
                         params + "  lr: {type: float, min: 0.001, max: 0.1, log: true}\n");
  };
  std::string out;
  // 32 rows: 26 after the fixed test split, 5 of them for validation.
  EXPECT_EQ(RunSweep({"validate", study("", "")}, &out), 1);
  EXPECT_NE(out.find("batch_size 128 is more than the 21 training examples left after the "
                     "validation split (5 of 26): every trial would fail"),
            std::string::npos)
      << out;
  EXPECT_EQ(
      RunSweep({"run", study("", ""), "--db", dir.File("s.db"), "--local-runners", "1"}, &out), 1);
  EXPECT_NE(out.find("batch_size 128 is more than"), std::string::npos) << out;
  EXPECT_EQ(out.find("joined"), std::string::npos) << out;  // no runner started
  EXPECT_EQ(RunSweep({"validate", study("    validation: 26\n", "")}, &out), 1);
  EXPECT_NE(out.find("task.train.validation: 26 validation examples of the 26"), std::string::npos)
      << out;
  // A searched batch size whose least value fits is valid.
  EXPECT_EQ(
      RunSweep({"validate", study("", "  batch_size: {type: categorical, values: [8, 64]}\n")},
               &out),
      0)
      << out;
  // ... with a hint that its larger values will fail.
  EXPECT_NE(out.find("hint: batch_size takes values up to 64, more than the 21 training examples "
                     "left after the validation split"),
            std::string::npos)
      << out;
  // Cross-validated, the largest of 4 folds (7 of 26) is the split checked;
  // folds beside validation, or more folds than rows, are refused.
  EXPECT_EQ(RunSweep({"validate", study("    folds: 4\n    batch_size: 20\n", "")}, &out), 1);
  EXPECT_NE(out.find("batch_size 20 is more than the 19 training examples left after the "
                     "validation split (7 of 26)"),
            std::string::npos)
      << out;
  EXPECT_EQ(RunSweep({"validate", study("    folds: 4\n    batch_size: 19\n", "")}, &out), 0)
      << out;
  EXPECT_EQ(RunSweep({"validate", study("    folds: 4\n    validation: 5\n", "")}, &out), 1);
  EXPECT_NE(out.find("task.train.folds: set folds or validation, not both"), std::string::npos)
      << out;
  EXPECT_EQ(RunSweep({"validate", study("", "  folds: {type: int, min: 2, max: 5}\n")}, &out), 1);
  EXPECT_NE(out.find("'folds' is set in task.train, not searched: it says how every trial is "
                     "measured"),
            std::string::npos)
      << out;
  EXPECT_EQ(RunSweep({"validate", study("    folds: 20\n    batch_size: 1\n", "")}, &out), 0)
      << out;
}

// statsmodels' anes96.csv quotes its header cells ('vote'): the name as a
// person writes it matches. A numeric label with many values validates, with
// a hint that the study may mean regression.
TEST(E2eFirstHourTest, AQuotedHeaderMatchesAndManyNumericClassesHintAtRegression) {
  TempDir dir;
  std::string rows = "'age','income','vote'\n";
  for (int i = 0; i < 60; ++i)
    rows += std::to_string(20 + i) + "," + std::to_string(i * 37 % 100) + "," +
            std::to_string(i % 2) + "\n";
  dir.Write("anes.csv", rows);
  auto study = [&](const std::string& label, const std::string& ignore) {
    return dir.Write("anes.yaml",
                     "name: anes\nobjective: {metric: val_accuracy, goal: maximize}\n"
                     "task:\n  train:\n    model: mlp\n    epochs: 1\n    batch_size: 8\n"
                     "    data: {csv: {train: anes.csv, label: " +
                         label + ignore +
                         "}}\nalgorithm: {type: random, max_trials: 2}\nparameters:\n"
                         "  lr: {type: float, min: 0.001, max: 0.1, log: true}\n");
  };
  std::string out;
  EXPECT_EQ(RunSweep({"validate", study("vote", ", ignore: [income]")}, &out), 0) << out;
  EXPECT_NE(out.find("1 features; 2 classes: 0, 1"), std::string::npos) << out;
  EXPECT_EQ(out.find("hint:"), std::string::npos) << out;
  // A test file whose header has the plain names matches the quoted ones.
  dir.Write("anes_test.csv", "age,income,vote\n30,5,1\n41,7,0\n52,9,1\n");
  EXPECT_EQ(RunSweep({"validate", study("vote", ", test: anes_test.csv")}, &out), 0) << out;
  EXPECT_NE(out.find(", 3 test; 2 features"), std::string::npos) << out;
  // A misspelt label: the nearest, and the header's names exactly as written.
  EXPECT_EQ(RunSweep({"validate", study("vot", "")}, &out), 1);
  EXPECT_NE(out.find("no column 'vot' to predict (label); did you mean ''vote''? the columns "
                     "are ''age'', ''income'', ''vote''"),
            std::string::npos)
      << out;
  // 'income' has 60 distinct numbers: taken as classes, with a hint.
  EXPECT_EQ(RunSweep({"validate", study("income", "")}, &out), 0) << out;
  EXPECT_NE(out.find("hint: the label 'income' has 60 distinct numbers, each taken as a class"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("set task.train.problem: regression"), std::string::npos) << out;
}

// A study's note and tags are written while its sweep runs (no tuner
// writes them), and `sweep studies` shows them.
TEST(E2eFirstHourTest, NotesAndTagsAreWrittenWhileTheSweepRuns) {
  TempDir dir;
  std::string db = dir.File("n.db"), out;
  Process tuner({"run", PyStudy(dir, "n", ", --sleep, \"0.3\"", "{type: random, max_trials: 2}", 4),
                 "--db", db, "--local-runners", "1", "--progress", "plain"},
                dir.File("tuner.log"));
  ASSERT_TRUE(WaitFor([&] { return QueryInt(db, "SELECT count(*) FROM reports") > 0; }, 30000))
      << tuner.Log();
  ASSERT_EQ(RunSweep({"note", "n", "lr sweep, first pass", "--db", db}, &out), 0) << out;
  ASSERT_EQ(RunSweep({"tag", "n", "baseline", "gpu-a", "--db", db}, &out), 0) << out;
  EXPECT_EQ(RunSweep({"tag", "n", "two words", "--db", db}, &out), 1);
  EXPECT_NE(out.find("without spaces or commas"), std::string::npos) << out;
  EXPECT_EQ(RunSweep({"tag", "n", "evil\xE2\x80\xAEtxt", "--db", db}, &out), 1);  // U+202E
  EXPECT_NE(out.find("printable characters"), std::string::npos) << out;
  EXPECT_EQ(RunSweep({"note", "nope", "x", "--db", db}, &out), 1);
  EXPECT_NE(out.find("no study 'nope'"), std::string::npos) << out;
  ASSERT_EQ(tuner.Wait(60000), 0) << tuner.Log();
  ASSERT_EQ(RunSweep({"tag", "n", "--remove", "gpu-a", "--db", db}, &out), 0) << out;
  ASSERT_EQ(RunSweep({"studies", "--db", db}, &out), 0) << out;
  EXPECT_NE(out.find("study 'n': lr sweep, first pass"), std::string::npos) << out;
  ASSERT_EQ(RunSweep({"studies", "--db", db, "--format", "csv"}, &out), 0) << out;
  EXPECT_NE(out.find(",baseline,\"lr sweep, first pass\"\n"), std::string::npos) << out;
  // A tagged study is deleted with its tags.
  ASSERT_EQ(RunSweep({"delete", "n", "--db", db, "--yes"}, &out), 0) << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM study_tags"), 0);
}

}  // namespace
}  // namespace sweep::e2e
