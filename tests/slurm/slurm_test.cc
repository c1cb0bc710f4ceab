// `sweep serve --launcher slurm` against a real Slurm (issue 42): a
// one-node cluster (munged, slurmctld, slurmd: scripts/slurm/
// one-node-cluster.sh) in a temporary folder, started once for these tests
// and stopped after them. Studies run on Slurm-launched runners only; runner
// jobs signalled by Slurm hand their trials on without an attempt; the queue
// empties once the runners are idle; --launch-max holds; a GPU study on a
// cluster without GPUs says why it waits. Needs root, slurm-wlm and munge
// (scripts/test.sh installs them); skipped, saying so, without them.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <set>
#include <string>

#include "e2e/harness.h"

namespace sweep::e2e {
namespace {

std::string Shell(const std::string& command) {
  std::string out;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

// The runner jobs in the queue now (array tasks by their own ids).
std::set<std::string> QueuedJobs() {
  std::set<std::string> jobs;
  const std::string out = Shell("squeue --noheader --format=%i");
  size_t at = 0;
  while (at < out.size()) {
    size_t end = out.find('\n', at);
    if (end == std::string::npos) end = out.size();
    std::string id = out.substr(at, end - at);
    id.erase(std::remove(id.begin(), id.end(), ' '), id.end());
    if (!id.empty() && std::all_of(id.begin(), id.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c)) || c == '_' || c == '[' || c == ']' ||
                 c == '-';
        }))
      jobs.insert(id);
    at = end + 1;
  }
  return jobs;
}

int64_t Completed(const std::string& db, const std::string& study = "") {
  return QueryInt(db,
                  "SELECT count(*) FROM trials t JOIN studies s ON s.id = t.study_id WHERE "
                  "t.status='completed'" +
                      (study.empty() ? std::string() : " AND s.name='" + study + "'"));
}

// Waits for `trials` completed trials, `*most` getting the most runner jobs
// seen in the queue meanwhile.
bool CompletedWatchingQueue(const std::string& db, int64_t trials, size_t* most) {
  return WaitFor(
      [&] {
        *most = std::max(*most, QueuedJobs().size());
        return Completed(db) == trials;
      },
      180000);
}

class SlurmTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (geteuid() != 0 ||
        Shell("command -v slurmctld && command -v slurmd && command -v munged && command -v "
              "sbatch && echo ALL-THERE")
                .find("ALL-THERE") == std::string::npos) {
      skip_ = "needs root, slurm-wlm and munge (scripts/test.sh installs them)";
      return;
    }
    cluster_ = new TempDir();
    const std::string out = Shell(std::string(SWEEP_SOURCE_DIR) +
                                  "/scripts/slurm/one-node-cluster.sh start " + cluster_->path());
    if (out.find("export SLURM_CONF=") == std::string::npos) {
      failed_ = "the one-node cluster did not start: " + out;
      return;
    }
    setenv("SLURM_CONF", (cluster_->path() + "/slurm.conf").c_str(), 1);
  }
  static void TearDownTestSuite() {
    if (!cluster_) return;
    // Only on the cluster these tests started (SLURM_CONF names it).
    if (failed_.empty()) {
      Shell("scancel --user=root");
      WaitFor([] { return QueuedJobs().empty(); }, 30000);
    }
    Shell(std::string(SWEEP_SOURCE_DIR) + "/scripts/slurm/one-node-cluster.sh stop " +
          cluster_->path());
    unsetenv("SLURM_CONF");
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
    ASSERT_TRUE(failed_.empty()) << failed_;
  }
  void TearDown() override {
    // Nothing of one test may stay for the next.
    if (!skip_.empty() || !failed_.empty()) return;
    Shell("scancel --user=root");
    WaitFor([] { return QueuedJobs().empty(); }, 30000);
  }

  // `sweep serve` launching on the cluster, with no local runner.
  std::unique_ptr<Process> Serve(const TempDir& dir, const std::vector<std::string>& more) {
    auto p = std::make_unique<Process>(
        Concat({"serve", "--db", dir.File("s.db"), "--local-runners", "0", "--heartbeat-ms", "250",
                "--launcher", "slurm", "--launch-dir", dir.File("launch")},
               more),
        dir.File("serve.log"));
    EXPECT_FALSE(RunnersJoinAt(*p).empty()) << p->Log();
    return p;
  }
  static void Submit(const TempDir& dir, const std::string& file) {
    std::string out;
    ASSERT_EQ(RunSweep({"submit", file, "--db", dir.File("s.db")}, &out), 0) << out;
  }

  static inline TempDir* cluster_ = nullptr;
  static inline std::string skip_, failed_;
};

TEST_F(SlurmTest, AStudyRunsOnSlurmRunnersOnlyAndTheQueueEmptiesOnceTheyAreIdle) {
  TempDir dir;
  const std::string db = dir.File("s.db");
  auto service = Serve(dir, {"--launch-max", "3", "--launch-idle", "3"});
  Submit(dir, dir.Write("a.yaml", CurveStudyYaml("a", 12, 10, 100, 5)));
  size_t most = 0;
  ASSERT_TRUE(CompletedWatchingQueue(db, 12, &most)) << service->Log();
  const double done = static_cast<double>(time(nullptr));
  EXPECT_LE(most, 3u);
  EXPECT_GE(most, 1u);
  // Every trial ran on a Slurm runner, named by its job.
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE runner NOT GLOB 'slurm-[0-9]*'"), 0);
  EXPECT_EQ(QueryInt(db, "SELECT max(attempts) FROM trials"), 1);
  // Idle runners leave after 3 s: the queue is empty soon after.
  EXPECT_TRUE(WaitFor([] { return QueuedJobs().empty(); }, 30000)) << Shell("squeue");
  const double empty_after = static_cast<double>(time(nullptr)) - done;
  EXPECT_LE(empty_after, 3 + 12);  // --launch-idle, then the job's end and squeue's view
  EXPECT_GE(QueryInt(db, "SELECT count(*) FROM launches WHERE kind='submitted'"), 1);
  // The launcher sees each job leave the queue (it looks every second).
  EXPECT_TRUE(WaitFor(
      [&] {
        return QueryInt(db, "SELECT count(*) FROM launches WHERE kind='submitted'") ==
               QueryInt(db, "SELECT count(*) FROM launches WHERE kind='ended'");
      },
      10000));
  std::string out;
  ASSERT_EQ(RunSweep({"runners", "--db", db, "--launches"}, &out), 0) << out;
  EXPECT_NE(out.find("submitted"), std::string::npos) << out;
  EXPECT_NE(out.find("ended"), std::string::npos) << out;
  // The dashboard's pool view lists the jobs, each with its runner and how
  // long it ran and sat idle.
  Process dashboard({"dashboard", "--db", db, "--bind", "127.0.0.1:0"}, dir.File("dash.log"));
  std::string url;
  ASSERT_TRUE(WaitFor(
      [&] {
        const std::string log = dashboard.Log();
        const size_t at = log.find("http://127.0.0.1:");
        if (at == std::string::npos) return false;
        url = log.substr(at, log.find_first_of(" \n", at) - at);
        return true;
      },
      20000))
      << dashboard.Log();
  const std::string pool = Shell(
      "python3 -c 'import sys, urllib.request; "
      "print(urllib.request.urlopen(sys.argv[1] + \"api/pool\").read().decode())' " +
      url);
  const std::string job = CellText(Query(db, "SELECT job FROM launches LIMIT 1")[0][0]);
  EXPECT_NE(pool.find("{\"job\":\"" + job + "\",\"runner\":\"slurm-" + job +
                      "\",\"gpus\":0,\"state\":\"ended\""),
            std::string::npos)
      << pool;
  EXPECT_NE(pool.find("\"idle_s\":"), std::string::npos) << pool;
}

TEST_F(SlurmTest, RunnerJobsSignalledBySlurmHandTheirTrialsOnWithoutAnAttempt) {
  TempDir dir;
  const std::string db = dir.File("s.db");
  auto service = Serve(dir, {"--launch-max", "2", "--launch-idle", "5"});
  // Two trials of 40 steps of 150 ms: each is signalled mid-way.
  Submit(dir, dir.Write("a.yaml", CurveStudyYaml("a", 2, 40, 150, 5)));
  ASSERT_TRUE(WaitFor(
      [&] {
        return QueryInt(db,
                        "SELECT count(*) FROM (SELECT trial_id FROM reports GROUP BY trial_id "
                        "HAVING max(step) >= 5)") == 2;
      },
      120000))
      << service->Log();
  auto job_of = [&](int64_t number) {
    auto rows = Query(db, "SELECT runner FROM trials WHERE number = " + std::to_string(number));
    const std::string runner = CellText(rows.at(0).at(0));
    return runner.substr(runner.find('-') + 1);
  };
  const std::string first = job_of(0), second = job_of(1);
  ASSERT_NE(first, second);
  // Slurm's warning to the batch shell (what --signal=B:USR1@T sends) ...
  Shell("scancel --signal=USR1 --batch " + first);
  // ... and a plain scancel: SIGTERM to every process of the job.
  Shell("scancel " + second);
  ASSERT_TRUE(WaitFor([&] { return Completed(db) == 2; }, 180000)) << service->Log();
  EXPECT_EQ(QueryInt(db, "SELECT max(attempts) FROM trials"), 1);
  EXPECT_EQ(QueryInt(db, "SELECT min(step) FROM trials"), 40);
  // Each step stored once.
  EXPECT_EQ(QueryInt(db,
                     "SELECT count(*) FROM (SELECT trial_id, step FROM reports WHERE "
                     "metric='value' GROUP BY trial_id, step HAVING count(*) > 1)"),
            0);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM reports WHERE metric='value'"), 80);
  // Each went on on another runner job.
  EXPECT_NE(job_of(0), first);
  EXPECT_NE(job_of(1), second);
  std::string out;
  ASSERT_EQ(RunSweep({"why", "a", "0", "--db", db}, &out), 0) << out;
  EXPECT_NE(out.find("runner slurm-" + first + " was preempted by Slurm (SIGUSR1)"),
            std::string::npos)
      << out;
  ASSERT_EQ(RunSweep({"why", "a", "1", "--db", db}, &out), 0) << out;
  EXPECT_NE(out.find("runner slurm-" + second + " was preempted by Slurm (SIGTERM)"),
            std::string::npos)
      << out;
}

TEST_F(SlurmTest, LaunchMaxHoldsAcrossStudiesAndAGpuStudyOnACpuClusterSaysWhy) {
  TempDir dir;
  const std::string db = dir.File("s.db");
  auto service = Serve(dir, {"--launch-max", "2", "--launch-idle", "3"});
  Submit(dir, dir.Write("a.yaml", CurveStudyYaml("a", 6, 8, 100, 5)));
  Submit(dir, dir.Write("b.yaml", CurveStudyYaml("b", 6, 8, 100, 5)));
  size_t most = 0;
  ASSERT_TRUE(CompletedWatchingQueue(db, 12, &most)) << service->Log();
  EXPECT_LE(most, 2u);
  EXPECT_LE(QueryInt(db,
                     "SELECT count(*) FROM launches WHERE kind='submitted' AND at <= "
                     "(SELECT min(at) FROM launches WHERE kind='ended')"),
            2);
  // This cluster has no GPUs: sbatch refuses the GPU study's runners, and
  // the study says so rather than wait in silence.
  Submit(dir, dir.Write("g.yaml",
                        "name: g\nobjective: {metric: val_accuracy, goal: maximize}\n"
                        "task: {train: {dataset: fashion-mnist, model: mlp, epochs: 1}}\n"
                        "algorithm: {type: random, max_trials: 2}\n"
                        "resources: {gpus_per_trial: 1}\n"
                        "parameters:\n  lr: {type: float, min: 0.001, max: 0.1, log: true}\n"));
  std::string out;
  ASSERT_TRUE(WaitFor(
      [&] {
        RunSweep({"studies", "--db", db}, &out, 10000);
        return out.find(
                   "study 'g' is waiting: no runners: sbatch refused a runner with 1 "
                   "GPU(s)") != std::string::npos;
      },
      30000))
      << out << service->Log();
  EXPECT_GE(QueryInt(db, "SELECT count(*) FROM launches WHERE kind='refused' AND gpus=1"), 1);
  ASSERT_EQ(RunSweep({"why", "--study", "g", "--db", db}, &out), 0) << out;
  EXPECT_NE(out.find("sbatch refused a runner with 1 GPU(s)"), std::string::npos) << out;
}

TEST_F(SlurmTest, RunnerJobsThatEndBeforeTheirRunnerJoinsAreNotAskedForAgainAtOnce) {
  // --export=NONE loses the environment that names the binary and the key:
  // each job's script fails at once. The launcher must not resubmit in a
  // loop, and the study says why it has no runners.
  TempDir dir;
  const std::string db = dir.File("s.db");
  auto service = Serve(dir, {"--launch-max", "2", "--launch-args", "--export=NONE"});
  Submit(dir, dir.Write("a.yaml", CurveStudyYaml("a", 4, 5, 100, 5)));
  std::string out;
  ASSERT_TRUE(WaitFor(
      [&] {
        RunSweep({"studies", "--db", db}, &out, 10000);
        return out.find("ended before its runner joined") != std::string::npos;
      },
      60000))
      << out << service->Log();
  const int64_t submitted = QueryInt(db, "SELECT count(*) FROM launches WHERE kind='submitted'");
  EXPECT_GE(submitted, 1);
  EXPECT_LE(submitted, 2);
  sleep(8);  // eight more rounds: none submits (the next try is a minute on)
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM launches WHERE kind='submitted'"), submitted);
  EXPECT_GE(QueryInt(db, "SELECT count(*) FROM launches WHERE kind='failed'"), 1);
  EXPECT_EQ(Completed(db), 0);
}

TEST_F(SlurmTest, TheJobScriptRunsAnArrayOfRunnersNamedByTheirTasksThatLeaveWhenIdle) {
  // Without the launcher: a service with keys, and the array a user submits.
  TempDir dir;
  const std::string db = dir.File("s.db"), keys = dir.File("keys");
  std::string out;
  ASSERT_EQ(RunSweep({"keys", "new", "tuner", "--dir", keys}, &out), 0) << out;
  ASSERT_EQ(RunSweep({"keys", "new", "slurm", "--role", "runner", "--dir", keys}, &out), 0) << out;
  Process service(
      {"serve", "--db", db, "--local-runners", "0", "--keys", keys, "--heartbeat-ms", "250"},
      dir.File("serve.log"));
  const std::string endpoint = RunnersJoinAt(service);
  ASSERT_FALSE(endpoint.empty()) << service.Log();
  Submit(dir, dir.Write("a.yaml", CurveStudyYaml("a", 6, 5, 100, 5)));
  const std::string submitted =
      Shell("cd " + dir.path() + " && SWEEP=" + SWEEP_BIN + " SWEEP_KEY=" + keys +
            "/runners/slurm.key SWEEP_SERVER_KEY=" + keys +
            "/tuner.pub SWEEP_EXIT_WHEN_IDLE=2 sbatch --parsable --array=1-2 " + SWEEP_SOURCE_DIR +
            "/scripts/slurm/sweep-runners.sbatch " + endpoint + " --heartbeat-ms 250");
  const std::string array = submitted.substr(0, submitted.find_first_of(";\n"));
  ASSERT_FALSE(array.empty()) << submitted;
  ASSERT_TRUE(WaitFor([&] { return Completed(db) == 6; }, 120000)) << service.Log();
  EXPECT_EQ(QueryInt(db, "SELECT count(DISTINCT runner) FROM trials WHERE runner IN ('slurm-" +
                             array + "_1', 'slurm-" + array + "_2')"),
            QueryInt(db, "SELECT count(DISTINCT runner) FROM trials"));
  // Idle for 2 s, each runner leaves and its task ends.
  EXPECT_TRUE(WaitFor([] { return QueuedJobs().empty(); }, 20000)) << Shell("squeue");
  service.Signal(SIGTERM);
  service.Wait(20000);
}

}  // namespace
}  // namespace sweep::e2e
