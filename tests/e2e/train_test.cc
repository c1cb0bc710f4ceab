// End to end with real training: MLPs on a subset of Fashion-MNIST through
// real runners, one of them killed mid-trial; the re-run continues from the
// last checkpoint and ends bit-identical to an uninterrupted run of local
// runners, which lend each other idle cores (two replicas a trial, on one
// thread or two as the cores allow: the same bits).
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <thread>

#include "e2e/harness.h"
#include "nn/data/mnist.h"

namespace sweep::e2e {
namespace {

const char* kStudy =
    "name: mlp-e2e\nobjective: {metric: val_accuracy, goal: maximize}\n"
    "task:\n  train: {model: mlp, epochs: 5, validation: 45000, hidden_layers: 2, hidden_units: "
    "256, dropout: 0.1, threads: 2}\n"
    "algorithm: {type: random, max_trials: 3}\nseed: 2\nparameters:\n"
    "  lr: {type: float, min: 0.02, max: 0.1, log: true}\n  batch_norm: {type: categorical, "
    "values: [true, false]}\n";

std::map<int64_t, double> Values(const std::string& db) {
  std::map<int64_t, double> out;
  for (const auto& row : Query(db, "SELECT number, value FROM trials WHERE status='completed'")) {
    out[std::get<int64_t>(row[0])] = std::get<double>(row[1]);
  }
  return out;
}

TEST(E2eTrainTest, KilledRunnerResumesFromItsCheckpointBitExactly) {
  if (!std::filesystem::exists(nn::kDefaultFashionMnistDir)) {
    GTEST_SKIP() << "dataset-fashion-mnist is not installed (scripts/install-deps.sh installs it)";
  }
  TempDir dir;
  std::string study = dir.Write("s.yaml", kStudy);
  std::string endpoint = "ipc://" + dir.File("t.sock"), db = dir.File("k.db");
  Keys keys(dir, {"r0", "r1", "r2"});
  Process tuner(Concat({"run", study, "--db", db, "--bind", endpoint, "--local-runners", "0",
                        "--heartbeat-ms", "200", "--progress", "plain"},
                       keys.TunerArgs()),
                dir.File("tuner.log"));
  std::vector<std::unique_ptr<Process>> runners;
  auto add_runner = [&](const std::string& name) {
    runners.push_back(
        std::make_unique<Process>(Concat({"runner", "--connect", endpoint, "--name", name,
                                          "--heartbeat-ms", "200", "--threads", "1"},
                                         keys.RunnerArgs(name)),
                                  dir.File(name + ".log")));
  };
  add_runner("r0");
  add_runner("r1");
  int64_t victim = -1;
  ASSERT_TRUE(WaitFor(
      [&] {
        victim = QueryInt(db,
                          "SELECT t.id FROM trials t JOIN checkpoints c ON c.trial_id = t.id "
                          "WHERE t.status='running' AND t.runner='r0' AND c.step >= 2 LIMIT 1");
        return victim > 0;
      },
      120000))
      << tuner.Log();
  runners[0]->Signal(SIGKILL);
  add_runner("r2");
  ASSERT_EQ(tuner.Wait(300000), 0) << tuner.Log();
  std::string id = std::to_string(victim);
  EXPECT_EQ(QueryInt(db, "SELECT attempts FROM trials WHERE id=" + id), 2);
  // The second attempt started after the checkpointed epoch, not from epoch 1.
  int64_t first_step =
      QueryInt(db, "SELECT min(step) FROM reports WHERE attempt=2 AND trial_id=" + id);
  EXPECT_GE(first_step, 3);
  EXPECT_EQ(QueryInt(db, "SELECT max(step) FROM reports WHERE attempt=2 AND trial_id=" + id), 5);
  EXPECT_EQ(QueryInt(db,
                     "SELECT count(*) FROM trials WHERE status='completed' AND metrics LIKE "
                     "'%test_accuracy%'"),
            3);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM checkpoints WHERE step=5"), 3);

  // The same study without the kill gives the very same results.
  std::string ref = dir.File("ref.db"), out;
  ASSERT_EQ(RunSweep({"run", study, "--db", ref, "--local-runners", "2", "--progress", "plain"},
                     &out, 300000),
            0)
      << out;
  auto a = Values(db), b = Values(ref);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a, b);
  // Hand-started runners with --threads 1 train each trial's two replicas on
  // one thread; local runners on one core each (two on this machine) lend
  // theirs to the last trial once the others are done.
  auto most = Query(ref, "SELECT max(value) FROM reports WHERE metric='cpu_threads'");
  ASSERT_EQ(most.size(), 1u);
  const int own = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / 2);
  if (own < 2) EXPECT_GT(std::get<double>(most[0][0]), 1.0) << "no trial was lent a core";
  EXPECT_EQ(std::get<double>(Query(db,
                                   "SELECT max(value) FROM reports WHERE "
                                   "metric='cpu_threads'")[0][0]),
            1.0);
  auto best = Query(ref, "SELECT max(value) FROM trials");
  EXPECT_GT(std::get<double>(best[0][0]), 0.8);  // a real network learnt something
}

}  // namespace
}  // namespace sweep::e2e
