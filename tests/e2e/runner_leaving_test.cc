// Runners that leave (issue 42), with real processes: a runner told by a
// scheduler to go (SIGUSR1, SIGTERM) hands its trial back at its next
// checkpoint, and the trial goes on on another runner as the same attempt,
// each step stored once; one killed right after its warning costs no
// attempt either; a runner with --exit-when-idle leaves when it has had no
// trial for that long, or at once when no study of the service can use it.
// The same under a real Slurm: tests/slurm/.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "e2e/harness.h"

namespace sweep::e2e {
namespace {

// A service with no local runners, its runner keys r1..r4 made up front.
class Service {
 public:
  explicit Service(const TempDir& dir) : dir_(dir), db_(dir.File("s.db")) {
    std::string out;
    keys_ = dir.File("keys");
    EXPECT_EQ(RunSweep({"keys", "new", "tuner", "--dir", keys_}, &out), 0) << out;
    for (const char* name : {"r1", "r2", "r3", "r4"})
      EXPECT_EQ(RunSweep({"keys", "new", name, "--role", "runner", "--dir", keys_}, &out), 0)
          << out;
    service_ = std::make_unique<Process>(
        std::vector<std::string>{"serve", "--db", db_, "--local-runners", "0", "--keys", keys_,
                                 "--heartbeat-ms", "200"},
        dir.File("serve.log"));
    endpoint_ = RunnersJoinAt(*service_);
    EXPECT_FALSE(endpoint_.empty()) << service_->Log();
  }
  ~Service() {
    service_->Signal(SIGTERM);
    service_->Wait(20000);
  }
  const std::string& db() const { return db_; }
  std::string Log() const { return service_->Log(); }
  std::unique_ptr<Process> Runner(const std::string& key, const std::vector<std::string>& more) {
    return std::make_unique<Process>(
        Concat(Concat({"runner", "--connect", endpoint_, "--heartbeat-ms", "200", "--server-key",
                       keys_ + "/tuner.pub", "--key", keys_ + "/runners/" + key + ".key"},
                      more),
               {}),
        dir_.File(key + ".log"));
  }
  void Submit(const std::string& file) {
    std::string out;
    ASSERT_EQ(RunSweep({"submit", file, "--db", db_}, &out), 0) << out;
  }
  std::string Runners() {
    std::string out;
    RunSweep({"runners", "--db", db_, "--format", "csv"}, &out, 10000);
    return out;
  }

 private:
  const TempDir& dir_;
  std::string db_, keys_, endpoint_;
  std::unique_ptr<Process> service_;
};

int64_t Completed(const std::string& db) {
  return QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed'");
}

// Steps of a trial stored more than once (under two attempts: a leaving
// runner's trial goes on as the same attempt, so there are none).
int64_t RepeatedSteps(const std::string& db) {
  return QueryInt(db,
                  "SELECT count(*) FROM (SELECT trial_id, step FROM reports WHERE "
                  "metric = 'value' GROUP BY trial_id, step HAVING count(*) > 1)");
}

// A Slurm job's environment, as sbatch sets it, for one runner's start.
class SlurmEnv {
 public:
  SlurmEnv() {
    setenv("SLURM_JOB_ID", "4242", 1);
    setenv("SLURM_ARRAY_JOB_ID", "4240", 1);
    setenv("SLURM_ARRAY_TASK_ID", "2", 1);
  }
  ~SlurmEnv() {
    unsetenv("SLURM_JOB_ID");
    unsetenv("SLURM_ARRAY_JOB_ID");
    unsetenv("SLURM_ARRAY_TASK_ID");
  }
};

TEST(E2eRunnerLeavingTest, ASignalledRunnerHandsItsTrialOnAtItsNextCheckpointWithoutAnAttempt) {
  TempDir dir;
  Service service(dir);
  std::unique_ptr<Process> r1;
  {
    SlurmEnv slurm;  // its name and job come from Slurm's variables
    r1 = service.Runner("r1", {});
  }
  service.Submit(dir.Write("a.yaml", CurveStudyYaml("a", 1, 30, 100, 3)));
  ASSERT_TRUE(
      WaitFor([&] { return QueryInt(service.db(), "SELECT count(*) FROM reports") >= 5; }, 30000))
      << service.Log();
  EXPECT_NE(service.Runners().find("slurm-4240_2,"), std::string::npos) << service.Runners();
  EXPECT_NE(service.Runners().find(",4240_2,"), std::string::npos) << service.Runners();
  r1->Signal(SIGUSR1);
  // It leaves as soon as its checkpoint is in (steps of 0.1 s).
  EXPECT_EQ(r1->Wait(10000), 128 + SIGUSR1) << r1->Log();
  EXPECT_NE(service.Log().find("runner slurm-4240_2 was preempted by Slurm (SIGUSR1)"),
            std::string::npos)
      << service.Log();
  auto r2 = service.Runner("r2", {"--name", "r2"});
  ASSERT_TRUE(WaitFor([&] { return Completed(service.db()) == 1; }, 60000))
      << service.Log() << r2->Log();
  EXPECT_EQ(QueryInt(service.db(), "SELECT attempts FROM trials"), 1);
  EXPECT_EQ(QueryInt(service.db(), "SELECT step FROM trials"), 30);
  EXPECT_EQ(QueryInt(service.db(), "SELECT count(DISTINCT step) FROM reports WHERE metric='value'"),
            30);
  EXPECT_EQ(RepeatedSteps(service.db()), 0);
  std::string out;
  ASSERT_EQ(RunSweep({"why", "a", "0", "--db", service.db()}, &out), 0) << out;
  EXPECT_NE(out.find("runner slurm-4240_2 was preempted by Slurm"), std::string::npos) << out;
  EXPECT_NE(out.find("goes on from its checkpoint"), std::string::npos) << out;
  r2->Signal(SIGTERM);
  EXPECT_EQ(r2->Wait(10000), 128 + SIGTERM) << r2->Log();  // idle: at once
}

TEST(E2eRunnerLeavingTest, ARunnerKilledAfterItsWarningCostsNoAttempt) {
  TempDir dir;
  Service service(dir);
  // Steps of 2 s: the kill comes before its next checkpoint.
  auto r1 = service.Runner("r1", {"--name", "r1"});
  service.Submit(dir.Write("a.yaml", CurveStudyYaml("a", 1, 6, 2000, 3)));
  ASSERT_TRUE(
      WaitFor([&] { return QueryInt(service.db(), "SELECT count(*) FROM reports") >= 1; }, 30000))
      << service.Log();
  r1->Signal(SIGTERM);
  ASSERT_TRUE(WaitFor(
      [&] { return service.Log().find("runner r1 was stopped (SIGTERM)") != std::string::npos; },
      10000))
      << service.Log();
  r1->Signal(SIGKILL);
  r1->Wait(10000);
  auto r2 = service.Runner("r2", {"--name", "r2"});
  ASSERT_TRUE(WaitFor([&] { return Completed(service.db()) == 1; }, 60000))
      << service.Log() << r2->Log();
  // max_retries is 0: an attempt counted would have failed the trial.
  EXPECT_EQ(QueryInt(service.db(), "SELECT attempts FROM trials"), 1);
  EXPECT_EQ(RepeatedSteps(service.db()), 0);
  std::string out;
  ASSERT_EQ(RunSweep({"why", "a", "0", "--db", service.db()}, &out), 0) << out;
  EXPECT_NE(out.find("runner r1 was stopped (SIGTERM) before the trial's next checkpoint"),
            std::string::npos)
      << out;
}

TEST(E2eRunnerLeavingTest, IdleRunnersLeaveAfterExitWhenIdleOrAtOnceWhenNoStudyCanUseThem) {
  TempDir dir;
  Service service(dir);
  service.Submit(dir.Write("a.yaml", CurveStudyYaml("a", 3, 3, 50, 3)));
  auto r1 = service.Runner("r1", {"--name", "r1", "--exit-when-idle", "2"});
  ASSERT_TRUE(WaitFor([&] { return Completed(service.db()) == 3; }, 60000)) << service.Log();
  // Idle from now: it goes after 2 s, with exit code 0.
  EXPECT_EQ(r1->Wait(15000), 0) << r1->Log();
  EXPECT_NE(r1->Log().find("no trial for 2 s (--exit-when-idle); leaving"), std::string::npos)
      << r1->Log();
  EXPECT_TRUE(WaitFor([&] { return service.Runners().find("r1,") == std::string::npos; }, 5000))
      << service.Runners();
  // A study of GPU trials: a CPU runner that leaves when idle is of no use
  // to it and is sent away at once, not after its 600 s.
  service.Submit(
      dir.Write("g.yaml",
                "name: g\nobjective: {metric: val_accuracy, goal: maximize}\n"
                "task: {train: {dataset: fashion-mnist, model: mlp, epochs: 1}}\n"
                "algorithm: {type: random, max_trials: 2}\nresources: {gpus_per_trial: 1}\n"
                "parameters:\n  lr: {type: float, min: 0.001, max: 0.1, log: true}\n"));
  auto r2 = service.Runner("r2", {"--name", "r2", "--exit-when-idle", "600"});
  EXPECT_EQ(r2->Wait(20000), 0) << r2->Log();
  EXPECT_NE(service.Log().find("runner 'r2' sent away: no study in this service can use it"),
            std::string::npos)
      << service.Log();
  // A runner without --exit-when-idle stays, waiting for work.
  auto r3 = service.Runner("r3", {"--name", "r3"});
  ASSERT_TRUE(WaitFor([&] { return service.Runners().find("r3,") != std::string::npos; }, 10000));
  sleep(3);  // r2 was gone within a turn of joining
  EXPECT_TRUE(r3->Running());
  EXPECT_NE(service.Runners().find("r3,"), std::string::npos) << service.Runners();
  r3->Signal(SIGTERM);
  r3->Wait(10000);
}

}  // namespace
}  // namespace sweep::e2e
