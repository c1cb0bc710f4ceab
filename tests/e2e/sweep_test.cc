// End to end: real tuner and runner processes, real sockets, real databases.
#include <gtest/gtest.h>
#include <signal.h>

#include <map>
#include <memory>
#include <set>

#include "common/json.h"
#include "common/values.h"
#include "e2e/harness.h"
#include "search_spaces/samplers.h"
#include "search_spaces/study_parser.h"
#include "search_spaces/validate.h"

namespace sweep::e2e {
namespace {

std::string Text(const Cell& c) {
  if (auto* s = std::get_if<std::string>(&c)) return *s;
  if (auto* i = std::get_if<int64_t>(&c)) return std::to_string(*i);
  return "";
}

// number -> params JSON for every trial of the (only) study.
std::map<int64_t, std::string> TrialParams(const std::string& db) {
  std::map<int64_t, std::string> out;
  for (const auto& row : Query(db, "SELECT number, params FROM trials"))
    out[std::get<int64_t>(row[0])] = Text(row[1]);
  return out;
}

TEST(E2eSweepTest, RandomSweepOf200TrialsMatchesTheSampler) {
  TempDir dir;
  std::string study = std::string(SWEEP_SOURCE_DIR) + "/examples/branin_random.yaml";
  std::string db = dir.File("r.db"), out;
  int rc =
      RunSweep({"run", study, "--db", db, "--local-runners", "2", "--progress", "plain"}, &out);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("best trial"), std::string::npos) << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed'"), 200);
  EXPECT_EQ(
      QueryInt(db, "SELECT count(DISTINCT number) FROM trials WHERE number BETWEEN 0 AND 199"),
      200);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM reports"), 200);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM studies WHERE status='completed'"), 1);
  // Trial k's parameters are exactly the sampler's point k for seed 7.
  auto parsed = LoadStudyFile(study);
  ASSERT_TRUE(parsed.ok());
  ASSERT_TRUE(ValidateStudy(&*parsed).ok());
  auto space = SearchSpace::Create(parsed->study);
  auto sampler = MakeRandomSampler(*space, 7);
  auto params = TrialParams(db);
  for (int64_t k : {0, 1, 57, 199}) EXPECT_EQ(params[k], ParamsToJson(*sampler->Point(k))) << k;
  // The best value is the minimum over the trials, and Branin's minimum bounds it.
  auto best = Query(db, "SELECT min(value) FROM trials");
  EXPECT_GE(std::get<double>(best[0][0]), 0.397887 - 1e-6);
  std::string json;
  ASSERT_EQ(RunSweep({"best", "--db", db, "--format", "json"}, &json), 0);
  EXPECT_EQ(json.rfind("{\"id\": ", 0), 0u) << json;
  EXPECT_NE(json.find("\"status\": \"completed\""), std::string::npos);
  EXPECT_NE(json.find("\"value\": " + FormatDouble(std::get<double>(best[0][0]))),
            std::string::npos)
      << json;
}

TEST(E2eSweepTest, GridWithFourRemoteRunnersRunsEveryPointOnce) {
  TempDir dir;
  std::string endpoint = "ipc://" + dir.File("tuner.sock");
  std::string db = dir.File("g.db");
  Keys keys(dir, {"r0", "r1", "r2", "r3"});
  Process tuner(Concat({"run", std::string(SWEEP_SOURCE_DIR) + "/examples/grid_4x5.yaml", "--db",
                        db, "--bind", endpoint, "--local-runners", "0", "--progress", "plain"},
                       keys.TunerArgs()),
                dir.File("tuner.log"));
  std::vector<std::unique_ptr<Process>> runners;
  for (int i = 0; i < 4; ++i) {
    std::string name = "r" + std::to_string(i);
    runners.push_back(std::make_unique<Process>(
        Concat({"runner", "--connect", endpoint, "--name", name}, keys.RunnerArgs(name)),
        dir.File("runner" + std::to_string(i) + ".log")));
  }
  ASSERT_EQ(tuner.Wait(120000), 0) << tuner.Log();
  for (auto& r : runners) EXPECT_EQ(r->Wait(10000), 0) << r->Log();  // Shutdown ends them cleanly
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed' AND attempts=1"),
            60);
  EXPECT_EQ(QueryInt(db, "SELECT count(DISTINCT params) FROM trials"), 60);
  EXPECT_EQ(QueryInt(db, "SELECT count(DISTINCT runner) FROM trials"), 4);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM reports"), 180);
  // momentum appears exactly on the sgd branch.
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE params LIKE '%momentum%'"), 40);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE params LIKE '%sgd%'"), 40);
}

TEST(E2eSweepTest, ARunnerThatOutReportsTheTunerLosesNothing) {
  // Tasks that report thousands of steps per millisecond fill the runner's
  // socket (its high-water mark) faster than the tuner commits: the runner
  // must hold the rest back, not drop them (it once did, and the sweep hung).
  TempDir dir;
  std::string study = dir.Write("s.yaml",
                                "name: flood\nobjective: {metric: value, goal: minimize}\n"
                                "task: {synthetic: {function: curve, steps: 3000}}\n"
                                "algorithm: {type: random, max_trials: 20}\nseed: 3\nparameters:\n"
                                "  x1: {type: float, min: 0, max: 1}\n");
  std::string db = dir.File("f.db"), out;
  ASSERT_EQ(
      RunSweep({"run", study, "--db", db, "--local-runners", "2", "--progress", "plain"}, &out), 0)
      << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status = 'completed'"), 20);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM reports"), 20 * 3000);
}

TEST(E2eSweepTest, TunerKilledWithSigkillResumesToTheSameTrials) {
  TempDir dir;
  std::string study =
      dir.Write("s.yaml",
                "name: resume\nobjective: {metric: value, goal: minimize}\n"
                "task: {synthetic: {function: curve, steps: 5, step_ms: 10}}\n"
                "algorithm: {type: random, max_trials: 60}\nseed: 11\nparameters:\n"
                "  x1: {type: float, min: 0, max: 1}\n  x2: {type: float, min: 0, max: 1}\n");
  std::string db = dir.File("k.db"), ref = dir.File("ref.db");
  std::vector<std::string> args = {"run", study,        "--db", db, "--local-runners",
                                   "2",   "--progress", "plain"};
  {
    Process tuner(args, dir.File("t1.log"));
    ASSERT_TRUE(WaitFor(
        [&] { return QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed'") >= 15; },
        60000))
        << tuner.Log();
    tuner.Signal(SIGKILL);
    EXPECT_EQ(tuner.Wait(5000), 128 + SIGKILL);
  }
  std::map<int64_t, double> before;
  for (const auto& row : Query(db, "SELECT number, value FROM trials WHERE status='completed'")) {
    before[std::get<int64_t>(row[0])] = std::get<double>(row[1]);
  }
  ASSERT_GE(before.size(), 15u);
  ASSERT_LT(before.size(), 60u);
  std::string out;
  ASSERT_EQ(RunSweep(args, &out), 0) << out;
  ASSERT_EQ(
      RunSweep({"run", study, "--db", ref, "--local-runners", "2", "--progress", "plain"}, &out), 0)
      << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed'"), 60);
  EXPECT_EQ(TrialParams(db), TrialParams(ref));
  for (auto [number, value] : before) {
    auto rows = Query(db, "SELECT value FROM trials WHERE number=" + std::to_string(number));
    EXPECT_EQ(std::get<double>(rows[0][0]), value) << "completed trial " << number << " changed";
  }
  // The same values as the uninterrupted run (the curve task is deterministic).
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed'"),
            QueryInt(ref, "SELECT count(*) FROM trials WHERE status='completed'"));
}

}  // namespace
}  // namespace sweep::e2e
