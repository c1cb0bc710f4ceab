// The GP sampler and `type: auto` end to end: real tuner, real runners over
// ZeroMQ, a real database. A tuner killed with SIGKILL resumes to exactly
// the trials of an uninterrupted run; with four runners a killed study
// resumes, finishes, never runs one point twice at once and its proposals
// count the running trials; `sweep plan` and `sweep why` say what auto
// chose and why.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "e2e/harness.h"

namespace sweep::e2e {
namespace {

std::string GpStudy(const std::string& type, int trials, int step_ms) {
  return "name: gp\nobjective: {metric: value, goal: minimize}\n"
         "task: {synthetic: {function: branin, steps: 2, step_ms: " +
         std::to_string(step_ms) + "}}\nalgorithm: {type: " + type +
         ", max_trials: " + std::to_string(trials) +
         "}\nseed: 4\nparameters:\n  x1: {type: float, min: -5, max: 10}\n"
         "  x2: {type: float, min: 0, max: 15}\n";
}

TEST(E2eGpTest, KilledTunerResumesToExactlyTheTrialsOfAnUninterruptedRun) {
  TempDir dir;
  std::string study = dir.Write("s.yaml", GpStudy("gp", 24, 10));
  std::string db = dir.File("k.db"), ref = dir.File("ref.db");
  std::vector<std::string> args = {"run", study,        "--db", db, "--local-runners",
                                   "1",   "--progress", "plain"};
  // Past the start-up draws: the GP has proposed some trials.
  ASSERT_TRUE(KillTunerWhen(args, dir.File("t.log"), [&] {
    return QueryInt(db, "SELECT count(*) FROM trials WHERE status = 'completed'") >= 14;
  }));
  EXPECT_LT(QueryInt(db, "SELECT count(*) FROM trials WHERE status = 'completed'"), 24);
  ASSERT_NO_FATAL_FAILURE(ResumeThenRunUninterrupted(args, ref));
  auto a = ResumeInvariantOutcome(db);
  ASSERT_EQ(a.size(), 24u);
  EXPECT_EQ(a, ResumeInvariantOutcome(ref));
  const char* values = "SELECT number, value FROM trials ORDER BY number";
  EXPECT_EQ(Query(db, values), Query(ref, values));
  const char* origins =
      "SELECT t.number, e.detail FROM events e JOIN trials t ON t.id = e.trial_id "
      "WHERE e.kind = 'proposed' ORDER BY t.number";
  EXPECT_EQ(Query(db, origins), Query(ref, origins));
  EXPECT_EQ(QueryInt(db,
                     "SELECT count(*) FROM events WHERE kind = 'proposed' AND detail LIKE "
                     "'GP: % completed trials; best: trial %; most relevant: x%; log EI %'"),
            14);
  // The GP learned: its best is far better than the start-up draws' best.
  auto number = [&](const std::string& sql) {
    return std::get<double>(Query(db, sql).at(0).at(0));
  };
  double startup_best = number("SELECT min(value) FROM trials WHERE number < 10");
  double best = number("SELECT min(value) FROM trials");
  EXPECT_LT(best, 1.0);
  EXPECT_LT(best, startup_best);
}

TEST(E2eGpTest, FourRunnersKilledAndResumedFinishWithoutRunningAPointTwiceAtOnce) {
  TempDir dir;
  std::string study = dir.Write("s.yaml", GpStudy("gp", 32, 40));
  std::string db = dir.File("k.db"), out;
  std::vector<std::string> args = {"run", study,        "--db", db, "--local-runners",
                                   "4",   "--progress", "plain"};
  ASSERT_TRUE(KillTunerWhen(args, dir.File("t.log"), [&] {
    return QueryInt(db, "SELECT count(*) FROM trials WHERE status = 'completed'") >= 16;
  }));
  ASSERT_EQ(RunSweep(args, &out, 180000), 0) << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status = 'completed'"), 32);
  EXPECT_EQ(QueryInt(db,
                     "SELECT count(*) FROM trials a JOIN trials b ON a.id < b.id AND "
                     "a.params = b.params AND a.started_at < b.ended_at AND "
                     "b.started_at < a.ended_at"),
            0);
  // Proposals made while other trials ran counted them.
  EXPECT_GT(QueryInt(db,
                     "SELECT count(*) FROM events WHERE kind = 'proposed' AND detail LIKE "
                     "'GP: % running at the model''s prediction%'"),
            5);
}

TEST(E2eGpTest, AutoSaysWhatItChoseInPlanAndWhy) {
  TempDir dir;
  std::string study = dir.Write("s.yaml", GpStudy("auto", 12, 0));
  std::string db = dir.File("a.db"), out;
  ASSERT_EQ(RunSweep({"plan", study}, &out), 0) << out;
  EXPECT_NE(out.find("auto: 12 trials of 2 steps (24 steps); chosen: gp for the first 200 "
                     "trials, then tpe: 2 numeric and 0 categorical parameters"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("trials 0-11: quasi-random (Halton) proposals until 10 trials have "
                     "completed, then a Gaussian process"),
            std::string::npos)
      << out;
  ASSERT_EQ(RunSweep({"plan", study, "--format", "json"}, &out), 0) << out;
  EXPECT_NE(out.find("\"algorithm\": \"auto\", \"max_trials\": 12, \"gp_trials\": 12, "
                     "\"tpe_trials\": 0"),
            std::string::npos)
      << out;
  ASSERT_EQ(
      RunSweep({"run", study, "--db", db, "--local-runners", "1", "--progress", "plain"}, &out), 0)
      << out;
  ASSERT_EQ(RunSweep({"why", "11", "--db", db}, &out), 0) << out;
  EXPECT_NE(out.find("proposed: auto: gp for the first 200 trials, then tpe"), std::string::npos)
      << out;
  EXPECT_NE(out.find(". GP: 11 completed trials"), std::string::npos) << out;
  // A conditional space: auto picks tpe and says why; gp refuses it.
  std::string cond = dir.Write(
      "c.yaml",
      "name: c\nobjective: {metric: value, goal: minimize}\ntask: {command: {argv: [x]}}\n"
      "algorithm: {type: auto, max_trials: 5}\nparameters:\n"
      "  opt: {type: categorical, values: [sgd, adam]}\n"
      "  m: {type: float, min: 0, max: 1, when: {opt: sgd}}\n");
  ASSERT_EQ(RunSweep({"plan", cond}, &out), 0) << out;
  EXPECT_NE(out.find("chosen: tpe throughout: 'm' is conditional (when:)"), std::string::npos)
      << out;
}

}  // namespace
}  // namespace sweep::e2e
